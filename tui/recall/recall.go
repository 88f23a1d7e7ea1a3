// Package recall is the Recall pane: search as you type over cairn's
// memories, a detail view with the score breakdown and the memory's history,
// and the operator's actions (new, edit, pin, delete, recover, copy).
package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
)

// Debounce is how long the search box waits after the last keystroke
// before searching: long enough to skip the intermediate prefixes of a
// word typed at speed, short enough to feel immediate.
const Debounce = 150 * time.Millisecond

// DeletedLimit is how many tombstones "show deleted" lists.
const DeletedLimit = 200

// mode is what the pane shows.
type mode int

const (
	modeList    mode = iota
	modeDetail       // one memory: content, fields, score, history
	modeForm         // new or edit
	modeReason       // asking why, before an edit is saved
	modeConfirm      // asking to confirm a delete, with a reason
	modeEntity       // one entity of the knowledge graph (entities.go)
)

// item is one row: a recall hit or a listed memory.
type item struct {
	ID         string
	Content    string
	Type       string
	Importance float64
	Pinned     bool
	Tags       []string
	Project    string
	CreatedAt  string
	Deleted    bool
	Score      float64
	Scored     bool
	Explain    *core.ScoreParts
}

func itemFromHit(h *core.RecallHit) item {
	return item{ID: h.ID, Content: h.Content, Type: h.Type, Importance: h.Importance, Pinned: h.Pinned,
		Tags: h.Tags, Project: h.Project, CreatedAt: h.CreatedAt, Score: h.Score, Scored: true, Explain: h.Explain}
}

func itemFromMemory(m *core.Memory) item {
	return item{ID: m.ID, Content: m.Content, Type: m.Type, Importance: m.Importance, Pinned: m.Pinned,
		Tags: m.Tags, Project: m.Project, CreatedAt: m.CreatedAt, Deleted: m.IsDeleted}
}

// Messages. Each carries what it needs to be applied without more I/O.
type (
	// debounceMsg fires Debounce after a keystroke; only the newest (seq)
	// starts a search.
	debounceMsg struct{ seq int }
	// resultsMsg answers search seq; an older seq is dropped. A fresh
	// search (the query changed) puts the cursor on the best hit; a
	// refresh keeps it on the same memory.
	resultsMsg struct {
		seq    int
		fresh  bool
		items  []item
		method string
		below  int // memories near in meaning but under the relevance floor
		err    error
		// A list by cursor (recent or deleted memories, paged so every
		// memory is reachable): each item's cursor, the total, whether
		// the page was full, and what it answers: pane.WantFirst for a
		// new list, a page (pane.WantBelow…), or pane.WantNothing for a
		// live refresh (the rows on screen re-read from spliceFrom, and
		// the rows new above them).
		paged   bool
		want    pane.Want
		cursors []string
		total   int
		full    bool
		// a refresh's re-read and arrivals
		spliceFrom   string
		above        []item
		aboveCursors []string
		aboveFull    bool
	}
	// detailMsg opens a memory.
	detailMsg struct {
		stamp   string // the memory's stamp, read before it
		mem     *core.Memory
		history []*core.HistoryEntry
		explain *core.ScoreParts
		ents    []graph.Entity
		entsErr error // the entities could not be read; the memory shows
		err     error
		nav     int // m.nav when it was asked for
	}
	// editMsg opens the form on the stored memory (fresh version).
	editMsg struct {
		mem *core.Memory
		err error
	}
	// savedMsg reports a write; conflict holds the stored memory when
	// the write lost a version race.
	savedMsg struct {
		what     string
		id       string
		err      error
		conflict *core.Memory
	}
)

