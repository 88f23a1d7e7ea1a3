// Package history is the History pane: cairn's audit trail newest first
// (or oldest first: o), filtered by event, actor and memory, with a line
// diff of each change.
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

// Sorts are the orders o cycles through: "" is newest first, the audit
// trail as it grows; SortOldest reads it from its start, as a log.
var Sorts = []string{"", SortOldest}

// SortOldest orders the events oldest first.
const SortOldest = "oldest"

// sortLabel says how the events are ordered, for the header.
func sortLabel(sort string) string {
	if sort == SortOldest {
		return "oldest first"
	}
	return "newest first"
}

type (
	// loadedMsg answers a read of the list: a page (want says which) or
	// a live refresh (want is pane.WantNothing) of the query seq.
	loadedMsg struct {
		seq    int
		want   pane.Want
		filter core.HistorySearch
		oldest bool // the page is of the list oldest first
		page   *core.HistoryPage
		full   bool // the page is as long as asked: there may be more
		// above is a refresh's page of events new above the first row
		// (below the last row, oldest first).
		above     *core.HistoryPage
		aboveFull bool
		err       error
	}
	// debounceMsg fires Debounce after a keystroke in the filter box;
	// only the newest (seq) loads.
	debounceMsg struct{ seq int }
)

// Model is the History pane.
type Model struct {
	ctx   *pane.Context
	keys  keys.History
	listK keys.List

	width, height int
	input         textinput.Model
	seq           int
	typed         int // newest keystroke in the filter box
	loading       bool
	// applied is the filter of the events shown (the box may be ahead).
	applied core.HistorySearch
	// sort is the order (an index into Sorts) o picked; oldest says the
	// events shown are read oldest first.
	sort   int
	oldest bool
	// list is the events read so far, paged by cursor as the cursor
	// nears an end, so every event is reachable.
	list pane.List[*core.HistoryEntry]

	open *core.HistoryEntry // the entry whose diff is shown
	vp   viewport.Model
	// session is the agent session shown (session.go), opened with s.
	session *sessions.Info
}

// New returns the History pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultHistory(), listK: keys.DefaultList()}
	m.list = pane.NewList(func(e *core.HistoryEntry) string { return e.ID })
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

// Refresh implements pane.Pane: events new above the list arrive (counted
// when the list is scrolled away from the top).
func (m *Model) Refresh(pane.Change) tea.Cmd { return m.refresh() }

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	if m.input.Focused() {
		return []key.Binding{doneFiltering, m.keys.Filters}
	}
	if m.open != nil || m.session != nil {
		return []key.Binding{m.listK.Down, m.listK.Up}
	}
	return []key.Binding{m.keys.Filter, m.listK.Open, openSession, m.listK.Down, m.listK.Up}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.listK.Up, m.listK.Down, m.listK.PageUp, m.listK.PageDown, m.listK.Top, m.listK.Bottom, m.listK.Open},
		{m.keys.Filter, m.keys.Filters, m.keys.Sort, openSession},
	}
}

// load reads the first page of the box's filter in the order o picked: a
// new query.
func (m *Model) load() tea.Cmd {
	m.seq++
	m.loading = true
	// No page of the list shown is read meanwhile: it would arrive after
	// the new list, in its old order or filter.
	m.list.Loading(pane.WantFirst)
	f := ParseFilter(m.input.Value())
	return m.read(pane.WantFirst, f, core.PageQuery{Limit: pane.PageRows, Oldest: Sorts[m.sort] == SortOldest}, true)
}

// read reads one page of f for want (pane.WantNothing: a live refresh).
func (m *Model) read(want pane.Want, f core.HistorySearch, p core.PageQuery, count bool) tea.Cmd {
	seq, b := m.seq, m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		pg, err := b.HistoryPage(ctx, f, p, count)
		msg := loadedMsg{seq: seq, want: want, filter: f, oldest: p.Oldest, page: pg, err: err}
		if err == nil {
			msg.full = len(pg.History) >= p.Limit
		}
		return msg
	}
}

