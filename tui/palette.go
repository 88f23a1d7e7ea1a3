package tui

import (
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/tui/learned"
	"github.com/cairnmem/cairn/tui/pane"
)

// command is one action the palette offers: a pane's key (pane < 0 for
// the shell's own) with what its help says.
type command struct {
	pane  int
	where string // the pane's title, or "Global"
	desc  string
	keys  string // as the help shows them
	press tea.KeyPressMsg
}

// palette is the command palette (: or ctrl+p): every action of every
// pane, filtered by a fuzzy match of what is typed against the pane's
// name, the action and its key; enter goes to the pane and presses the
// key, so an action from the palette is the same code as the key.
type palette struct {
	input  textinput.Model
	all    []command
	shown  []command
	cursor int
}

// openPalette collects the actions (the active pane's first) and opens
// the palette.
func (m *Model) openPalette() tea.Cmd {
	p := &palette{input: textinput.New()}
	p.input.Prompt = ": "
	p.input.Placeholder = "type to find an action (esc closes)"
	p.input.CharLimit = 100
	p.input.SetStyles(m.ctx.Styles.Input())
	p.input.SetWidth(max(10, m.width-4))
	g := m.keys
	add := func(i int, where string, b key.Binding) {
		h := b.Help()
		if !b.Enabled() || h.Desc == "" || len(b.Keys()) == 0 {
			return
		}
		press, ok := pressOf(b.Keys()[0])
		if !ok {
			return // a documentation-only binding (the filter syntax)
		}
		p.all = append(p.all, command{pane: i, where: where, desc: h.Desc, keys: h.Key, press: press})
	}
	order := []int{m.active}
	for i := range m.panes {
		if i != m.active {
			order = append(order, i)
		}
	}
	if m.learnedOpen { // its actions first, pressed where they are
		for _, group := range m.learned.FullHelp() {
			for _, b := range group {
				add(-1, m.learned.Title(), b)
			}
		}
	}
	for _, i := range order {
		for _, group := range m.panes[i].FullHelp() {
			for _, b := range group {
				add(i, m.panes[i].Title(), b)
			}
		}
		if i == 0 {
			add(0, m.panes[0].Title(), learned.OpenKey)
		}
	}
	for i, pn := range m.panes {
		p.all = append(p.all, command{pane: i, where: "Global", desc: "go to " + pn.Title(), keys: g.Tabs()[i].Keys()[0]})
	}
	add(-1, "Global", g.Help)
	add(-1, "Global", g.Quit)
	m.palette = p
	p.filter()
	return p.input.Focus()
}

// filter keeps the commands the typed text matches, best first.
func (p *palette) filter() {
	q := strings.ToLower(strings.TrimSpace(p.input.Value()))
	type scored struct {
		c     command
		score int
		i     int
	}
	var hits []scored
	for i, c := range p.all {
		s, ok := fuzzy(q, strings.ToLower(c.where+" "+c.desc+" "+c.keys))
		if ok {
			hits = append(hits, scored{c, s, i})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score < hits[b].score })
	p.shown = p.shown[:0]
	for _, h := range hits {
		p.shown = append(p.shown, h.c)
	}
	p.cursor = max(0, min(p.cursor, len(p.shown)-1))
}

// fuzzy reports whether every rune of q appears in s in order, and a
// score (lower is better): the runes skipped between matches, so
// "pin" finds "pin/unpin" before "open the event's session".
func fuzzy(q, s string) (int, bool) {
	if q == "" {
		return 0, true
	}
	if i := strings.Index(s, q); i >= 0 {
		return -1000 + i, true // a contiguous match beats any scattered one
	}
	score, start := 0, -1
	for _, r := range q {
		if r == ' ' {
			continue
		}
		i := strings.IndexRune(s, r)
		if i < 0 {
			return 0, false
		}
		if start >= 0 {
			score += i
		}
		start = i
		s = s[i+utf8.RuneLen(r):]
	}
	return score, true
}

// paletteKey handles a key while the palette is open.
func (m *Model) paletteKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.palette
	switch msg.String() {
	case "esc":
		m.palette = nil
		return nil
	case "up", "ctrl+k":
		p.cursor = max(0, p.cursor-1)
		return nil
	case "down", "ctrl+j", "ctrl+n":
		p.cursor = min(len(p.shown)-1, p.cursor+1)
		return nil
	case "enter":
		m.palette = nil
		if p.cursor >= len(p.shown) {
			return nil
		}
		c := p.shown[p.cursor]
		if c.pane >= 0 && c.desc == "go to "+m.panes[c.pane].Title() && c.where == "Global" {
			return m.switchTo(c.pane)
		}
		switchCmd := tea.Cmd(nil)
		if c.pane >= 0 {
			switchCmd = m.switchTo(c.pane)
		}
		return tea.Batch(switchCmd, m.key(c.press))
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.cursor = 0
		p.filter()
	}
	return cmd
}

// paletteView is the palette in place of the pane's body.
func (m *Model) paletteView() string {
	st, p, h := m.ctx.Styles, m.palette, m.bodyHeight()
	lines := []string{p.input.View(), st.Faint.Render(pane.Truncate(pane.Count(len(p.shown))+" actions · ↑/↓ pick · enter runs · esc closes", m.width))}
	rows := h - len(lines)
	top := max(0, p.cursor-rows+1)
	for i := top; i < len(p.shown) && i < top+rows; i++ {
		c := p.shown[i]
		keyW := 14
		line := "  "
		if i == p.cursor {
			line = "› "
		}
		line += pane.Pad(c.where, 12) + " " + pane.Pad(c.keys, keyW) + " "
		line = pane.Pad(line+pane.Truncate(c.desc, max(5, m.width-lipgloss.Width(line))), m.width)
		if i == p.cursor {
			lines = append(lines, st.Selected.Render(line))
		} else {
			lines = append(lines, st.Text.Render(line))
		}
	}
	if len(p.shown) == 0 {
		lines = append(lines, st.Faint.Render("No action matches."))
	}
	return lipgloss.NewStyle().Width(m.width).Height(h).MaxHeight(h).Render(strings.Join(lines, "\n"))
}

// pressOf is the key press a binding's key name stands for; ok is false
// for names that are no key (documentation-only bindings).
func pressOf(s string) (tea.KeyPressMsg, bool) {
	named := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete,
	}
	switch {
	case s == "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, true
	case s == "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}, true
	case named[s] != 0:
		return tea.KeyPressMsg{Code: named[s]}, true
	case strings.HasPrefix(s, "ctrl+") && utf8.RuneCountInString(s) == 6:
		return tea.KeyPressMsg{Code: rune(s[5]), Mod: tea.ModCtrl}, true
	case utf8.RuneCountInString(s) == 1 && s[0] >= ' ':
		r, _ := utf8.DecodeRuneInString(s)
		return tea.KeyPressMsg{Code: r, Text: s}, true
	}
	return tea.KeyPressMsg{}, false
}