// Model is the Recall pane.
type Model struct {
	ctx   *pane.Context
	keys  keys.Recall
	listK keys.List
	formK keys.Form

	width, height int

	input    textinput.Model
	seq      int    // newest search issued
	shownSeq int    // the search whose results are shown
	keepID   string // select this memory when the next results arrive
	loading  bool
	// list is the results: a list by cursor while browsing (every memory
	// reachable, read a page at a time), by offset for a search.
	list        pane.List[item]
	paged       bool
	filter      core.MemoryFilter // the browsed list's filter, for its pages
	method      string
	belowFloor  int
	filterErr   string
	showDeleted bool
	// onlyProject limits the list to the current project (P toggles);
	// off, every project shows. A project: token in the box wins.
	onlyProject bool
	// openOnResults opens the best result as soon as the search in
	// flight answers (enter pressed before the debounce fired).
	openOnResults bool
	// issued is the newest search sequence already sent to the backend.
	issued int

	mode mode
	// shown says the pane is on screen (pane.Shown).
	shown bool
	// detail
	mem *core.Memory
	// stamp is the open memory's stamp when it was read; stampPoll
	// checks it while the detail is shown (live.go).
	stamp     string
	stampPoll pane.Poller
	history   []*core.HistoryEntry
	explain   *core.ScoreParts
	vp        viewport.Model
	// the open memory's entities; entSel >= 0 while one is being picked
	ents    []graph.Entity
	entsErr error
	entSel  int
	// the entity view, its selected row, and the views esc returns to
	entity    *graph.Detail
	entCursor int
	trail     []*crumb
	selLine   int // the content line of the selection, for scrolling
	// nav counts steps back (esc); a memory or entity asked for before
	// one is not opened when it answers.
	nav int
	// form, reason and confirm
	form    *form
	reason  textinput.Model
	confirm *core.Memory // the memory a delete asks about
	// bulk are the marked memories a delete asks about (confirm is nil).
	bulk    []item
	working bool // a write is in flight
	// undo are the memories the last delete here forgot (ctrl+z
	// recovers them).
	undo []string
}

// New returns the Recall pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultRecall(), listK: keys.DefaultList(), formK: keys.DefaultForm(), entSel: -1}
	m.stampPoll = pane.Poller{Interval: StampInterval, Clock: ctx.Clock}
	m.list = pane.NewList(func(it item) string { return it.ID })
	m.input = textinput.New()
	m.input.Prompt = "/ "
	m.input.Placeholder = "search memories (type: tag: who: project: pinned: imp: since:)"
	m.input.CharLimit = 500
	m.reason = textinput.New()
	m.reason.Prompt = "reason: "
	m.reason.CharLimit = 500
	m.vp = viewport.New()
	m.vp.MouseWheelEnabled = true
	m.ApplyStyles()
	return m
}

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() {
	m.input.SetStyles(m.ctx.Styles.Input())
	m.reason.SetStyles(m.ctx.Styles.Input())
	if m.form != nil {
		m.form.applyStyles(m.ctx.Styles)
	}
}

// Title implements pane.Pane.
func (m *Model) Title() string { return "Recall" }

// Init implements pane.Pane: list recent memories.
func (m *Model) Init() tea.Cmd { return m.search() }

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, w-4))
	m.reason.SetWidth(max(10, w-12))
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(1, h-1))
	if m.mode == modeDetail || m.mode == modeEntity {
		m.vp.SetContent(m.content())
	}
	if m.form != nil {
		m.form.setSize(w, h)
	}
}

// Capturing implements pane.Pane.
func (m *Model) Capturing() bool {
	return m.input.Focused() || m.mode == modeForm || m.mode == modeReason || m.mode == modeConfirm
}

// Busy implements pane.Pane.
func (m *Model) Busy() bool { return m.loading || m.working }

// Nested implements pane.Pane.
func (m *Model) Nested() bool { return m.mode != modeList || m.input.Focused() }