// refresh re-reads the list live: the events new above the first row
// when the list reaches the top (else nothing new is visible yet), and
// the total. Oldest first, new events come last: those below the last row
// when the list reaches its end.
func (m *Model) refresh() tea.Cmd {
	if m.loading {
		return nil // the list in flight is read after the change
	}
	if m.list.Len() == 0 {
		return m.load()
	}
	seq, b, f, first, head := m.seq, m.ctx.Client, m.applied, m.list.FirstCursor(), m.list.AtHead()
	oldest := m.oldest
	p := core.PageQuery{After: first, Limit: pane.PageRows}
	if oldest {
		p, head = core.PageQuery{Before: m.list.LastCursor(), Limit: pane.PageRows, Oldest: true}, m.list.AtTail()
	}
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		if !head {
			// The end new events reach is not loaded: only the total
			// says what arrived.
			p = core.PageQuery{Limit: 1, Oldest: oldest}
		}
		pg, err := b.HistoryPage(ctx, f, p, true)
		if err == nil && !head {
			pg.History, pg.Cursors = nil, nil
		}
		msg := loadedMsg{seq: seq, want: pane.WantNothing, filter: f, above: pg, err: err}
		if err == nil {
			msg.aboveFull = len(pg.History) >= pane.PageRows
		}
		return msg
	}
}

// more reads the page the list asks for, if any.
func (m *Model) more() tea.Cmd {
	w := m.list.Want()
	p := core.PageQuery{Limit: pane.PageRows}
	p.Oldest = m.oldest
	switch w {
	case pane.WantNothing:
		return nil
	case pane.WantBelow:
		p.Before = m.list.LastCursor()
	case pane.WantAbove:
		p.After = m.list.FirstCursor()
	case pane.WantLast:
		p.Last = true
	}
	m.list.Loading(w)
	return m.read(w, m.applied, p, w == pane.WantFirst)
}

func (m *Model) listHeight() int { return max(1, m.height-2) }

func (m *Model) clamp() { m.list.SetHeight(m.listHeight()) }

// selected is the event under the cursor.
func (m *Model) selected() (*core.HistoryEntry, bool) { return m.list.Selected() }

// loaded applies a read of the list.
func (m *Model) loaded(msg loadedMsg) tea.Cmd {
	if msg.seq != m.seq {
		return nil
	}
	if msg.want == pane.WantFirst && m.loading {
		m.loading = false
	}
	if msg.err != nil {
		m.list.LoadFailed()
		return pane.Fail("history", msg.err)
	}
	pg := msg.page
	switch msg.want {
	case pane.WantNothing:
		if m.oldest {
			return m.arrivedBelow(msg)
		}
		if msg.aboveFull && m.list.Following() {
			// More than a page arrived: the newest page replaces the list.
			m.list.Loading(pane.WantFirst)
			return m.read(pane.WantFirst, m.applied, core.PageQuery{Limit: pane.PageRows, Oldest: m.oldest}, true)
		}
		if total := m.list.Total(); !m.list.AtHead() && total >= 0 && msg.above.Total >= 0 {
			m.list.CountedAbove(msg.above.Total - total)
		}
		m.list.Arrived(msg.above.History, msg.above.Cursors, msg.aboveFull)
		m.list.SetTotal(msg.above.Total)
	case pane.WantFirst:
		m.applied, m.oldest = msg.filter, msg.oldest
		m.list.Ascending = msg.oldest
		m.list.Reset(pg.History, pg.Cursors, pg.Total, !msg.full)
	case pane.WantLast:
		m.list.ResetLast(pg.History, pg.Cursors)
	case pane.WantBelow:
		m.list.Below(pg.History, pg.Cursors, !msg.full)
	case pane.WantAbove:
		m.list.Above(pg.History, pg.Cursors, !msg.full)
	}
	m.clamp()
	return m.more()
}

