// Package history is the History pane: cairn's audit trail newest first,
// filtered by event, actor and memory, with a line diff of each change.
package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/diff"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
)

// Debounce is how long the filter box waits after the last keystroke
// before it applies the filter.
const Debounce = 150 * time.Millisecond

// ParseFilter reads the filter box: event:NAME and actor:NAME match
// exactly, mem:ID takes a memory id or its start, or the short id the list
// shows (or its start); any other word is free text, found in the event's
// content, reason or actor.
func ParseFilter(s string) core.HistorySearch {
	var f core.HistorySearch
	for _, tok := range strings.Fields(s) {
		k, v, ok := strings.Cut(tok, ":")
		switch k = strings.ToLower(k); {
		case ok && v != "" && (k == "event" || k == "ev"):
			f.Event = v
		case ok && v != "" && (k == "actor" || k == "by"):
			f.Actor = v
		case ok && v != "" && (k == "mem" || k == "memory" || k == "id"):
			f.Memory = v
		default:
			f.Text = append(f.Text, tok)
		}
	}
	return f
}

// Describe is a filter as the header shows it.
func Describe(f core.HistorySearch) string {
	var parts []string
	if f.Event != "" {
		parts = append(parts, "event="+f.Event)
	}
	if f.Actor != "" {
		parts = append(parts, "actor="+f.Actor)
	}
	if f.Memory != "" {
		parts = append(parts, "memory="+f.Memory+"…")
	}
	if len(f.Text) > 0 {
		parts = append(parts, "text="+strconv.Quote(strings.Join(f.Text, " ")))
	}
	return strings.Join(parts, " ")
}

type (
	loadedMsg struct {
		seq     int
		filter  core.HistorySearch
		entries []*core.HistoryEntry
		err     error
	}
	// debounceMsg fires Debounce after a keystroke in the filter box;
	// only the newest (seq) loads.
	debounceMsg struct{ seq int }
)

// Model is the History pane.
type Model struct {
	ctx  *pane.Context
	keys keys.History
	list keys.List

	width, height int
	input         textinput.Model
	seq           int
	typed         int // newest keystroke in the filter box
	loading       bool
	// applied is the filter of the events shown (the box may be ahead).
	applied core.HistorySearch
	entries []*core.HistoryEntry
	cursor  int
	offset  int

	open *core.HistoryEntry // the entry whose diff is shown
	vp   viewport.Model
	// session is the agent session shown (session.go), opened with s.
	session *sessions.Info
}

// New returns the History pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultHistory(), list: keys.DefaultList()}
	m.input = textinput.New()
	m.input.Prompt = "/ "
	m.input.Placeholder = "filter: words event:updated actor:NAME mem:ID"
	m.input.CharLimit = 200
	m.vp = viewport.New()
	m.vp.MouseWheelEnabled = true
	m.ApplyStyles()
	return m
}

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() { m.input.SetStyles(m.ctx.Styles.Input()) }

// Title implements pane.Pane.
func (m *Model) Title() string { return "History" }

// Init implements pane.Pane.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, w-4))
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(1, h-2))
	if m.open != nil {
		m.vp.SetContent(m.diffContent())
	}
	if m.session != nil {
		m.vp.SetContent(m.sessionContent())
	}
	m.clamp()
}

// Capturing implements pane.Pane.
func (m *Model) Capturing() bool { return m.input.Focused() }

// Busy implements pane.Pane.
func (m *Model) Busy() bool { return m.loading }

// Nested implements pane.Pane.
func (m *Model) Nested() bool { return m.open != nil || m.session != nil || m.input.Focused() }

// Refresh implements pane.Pane.
func (m *Model) Refresh(pane.Change) tea.Cmd { return m.load() }

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	if m.input.Focused() {
		return []key.Binding{doneFiltering, m.keys.Filters}
	}
	if m.open != nil || m.session != nil {
		return []key.Binding{m.list.Down, m.list.Up}
	}
	return []key.Binding{m.keys.Filter, m.list.Open, openSession, m.list.Down, m.list.Up}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom, m.list.Open},
		{m.keys.Filter, m.keys.Filters, openSession},
	}
}