// Refresh implements pane.Pane: re-run the current search (and reload an
// open memory) so agents' writes appear without a keypress.
func (m *Model) Refresh(c pane.Change) tea.Cmd {
	cmds := []tea.Cmd{m.search()}
	if m.mode == modeDetail && m.mem != nil && (c.MemoryID == "" || c.MemoryID == m.mem.ID) {
		cmds = append(cmds, m.openDetail(m.mem.ID, m.explain))
	}
	if m.mode == modeEntity && m.entity != nil {
		cmds = append(cmds, m.openEntity(m.entity.Entity.ID, nil))
	}
	return tea.Batch(cmds...)
}

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeForm:
		return []key.Binding{m.formK.Save, m.formK.NextField, m.formK.Toggle, m.formK.Cancel}
	case modeReason, modeConfirm:
		return []key.Binding{m.formK.Confirm, m.formK.Cancel}
	case modeDetail:
		if m.entSel >= 0 {
			return []key.Binding{m.keys.OpenEntity, m.keys.EntityMove, m.keys.Back}
		}
		return []key.Binding{m.keys.Entities, m.keys.Edit, m.keys.Pin, m.keys.Delete, m.keys.Copy, m.listK.Down}
	case modeEntity:
		return []key.Binding{m.keys.OpenEntity, m.keys.Back, m.listK.Down, m.listK.Up}
	}
	if m.input.Focused() {
		return []key.Binding{m.listK.Open, m.keys.Filters}
	}
	if m.ctx.Project == "" && !m.onlyProject {
		return []key.Binding{m.keys.Search, m.listK.Open, m.keys.New, m.keys.Edit, m.keys.Pin, m.keys.Delete}
	}
	return []key.Binding{m.keys.Search, m.listK.Open, m.keys.New, m.keys.Edit, m.keys.Project, m.keys.Pin, m.keys.Delete}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.listK.Up, m.listK.Down, m.listK.PageUp, m.listK.PageDown, m.listK.Top, m.listK.Bottom, m.listK.Open},
		{m.keys.Search, m.keys.New, m.keys.Edit, m.keys.Pin, m.keys.Delete, m.keys.Recover, m.keys.Deleted, m.keys.Project, m.keys.Copy, m.keys.CopyID},
		{m.keys.Mark, m.keys.Undo},
		{m.formK.Save, m.formK.NextField, m.formK.PrevField, m.formK.Toggle, m.formK.Cancel},
		{m.keys.Entities, m.keys.EntityMove, m.keys.OpenEntity},
		{m.keys.Filters},
	}
}

func (m *Model) selected() (item, bool) { return m.list.Selected() }

// search starts the search for the box's current text as search m.seq:
// a new list when the query changed, else a live refresh of the one
// shown.
func (m *Model) search() tea.Cmd {
	q, err := ParseQuery(m.input.Value(), m.ctx.Now())
	if err != nil {
		m.filterErr = err.Error()
		return nil
	}
	m.filterErr = ""
	m.loading = true
	m.issued = m.seq
	if m.onlyProject && q.Filter.Project == "" {
		q.Filter.Project = m.ctx.Project
	}
	seq, b, deleted := m.seq, m.ctx.Client, m.showDeleted
	fresh := m.seq != m.shownSeq
	browse := strings.TrimSpace(q.Text) == ""
	if browse {
		f := q.Filter
		f.OnlyDeleted = deleted
		method := "recent"
		if deleted {
			method = "deleted"
		}
		if !fresh && m.paged && m.list.Len() > 0 {
			return m.refreshPage(seq, f, method)
		}
		return m.readPage(seq, f, method, pane.WantFirst, core.PageQuery{Limit: pane.PageRows})
	}
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		res := resultsMsg{seq: seq, fresh: fresh, want: pane.WantFirst}
		switch {
		case deleted:
			f := q.Filter
			f.OnlyDeleted = true
			mems, err := b.Recent(ctx, f, DeletedLimit)
			res.err, res.method = err, "deleted"
			needle := strings.ToLower(q.Text)
			for _, mem := range mems {
				if needle == "" || strings.Contains(strings.ToLower(mem.Content), needle) {
					res.items = append(res.items, itemFromMemory(mem))
				}
			}
		default:
			// Browsing is not use: searching as you type would count every
			// keystroke as an access and keep every memory from decaying.
			r, err := b.Recall(ctx, core.RecallInput{Query: q.Text, Limit: pane.RecallLimit, Filter: q.Filter, Explain: true, NoTracking: true})
			res.err = err
			if err == nil {
				res.method, res.below = r.Method, r.BelowFloor
				for _, h := range r.Results {
					res.items = append(res.items, itemFromHit(h))
				}
			}
		}
		return res
	}
}

// readPage reads one page of the browsed list f for want.
func (m *Model) readPage(seq int, f core.MemoryFilter, method string, want pane.Want, p core.PageQuery) tea.Cmd {
	b, fresh := m.ctx.Client, m.seq != m.shownSeq
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		pg, err := b.Page(ctx, f, p, want == pane.WantFirst)
		res := resultsMsg{seq: seq, fresh: fresh, method: method, paged: true, want: want, err: err}
		if err == nil {
			res.items, res.cursors, res.total = pageItems(pg), pg.Cursors, pg.Total
			res.full = len(pg.Memories) >= p.Limit
		}
		return res
	}
}