// arrivedBelow applies a live refresh of the list oldest first: new
// events come last. On the last row the list follows them (more than a
// page: the last page replaces the list); elsewhere they are counted
// ("3 new ↓ G").
func (m *Model) arrivedBelow(msg loadedMsg) tea.Cmd {
	if msg.aboveFull && m.list.FollowingTail() {
		m.list.SetTotal(msg.above.Total)
		m.list.Loading(pane.WantLast)
		return m.read(pane.WantLast, m.applied, core.PageQuery{Last: true, Limit: pane.PageRows, Oldest: true}, false)
	}
	if total := m.list.Total(); !m.list.AtTail() && total >= 0 && msg.above.Total >= 0 {
		m.list.CountedBelow(msg.above.Total - total)
	}
	m.list.ArrivedBelow(msg.above.History, msg.above.Cursors, msg.aboveFull)
	m.list.SetTotal(msg.above.Total)
	m.clamp()
	return m.more()
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		return m.loaded(msg)
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
		m.list.MoveBy(pane.WheelCursor(msg, 0))
		return m.more()
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
			return pane.ScrollDetail(&m.vp, m.listK, msg)
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Filter):
		return m.input.Focus()
	case key.Matches(msg, m.keys.Sort):
		// The filter applied stays; the list is read again in the new
		// order from its start.
		m.sort = (m.sort + 1) % len(Sorts)
		return m.load()
	case m.list.Move(m.listK, msg):
		return m.more()
	case key.Matches(msg, openSession):
		return m.loadSession()
	case key.Matches(msg, m.listK.Open):
		if e, ok := m.selected(); ok {
			m.open = e
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

// Column widths of the event list: the widest each column takes, then
// the narrower ones it shrinks to before it gives way.
var (
	colTime        = []int{16, 11} // "2006-01-02 15:04", "01-02 15:04"
	colTimeNarrow  = []int{11}
	colEvent       = []int{9}
	colActor       = []int{14}
	colActorNarrow = []int{11} // "claude-code"
	colType        = []int{8}
	colID          = []int{8}
)

// minText is the most room the event's reason and content are sure of:
// the columns give way, lesser ones first, to keep it.
const minText = 30

// columns are the widths of the event list's columns now (0: not shown):
// the event and the memory first, then the actor, the time and the
// actor's type.
// Under 100 columns the time and the actor take their narrow widths.
func (m *Model) columns() (when, event, actor, actorType, id int) {
	timeW, actorW := colTime, colActor
	if m.width < 100 {
		timeW, actorW = colTimeNarrow, colActorNarrow
	}
	w := pane.Fit(m.width-2, pane.MinText(m.width-2, minText), []pane.Column{
		{Widths: timeW, Rank: 3}, {Widths: colEvent, Rank: 0}, {Widths: actorW, Rank: 2},
		{Widths: colType, Rank: 4}, {Widths: colID, Rank: 1},
	})
	return w[0], w[1], w[2], w[3], w[4]
}

func (m *Model) listView() string {
	st := m.ctx.Styles
	var b strings.Builder
	b.WriteString(m.input.View() + "\n")
	order := ""
	if m.oldest {
		order = SortOldest
	}
	head := m.list.Head("events", sortLabel(order))
	if d := Describe(m.applied); d != "" {
		head += " · " + d
	}
	b.WriteString(pane.ListHead(st, head, m.list.NewAboveText(), m.width))
	if m.list.Len() == 0 && !m.loading {
		b.WriteString("\n" + st.Faint.Render("No events."))
	}
	from, to := m.list.Visible()
	for i := from; i < to; i++ {
		b.WriteString("\n" + m.row(m.list.Row(i), i == m.list.Cursor()))
	}
	return b.String()
}

func (m *Model) row(e *core.HistoryEntry, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	whenW, eventW, actorW, typeW, idW := m.columns()
	when := e.CreatedAt
	if t, err := wire.ParseTime(e.CreatedAt); err == nil {
		when = t.Format("2006-01-02 15:04")
		if whenW < len(when) {
			when = t.Format("01-02 15:04")
		}
	}
	what := e.Reason
	if c := content(e); c != "" {
		if what != "" {
			what += " · "
		}
		what += c
	}
	line := marker
	col := func(w int, v string) {
		if w > 0 {
			line += pane.Pad(v, w) + " "
		}
	}
	col(whenW, when)
	col(eventW, e.Event)
	col(actorW, e.ChangedBy)
	col(typeW, e.ActorType)
	col(idW, pane.ShortID(e.MemoryID))
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
