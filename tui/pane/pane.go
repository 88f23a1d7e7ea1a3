// Package pane defines what the shell needs from a pane (Recall, History,
// Jobs, Diagnostics, Proposals), the context every pane shares (the
// client, styles, clock), what the UI needs of cairn on top of the client
// (the status bar's snapshot, live changes), and the messages panes send to
// the shell.
package pane

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/styles"
)

// Context is shared by the shell and every pane. The shell replaces Styles
// when the theme changes (e.g. once the terminal reports its background).
type Context struct {
	// Client is how every pane reads and writes; its calls run in
	// tea.Cmds, never in Update.
	Client client.Client
	Styles *styles.Styles
	// Now is the clock for ages ("3m ago"); tests pin it.
	Now func() time.Time
	// Clock makes every timer and the wait for live changes; tui.New
	// sets it (RealClock unless told otherwise), so it is never nil in
	// the shell's Context.
	Clock Clock
	// Project is the current project (tui.Options.Project): new memories
	// default to it; empty means none.
	Project string
	// Types are the memory types the form accepts (tui.Options.Types);
	// nil is core.KnownTypes.
	Types []string
}

// ShortProject is a project shown in a narrow column: the last element of
// a path or URL-like identity ("github.com/acme/webshop" → "webshop").
func ShortProject(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, "/\\:"); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// Pane is one tab of the UI. Update and View never do I/O: panes return
// tea.Cmds for that.
type Pane interface {
	Title() string
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	// ApplyStyles re-reads Context.Styles after a theme change.
	ApplyStyles()
	// Capturing reports that a text field has the focus, so the shell
	// passes every key (q, ?, digits, esc) to the pane.
	Capturing() bool
	// Busy reports work in flight (the shell shows a spinner).
	Busy() bool
	// Nested reports a sub-view (detail, form, diff) that esc closes.
	Nested() bool
	// Refresh reloads after a write by anyone (a live change).
	Refresh(c Change) tea.Cmd
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// NoticeMsg is a one-line outcome for the status bar: an action's result,
// or (Err set) the last error.
type NoticeMsg struct {
	Text string
	Err  error
}

// Notice returns a command that reports text.
func Notice(format string, args ...any) tea.Cmd {
	text := fmt.Sprintf(format, args...)
	return func() tea.Msg { return NoticeMsg{Text: text} }
}

// Fail returns a command that reports err.
func Fail(what string, err error) tea.Cmd {
	return func() tea.Msg { return NoticeMsg{Text: what, Err: err} }
}

// Age renders how long ago stamp was, compactly ("now", "5m", "3h", "2d", "4w", "2026-01-31").
func Age(now time.Time, stamp string) string {
	t, err := wire.ParseTime(stamp)
	if err != nil {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d < 120*24*time.Hour:
		return fmt.Sprintf("%dw", int(d.Hours()/24/7))
	}
	return t.Format("2006-01-02")
}

// OneLine flattens s to one line and cuts it to width cells with "…".
func OneLine(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	return Truncate(s, width)
}

// Truncate cuts s to width cells, marking the cut with "…".
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= width {
		return s
	}
	r := []rune(s)
	if len(r) > width {
		r = r[:width] // every printable rune is at least one cell wide
	}
	for len(r) > 0 && lipgloss.Width(string(r))+1 > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// Pad fills s with spaces to width cells (cutting it if longer).
func Pad(s string, width int) string {
	s = Truncate(s, width)
	if w := lipgloss.Width(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// ShortID is the last 8 characters of an id: cairn's ids are UUID v7,
// whose leading characters are a timestamp shared by memories created
// together, while the tail is random.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// Scroll keeps a cursor inside a list of n rows shown height at a time:
// it clamps cursor and returns the first visible row.
func Scroll(cursor, offset, n, height int) (int, int) {
	if n == 0 {
		return 0, 0
	}
	cursor = max(0, min(cursor, n-1))
	if height < 1 {
		height = 1
	}
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+height {
		offset = cursor - height + 1
	}
	offset = max(0, min(offset, max(0, n-height)))
	return cursor, offset
}

// WrapWords cuts s into lines of at most w cells at spaces (a word longer
// than w is cut), so a long text shows whole rather than truncated.
func WrapWords(s string, w int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		for lipgloss.Width(word) > w {
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			r := []rune(word)
			lines = append(lines, string(r[:w]))
			word = string(r[w:])
		}
		switch {
		case cur == "":
			cur = word
		case lipgloss.Width(cur)+1+lipgloss.Width(word) <= w:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