// refreshPage re-reads the browsed list live: the rows loaded (a memory
// forgotten or edited elsewhere shows so), and the rows new above them
// when the list reaches its top.
func (m *Model) refreshPage(seq int, f core.MemoryFilter, method string) tea.Cmd {
	b, from, n, head := m.ctx.Client, m.list.FirstCursor(), min(m.list.Len(), core.MaxPageLimit), m.list.AtHead()
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		res := resultsMsg{seq: seq, method: method, paged: true, want: pane.WantNothing, spliceFrom: from, total: -1}
		pg, err := b.Page(ctx, f, core.PageQuery{Before: from, Inclusive: true, Limit: n}, true)
		if err != nil {
			res.err = err
			return res
		}
		res.items, res.cursors, res.total, res.full = pageItems(pg), pg.Cursors, pg.Total, len(pg.Memories) >= n
		if head {
			up, err := b.Page(ctx, f, core.PageQuery{After: from, Limit: pane.PageRows}, false)
			if err != nil {
				res.err = err
				return res
			}
			res.above, res.aboveCursors, res.aboveFull = pageItems(up), up.Cursors, len(up.Memories) >= pane.PageRows
		}
		return res
	}
}

func pageItems(pg *core.MemoryPage) []item {
	out := make([]item, len(pg.Memories))
	for i, mem := range pg.Memories {
		out[i] = itemFromMemory(mem)
	}
	return out
}

// more reads the page the browsed list asks for, if any.
func (m *Model) more() tea.Cmd {
	if !m.paged {
		return nil
	}
	w := m.list.Want()
	p := core.PageQuery{Limit: pane.PageRows}
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
	return m.readPage(m.shownSeq, m.filter, m.method, w, p)
}

// results applies an answer of the list.
func (m *Model) results(msg resultsMsg) tea.Cmd {
	if msg.seq != m.seq {
		return nil // stale: the box changed since
	}
	if msg.want == pane.WantFirst || msg.want == pane.WantNothing {
		m.loading = false
	}
	if msg.err != nil {
		m.list.LoadFailed()
		return pane.Fail("search", msg.err)
	}
	keep := m.keepID
	m.keepID = ""
	switch msg.want {
	case pane.WantBelow:
		m.list.Below(msg.items, msg.cursors, !msg.full)
	case pane.WantAbove:
		m.list.Above(msg.items, msg.cursors, !msg.full)
	case pane.WantLast:
		m.list.ResetLast(msg.items, msg.cursors)
	case pane.WantNothing:
		n, total := m.list.Len(), m.list.Total()
		m.list.Splice(msg.spliceFrom, msg.items, msg.cursors, msg.full)
		if msg.total >= 0 && total >= 0 && !m.list.AtHead() {
			// Rows above the window changed: the total says how many.
			m.list.CountedAbove(msg.total - total - (m.list.Len() - n))
		}
		if msg.total >= 0 {
			m.list.SetTotal(msg.total)
		}
		if msg.aboveFull && m.list.Following() {
			// More than a page arrived: the newest page replaces the list.
			m.list.Loading(pane.WantFirst)
			return m.readPage(m.seq, m.filter, m.method, pane.WantFirst, core.PageQuery{Limit: pane.PageRows})
		}
		m.list.Arrived(msg.above, msg.aboveCursors, msg.aboveFull)
	default:
		// A new list; a refresh of a search keeps the selection on the
		// same memory and on the same screen row, as memories arrive
		// above it.
		m.shownSeq = msg.seq
		m.method, m.belowFloor, m.paged = msg.method, msg.below, msg.paged
		if msg.paged {
			q, _ := ParseQuery(m.input.Value(), m.ctx.Now())
			m.filter = q.Filter
			if m.onlyProject && m.filter.Project == "" {
				m.filter.Project = m.ctx.Project
			}
			m.filter.OnlyDeleted = m.showDeleted
		}
		switch {
		case msg.paged:
			m.list.Reset(msg.items, msg.cursors, msg.total, !msg.full)
		case msg.fresh || m.list.Len() == 0 || m.list.CursorOf(0) != "":
			m.list.Reset(msg.items, nil, len(msg.items), true)
		default:
			m.list.Replace(msg.items, len(msg.items), true)
		}
	}
	if keep != "" {
		m.list.Select(keep)
	}
	m.clamp()
	if m.openOnResults {
		m.openOnResults = false
		if it, ok := m.selected(); ok {
			m.working = true
			return m.openDetail(it.ID, it.Explain)
		}
	}
	return m.more()
}