func (m *Model) load() tea.Cmd {
	m.seq++
	m.loading = true
	seq, b, f := m.seq, m.ctx.Client, ParseFilter(m.input.Value())
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		e, err := b.SearchHistory(ctx, f, pane.HistoryLimit)
		return loadedMsg{seq: seq, filter: f, entries: e, err: err}
	}
}

func (m *Model) listHeight() int { return max(1, m.height-2) }

func (m *Model) clamp() {
	m.cursor, m.offset = pane.Scroll(m.cursor, m.offset, len(m.entries), m.listHeight())
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.loading = false
		if msg.err != nil {
			return pane.Fail("history", msg.err)
		}
		// The selection stays on the same event, on the same screen row,
		// as new events arrive above it.
		keep, row := "", 0
		if m.cursor < len(m.entries) {
			keep, row = m.entries[m.cursor].ID, m.cursor-m.offset
		}
		m.entries, m.applied = msg.entries, msg.filter
		m.cursor, m.offset = 0, 0
		for i, e := range m.entries {
			if e.ID == keep {
				m.cursor, m.offset = i, max(0, i-row)
				break
			}
		}
		m.clamp()
	case sessionMsg:
		return m.showSession(msg)
	case debounceMsg:
		if msg.seq != m.typed {
			return nil // a newer keystroke follows
		}
		return m.load()
	case tea.MouseWheelMsg:
		if m.open != nil || m.session != nil {
			var cmd tea.Cmd
			m.vp, cmd = m.vp.Update(msg)
			return cmd
		}
		m.cursor = pane.WheelCursor(msg, m.cursor)
		m.clamp()
	case tea.KeyPressMsg:
		return m.key(msg)
	default:
		if m.input.Focused() {
			return m.edit(msg)
		}
	}
	return nil
}

// edit passes msg to the filter box; a change applies after Debounce.
func (m *Model) edit(msg tea.Msg) tea.Cmd {
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return cmd
	}
	m.typed++
	seq := m.typed
	return tea.Batch(cmd, m.ctx.Clock.Tick(Debounce, func(time.Time) tea.Msg { return debounceMsg{seq: seq} }))
}

// doneFiltering is enter or esc in the filter box: the filter already
// applies as you type.
var doneFiltering = key.NewBinding(key.WithKeys("enter", "esc"), key.WithHelp("enter/esc", "back to the list"))

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.input.Focused() {
		switch msg.String() {
		case "enter", "esc", "down":
			m.input.Blur()
			if Describe(ParseFilter(m.input.Value())) != Describe(m.applied) {
				m.typed++ // a pending debounce is now stale: load at once
				return m.load()
			}
			return nil
		}
		return m.edit(msg)
	}
	if m.open != nil || m.session != nil {
		switch {
		case msg.String() == "esc":
			m.open, m.session = nil, nil
		default:
			return pane.ScrollDetail(&m.vp, m.list, msg)
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Filter):
		return m.input.Focus()
	case pane.IsMove(m.list, msg):
		m.cursor, _ = pane.MoveCursor(m.list, msg, m.cursor, len(m.entries), m.listHeight())
	case key.Matches(msg, openSession):
		return m.loadSession()
	case key.Matches(msg, m.list.Open):
		if m.cursor < len(m.entries) {
			m.open = m.entries[m.cursor]
			m.vp.SetContent(m.diffContent())
			m.vp.GotoTop()
		}
	case msg.String() == "esc":
		if m.input.Value() != "" {
			m.input.SetValue("")
			m.typed++
			return m.load()
		}
	}
	m.clamp()
	return nil
}

