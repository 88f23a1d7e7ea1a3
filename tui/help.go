package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/tui/pane"
)

// shortHelp is the one-line hint bar: the pane's hints in their order of
// importance, then the always-kept keys. When the line is too narrow the
// pane's least important hints go first (the last ones); keep are never
// dropped.
func shortHelp(st help.Styles, width int, optional, keep []key.Binding) string {
	optional = enabled(optional)
	keep = enabled(keep)
	sep := " • "
	item := func(b key.Binding) string { return b.Help().Key + " " + b.Help().Desc }
	fits := func(items []key.Binding) bool {
		w := 0
		for i, b := range items {
			if i > 0 {
				w += len([]rune(sep))
			}
			w += lipgloss.Width(item(b))
		}
		return w <= width
	}
	n := len(optional)
	for n > 0 && !fits(append(append([]key.Binding{}, optional[:n]...), keep...)) {
		n--
	}
	items := append(append([]key.Binding{}, optional[:n]...), keep...)
	parts := make([]string, len(items))
	for i, b := range items {
		parts[i] = st.ShortKey.Render(b.Help().Key) + " " + st.ShortDesc.Render(b.Help().Desc)
	}
	return strings.Join(parts, st.ShortSeparator.Render(sep))
}

func enabled(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() && b.Help().Key != "" {
			out = append(out, b)
		}
	}
	return out
}

// helpGroup is one titled column of the full help.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpColumnMax caps a column's width, so long descriptions (the filter
// syntax) wrap inside their column instead of pushing the others off.
const helpColumnMax = 38

// fullHelpLines lays the groups out as columns, left to right, starting a
// new band of columns below when the next one does not fit width. A
// binding whose text is wider than its column wraps onto indented lines.
func fullHelpLines(st help.Styles, heading lipgloss.Style, width int, groups []helpGroup) []string {
	const gap = 3
	colMax := min(helpColumnMax, max(20, width))
	type column struct {
		title string
		lines []string
		width int
	}
	var cols []column
	for _, g := range groups {
		keys := enabled(g.keys)
		if len(keys) == 0 {
			continue
		}
		kw := 0
		for _, b := range keys {
			kw = max(kw, lipgloss.Width(b.Help().Key))
		}
		kw = min(kw, colMax/2)
		c := column{title: g.title, lines: []string{heading.Render(pane.Truncate(g.title, colMax))}, width: lipgloss.Width(g.title)}
		for _, b := range keys {
			k := pane.Pad(b.Help().Key, kw)
			descW := max(8, colMax-kw-1)
			for i, d := range pane.WrapWords(b.Help().Desc, descW) {
				if i > 0 {
					k = strings.Repeat(" ", kw)
				}
				line := st.FullKey.Render(k) + " " + st.FullDesc.Render(d)
				c.lines = append(c.lines, line)
				c.width = max(c.width, kw+1+lipgloss.Width(d))
			}
		}
		cols = append(cols, c)
	}
	var out []string
	for len(cols) > 0 {
		// Take as many columns as fit side by side (at least one).
		n, w := 1, cols[0].width
		for n < len(cols) && w+gap+cols[n].width <= width {
			w += gap + cols[n].width
			n++
		}
		band := cols[:n]
		cols = cols[n:]
		h := 0
		for _, c := range band {
			h = max(h, len(c.lines))
		}
		for i := range h {
			var b strings.Builder
			for j, c := range band {
				cell := ""
				if i < len(c.lines) {
					cell = c.lines[i]
				}
				if j < len(band)-1 {
					cell += strings.Repeat(" ", c.width-lipgloss.Width(cell)+gap)
				}
				b.WriteString(cell)
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if len(cols) > 0 && cols[0].title != "" {
			out = append(out, "") // an untitled column's empty heading already parts the bands
		}
	}
	return out
}