func (m *Model) openDetail(id string, explain *core.ScoreParts) tea.Cmd {
	b, nav := m.ctx.Client, m.nav
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		// The stamp first: a change made while the memory is read makes
		// the next check differ, so it is never missed. A cairn that has
		// no stamp leaves it empty: the detail follows events only.
		stamp, _ := b.MemoryStamp(ctx, id)
		mem, err := b.Get(ctx, id, true)
		if err != nil {
			return detailMsg{err: err, nav: nav}
		}
		hist, err := b.MemoryHistory(ctx, id, pane.HistoryLimit)
		if err != nil {
			return detailMsg{err: err, nav: nav}
		}
		ents, entsErr := b.MemoryEntities(ctx, id)
		return detailMsg{stamp: stamp, mem: mem, history: hist, explain: explain, ents: ents, entsErr: entsErr, nav: nav}
	}
}

// Update implements pane.Pane. The open memory's stamp check follows the
// mode it leaves (watch).
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	cmd := m.update(msg)
	if w := m.watch(); w != nil {
		return tea.Batch(cmd, w)
	}
	return cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case stampMsg:
		return m.stamped(msg)
	case pane.PollTick:
		if m.stampPoll.Due(msg) {
			return tea.Batch(m.checkStamp(), m.stampPoll.Tick())
		}
		return nil
	}
	if cmd, ok := m.handleAux(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case debounceMsg:
		if msg.seq != m.seq || msg.seq == m.issued {
			return nil // a newer keystroke follows, or enter already searched
		}
		return m.search()
	case resultsMsg:
		return m.results(msg)
	case entityMsg:
		return m.entityLoaded(msg)
	case detailMsg:
		m.working = false
		if msg.err != nil {
			return pane.Fail("open memory", msg.err)
		}
		if msg.nav != m.nav || m.mode == modeEntity {
			return nil // the person went back meanwhile
		}
		if m.mode == modeList {
			m.trail = nil // opened from the list: esc goes back to it
		}
		reopen := m.mode == modeDetail && m.mem != nil && m.mem.ID == msg.mem.ID
		m.mem, m.history, m.explain, m.stamp = msg.mem, msg.history, msg.explain, msg.stamp
		m.ents, m.entsErr = msg.ents, msg.entsErr
		if !reopen || m.entSel >= len(m.ents) {
			m.entSel = -1
		}
		if m.mode == modeList || m.mode == modeDetail {
			m.mode = modeDetail
			y := m.vp.YOffset()
			m.vp.SetContent(m.detailContent())
			if reopen {
				m.vp.SetYOffset(y)
			} else {
				m.vp.GotoTop()
			}
		}
		return nil
	case editMsg:
		m.working = false
		if msg.err != nil {
			return pane.Fail("edit", msg.err)
		}
		m.form = newEditForm(msg.mem, m.ctx.Styles)
		m.form.types = m.ctx.Types
		m.form.setSize(m.width, m.height)
		m.mode = modeForm
		return m.form.focus()
	case savedMsg:
		return m.saved(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		switch m.mode {
		case modeList:
			m.list.MoveBy(pane.WheelCursor(msg, 0))
			return m.more()
		case modeDetail, modeEntity:
			var cmd tea.Cmd
			m.vp, cmd = m.vp.Update(msg)
			return cmd
		}
	}
	return m.forward(msg)
}

// forward passes other messages (cursor blinks, pastes) to the focused input.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case m.mode == modeForm && m.form != nil:
		cmd = m.form.update(msg)
	case m.mode == modeReason || m.mode == modeConfirm:
		m.reason, cmd = m.reason.Update(msg)
	case m.input.Focused():
		before := m.input.Value()
		m.input, cmd = m.input.Update(msg)
		if m.input.Value() != before {
			return tea.Batch(cmd, m.typed())
		}
	}
	return cmd
}

// typed schedules a search Debounce from now as the newest sequence.
func (m *Model) typed() tea.Cmd {
	m.seq++
	seq := m.seq
	if _, err := ParseQuery(m.input.Value(), m.ctx.Now()); err != nil {
		m.filterErr = err.Error()
	} else {
		m.filterErr = ""
	}
	return m.ctx.Clock.Tick(Debounce, func(time.Time) tea.Msg { return debounceMsg{seq: seq} })
}

func (m *Model) listHeight() int { return max(1, m.height-2) }