// View implements pane.Pane.
func (m *Model) View() string {
	var out string
	if m.session != nil {
		out = m.sessionView()
	} else if m.open != nil {
		out = m.diffView()
	} else {
		out = m.listView()
	}
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

// Column widths of the event list.
const (
	colTime  = 16
	colEvent = 9
	colActor = 14
	colType  = 8
	colID    = 8
)

func (m *Model) listView() string {
	st := m.ctx.Styles
	var b strings.Builder
	b.WriteString(m.input.View() + "\n")
	head := fmt.Sprintf("%d events, newest first", len(m.entries))
	if d := Describe(m.applied); d != "" {
		head += " · " + d
	}
	b.WriteString(st.Faint.Render(pane.Truncate(head, m.width)))
	if len(m.entries) == 0 && !m.loading {
		b.WriteString("\n" + st.Faint.Render("No events."))
	}
	for i := m.offset; i < len(m.entries) && i < m.offset+m.listHeight(); i++ {
		b.WriteString("\n" + m.row(m.entries[i], i == m.cursor))
	}
	return b.String()
}

func (m *Model) row(e *core.HistoryEntry, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	when := e.CreatedAt
	if t, err := wire.ParseTime(e.CreatedAt); err == nil {
		when = t.Format("2006-01-02 15:04")
	}
	what := e.Reason
	if c := content(e); c != "" {
		if what != "" {
			what += " · "
		}
		what += c
	}
	typeW := colType
	if m.width < 100 {
		typeW = 0
	}
	line := marker + pane.Pad(when, colTime) + " " + pane.Pad(e.Event, colEvent) + " " + pane.Pad(e.ChangedBy, colActor) + " "
	if typeW > 0 {
		line += pane.Pad(e.ActorType, typeW) + " "
	}
	line += pane.Pad(pane.ShortID(e.MemoryID), colID) + " "
	line += pane.OneLine(what, max(5, m.width-lipgloss.Width(line)))
	line = pane.Pad(line, m.width)
	if selected {
		return st.Selected.Render(line)
	}
	return st.Text.Render(line)
}

// content is the text an event is about: the new content, else the old.
func content(e *core.HistoryEntry) string {
	if e.NewContent != nil {
		return *e.NewContent
	}
	if e.OldContent != nil {
		return *e.OldContent
	}
	return ""
}

func (m *Model) diffView() string {
	st := m.ctx.Styles
	e := m.open
	head := fmt.Sprintf("%s %s by %s (%s) · %s", pane.ShortID(e.MemoryID), e.Event, e.ChangedBy, e.ActorType, e.CreatedAt)
	sub := "reason: " + e.Reason
	if e.Reason == "" {
		sub = "no reason given"
	}
	return st.Heading.Render(pane.Truncate(head, m.width)) + "\n" + st.Faint.Render(pane.Truncate(sub, m.width)) + "\n" + m.vp.View()
}

// diffContent renders the open event's old and new content as a line diff.
func (m *Model) diffContent() string {
	st := m.ctx.Styles
	e := m.open
	var old, new string
	if e.OldContent != nil {
		old = *e.OldContent
	}
	if e.NewContent != nil {
		new = *e.NewContent
	}
	if e.OldContent == nil && e.NewContent == nil {
		return st.Faint.Render("This event changed no content (metadata only).")
	}
	w := max(10, m.width-2)
	var b strings.Builder
	for _, l := range diff.Lines(old, new) {
		for _, part := range wrap(l.Text, w) {
			switch l.Op {
			case diff.Removed:
				b.WriteString(st.Removed.Render("- "+part) + "\n")
			case diff.Added:
				b.WriteString(st.Added.Render("+ "+part) + "\n")
			default:
				b.WriteString(st.Text.Render("  "+part) + "\n")
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wrap cuts a line into pieces of at most w cells.
func wrap(s string, w int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := min(len(r), w)
		for n > 1 && lipgloss.Width(string(r[:n])) > w {
			n--
		}
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}