func (m *Model) clamp() { m.list.SetHeight(m.listHeight()) }

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeForm:
		return m.formKey(msg)
	case modeReason, modeConfirm:
		return m.promptKey(msg)
	case modeDetail:
		return m.detailKey(msg)
	case modeEntity:
		return m.entityKey(msg)
	}
	if m.input.Focused() {
		switch {
		case msg.String() == "esc":
			m.input.Blur()
			return nil
		case msg.String() == "enter":
			// Enter opens the selected result, as the hint says. When the
			// box changed since the shown results, the search runs now and
			// its best hit opens when it answers.
			m.input.Blur()
			if m.filterErr != "" {
				return nil
			}
			if m.seq != m.shownSeq {
				m.openOnResults = true
				if m.issued == m.seq {
					return nil // already in flight
				}
				return m.search()
			}
			if it, ok := m.selected(); ok {
				m.working = true
				return m.openDetail(it.ID, it.Explain)
			}
			return nil
		case msg.String() == "down":
			m.input.Blur()
			m.list.MoveBy(1)
			return m.more()
		}
		before := m.input.Value()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		if m.input.Value() != before {
			return tea.Batch(cmd, m.typed())
		}
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.Search):
		return m.input.Focus()
	case m.list.Move(m.listK, msg):
		return m.more()
	case key.Matches(msg, m.listK.Open):
		if it, ok := m.selected(); ok {
			m.working = true
			return m.openDetail(it.ID, it.Explain)
		}
	case key.Matches(msg, m.keys.New):
		m.form = newCreateForm(m.ctx.Styles, m.ctx.Project)
		m.form.types = m.ctx.Types
		m.form.setSize(m.width, m.height)
		m.mode = modeForm
		return m.form.focus()
	case key.Matches(msg, m.keys.Deleted):
		m.showDeleted = !m.showDeleted
		m.seq++
		return m.search()
	case key.Matches(msg, m.keys.Project):
		if m.ctx.Project == "" && !m.onlyProject {
			return pane.Notice("no current project: every memory shows (type project:NAME in the search to pick one)")
		}
		m.onlyProject = !m.onlyProject
		m.seq++
		return m.search()
	case key.Matches(msg, m.keys.Mark):
		m.list.ToggleMark()
		m.list.MoveBy(1)
		return m.more()
	case key.Matches(msg, m.keys.Delete) && m.list.MarkCount() > 0:
		m.bulk = m.list.MarkedRows()
		m.confirm = nil
		m.reason.SetValue("")
		m.mode = modeConfirm
		return m.reason.Focus()
	case key.Matches(msg, m.keys.Undo):
		return m.undoDelete()
	case key.Matches(msg, m.keys.Edit, m.keys.Pin, m.keys.Delete, m.keys.Recover, m.keys.Copy, m.keys.CopyID):
		if it, ok := m.selected(); ok {
			return m.action(msg, it.ID, it.Content)
		}
	case msg.String() == "esc":
		if m.list.MarkCount() > 0 {
			m.list.ClearMarks()
			return nil
		}
		if m.input.Value() != "" {
			m.input.SetValue("")
			return m.typed()
		}
	}
	return nil
}

func (m *Model) detailKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.entSel >= 0 {
		if cmd, ok := m.entitiesKey(msg); ok {
			return cmd
		}
	}
	switch {
	case msg.String() == "esc":
		if !m.popCrumb() {
			m.nav++
			m.mode = modeList
		}
		return nil
	case key.Matches(msg, m.keys.Entities):
		return m.pickEntities()
	case key.Matches(msg, m.keys.Undo):
		return m.undoDelete()
	case key.Matches(msg, m.keys.Edit, m.keys.Pin, m.keys.Delete, m.keys.Recover, m.keys.Copy, m.keys.CopyID):
		if m.mem != nil {
			return m.action(msg, m.mem.ID, m.mem.Content)
		}
	case key.Matches(msg, m.listK.Top):
		m.vp.GotoTop()
	case key.Matches(msg, m.listK.Bottom):
		m.vp.GotoBottom()
	default:
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(msg)
		return cmd
	}
	return nil
}

// action starts an action on memory id from the list or the detail view.
func (m *Model) action(msg tea.KeyPressMsg, id, content string) tea.Cmd {
	b := m.ctx.Client
	switch {
	case key.Matches(msg, m.keys.CopyID):
		return func() tea.Msg { return copyMsg{text: id, what: "id " + pane.ShortID(id)} }
	case key.Matches(msg, m.keys.Copy):
		// Copying needs the full text: a recall hit may be truncated.
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			if mem, err := b.Get(ctx, id, true); err == nil {
				content = mem.Content
			}
			return copyMsg{text: content}
		}
	case key.Matches(msg, m.keys.Edit):
		m.working = true
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			mem, err := b.Get(ctx, id, true)
			if err == nil && mem.IsDeleted {
				err = errors.New("this memory is deleted; recover it (u) before editing")
			}
			return editMsg{mem: mem, err: err}
		}
	case key.Matches(msg, m.keys.Pin):
		m.working = true
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			mem, err := b.Get(ctx, id, true)
			if err != nil {
				return savedMsg{what: "pin", id: id, err: err}
			}
			pinned := !mem.Pinned
			what := "unpinned"
			if pinned {
				what = "pinned"
			}
			_, err = b.Modify(ctx, core.Patch{ID: id, Pinned: &pinned, IfVersion: &mem.Version, Reason: what + " in the TUI"})
			return savedMsg{what: what, id: id, err: err}
		}
	case key.Matches(msg, m.keys.Delete):
		m.working = true
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			mem, err := b.Get(ctx, id, true)
			if err == nil && mem.IsDeleted {
				err = errors.New("already deleted")
			}
			return confirmMsg{mem: mem, err: err}
		}
	case key.Matches(msg, m.keys.Recover):
		m.working = true
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			mem, err := b.Get(ctx, id, true)
			if err != nil {
				return savedMsg{what: "recover", id: id, err: err}
			}
			if !mem.IsDeleted {
				return savedMsg{what: "recover", id: id, err: errors.New("not deleted: nothing to recover")}
			}
			_, err = b.Recover(ctx, core.RecoverInput{ID: id, IfVersion: &mem.Version, Reason: "recovered in the TUI"})
			return savedMsg{what: "recovered", id: id, err: err}
		}
	}
	return nil
}

type (
	copyMsg struct {
		text string
		what string // what was copied, when not the content
	}
	confirmMsg struct {
		mem *core.Memory
		err error
	}
)

// handleAux handles the messages of this file's small flows; Update calls it first.
func (m *Model) handleAux(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case copyMsg:
		// OSC 52: the terminal puts it on the system clipboard; terminals
		// without OSC 52 (and tmux without set-clipboard) ignore it.
		what := fmt.Sprintf("%d characters", len([]rune(msg.text)))
		if msg.what != "" {
			what = msg.what
		}
		return tea.Batch(tea.SetClipboard(msg.text),
			pane.Notice("copied %s (OSC 52: needs a terminal that supports it)", what)), true
	case bulkMsg:
		return m.bulkDone(msg), true
	case confirmMsg:
		m.working = false
		if msg.err != nil {
			return pane.Fail("delete", msg.err), true
		}
		m.confirm = msg.mem
		m.reason.SetValue("")
		m.mode = modeConfirm
		return m.reason.Focus(), true
	}
	return nil, false
}

func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.reason.Blur()
		if m.mode == modeReason {
			m.mode = modeForm
			return m.form.focus()
		}
		m.mode = m.back()
		return nil
	case "enter":
		reason := strings.TrimSpace(m.reason.Value())
		m.reason.Blur()
		m.working = true
		b := m.ctx.Client
		if m.mode == modeConfirm && m.confirm == nil {
			return m.deleteMarked(reason)
		}
		if m.mode == modeConfirm {
			mem := m.confirm
			m.mode = m.back()
			if reason == "" {
				reason = "deleted in the TUI"
			}
			// The operator confirmed: a pinned memory is deleted too.
			return func() tea.Msg {
				ctx, cancel := pane.CallContext()
				defer cancel()
				_, err := b.Forget(ctx, core.ForgetInput{ID: mem.ID, Reason: reason, IfVersion: &mem.Version, Force: mem.Pinned})
				return savedMsg{what: "deleted", id: mem.ID, err: err}
			}
		}
		f := m.form
		if reason == "" {
			reason = "edited in the TUI"
		}
		return f.save(b, reason)
	}
	var cmd tea.Cmd
	m.reason, cmd = m.reason.Update(msg)
	return cmd
}

// back is the mode a finished prompt returns to.
func (m *Model) back() mode {
	if m.mem != nil && m.confirm != nil && m.mem.ID == m.confirm.ID {
		return modeDetail
	}
	return modeList
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.formK.Cancel):
		m.form = nil
		if m.mem != nil {
			m.mode = modeDetail
		} else {
			m.mode = modeList
		}
		return nil
	case key.Matches(msg, m.formK.Save):
		if err := m.form.validate(); err != nil {
			m.form.err = err.Error()
			return nil
		}
		if m.form.base == nil {
			m.working = true
			return m.form.save(m.ctx.Client, "")
		}
		// An edit asks why: the reason goes to the memory's history.
		m.mode = modeReason
		m.reason.SetValue("")
		return m.reason.Focus()
	}
	return m.form.update(msg)
}

func (m *Model) saved(msg savedMsg) tea.Cmd {
	m.working = false
	if msg.conflict != nil && m.form != nil {
		// Keep everything typed; show what is stored now and save against
		// its version next time, so a second ctrl+s overwrites knowingly.
		m.form.conflict = msg.conflict
		m.form.base = msg.conflict
		m.form.setSize(m.width, m.height)
		m.mode = modeForm
		return tea.Batch(m.form.focus(), pane.Fail("save", msg.err))
	}
	if msg.err != nil {
		if m.mode == modeReason {
			m.mode = modeForm
		}
		if m.form != nil && m.mode == modeForm {
			m.form.err = msg.err.Error()
		}
		return pane.Fail(msg.what, msg.err)
	}
	m.keepID = msg.id
	notice := pane.Notice("%s %s", msg.what, pane.ShortID(msg.id))
	if msg.what == "deleted" {
		m.undo = []string{msg.id}
		notice = pane.Notice("deleted %s · ctrl+z undoes", pane.ShortID(msg.id))
	}
	cmds := []tea.Cmd{notice, m.search()}
	if m.mode == modeForm || m.mode == modeReason {
		m.form = nil
		m.mode = modeList
		if m.mem != nil && m.mem.ID == msg.id {
			m.mode = modeDetail
		}
	}
	if m.mode == modeDetail && m.mem != nil && m.mem.ID == msg.id {
		cmds = append(cmds, m.openDetail(msg.id, m.explain))
	}
	return tea.Batch(cmds...)
}

func fmtImportance(x float64) string { return fmt.Sprintf("%.2f", x) }

// bulkMsg reports a delete of the marked memories.
type bulkMsg struct {
	ids    []string // the ones deleted
	failed int
	err    error // the first failure
}

// deleteMarked forgets the marked memories, pinned ones too (the person
// confirmed the list), and clears the marks.
func (m *Model) deleteMarked(reason string) tea.Cmd {
	items, b := m.bulk, m.ctx.Client
	m.bulk = nil
	m.mode = modeList
	m.working = true
	m.list.ClearMarks()
	if reason == "" {
		reason = "deleted in the TUI (marked)"
	}
	return func() tea.Msg {
		r := pane.RunEach(items, func(ctx context.Context, it item) (string, error) {
			_, err := b.Forget(ctx, core.ForgetInput{ID: it.ID, Reason: reason, Force: it.Pinned})
			return it.ID, err
		})
		return bulkMsg{ids: r.Done, failed: r.Failed, err: r.Err}
	}
}

// bulkDone applies a bulk delete's outcome.
func (m *Model) bulkDone(msg bulkMsg) tea.Cmd {
	m.working = false
	if len(msg.ids) > 0 {
		m.undo = msg.ids
	}
	if msg.err != nil {
		return tea.Batch(pane.Fail(fmt.Sprintf("deleted %d, %d failed", len(msg.ids), msg.failed), msg.err), m.search())
	}
	return tea.Batch(pane.Notice("deleted %d memories · ctrl+z undoes", len(msg.ids)), m.search())
}

// undoDelete recovers what the last delete here forgot.
func (m *Model) undoDelete() tea.Cmd {
	ids, b := m.undo, m.ctx.Client
	if len(ids) == 0 {
		return pane.Notice("nothing to undo: no delete in this session")
	}
	m.undo = nil
	m.working = true
	return func() tea.Msg {
		var err error
		for _, id := range ids {
			ctx, cancel := pane.CallContext()
			_, e := b.Recover(ctx, core.RecoverInput{ID: id, Reason: "undo in the TUI"})
			cancel()
			if e != nil && err == nil {
				err = e
			}
		}
		what := "recovered"
		if len(ids) > 1 {
			what = fmt.Sprintf("recovered %d memories, the last", len(ids))
		}
		return savedMsg{what: what, id: ids[len(ids)-1], err: err}
	}
}
