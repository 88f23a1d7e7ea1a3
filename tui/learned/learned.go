// Package learned is the Learned view, opened from the Recall pane (L):
// the memories cairn learned from the sessions it watched since the
// person last looked, newest first, each kept (reviewed, left as it is),
// edited (the Recall pane's form) or dropped (forgotten with a reason,
// through the same write path as Recall's delete, ctrl+z undoing it), one
// at a time or the marked ones at once. "Last looked" is kept in the
// store (GET /api/learned, POST /api/learned/review): it advances when
// everything was kept or dropped, or when the person marks all seen.
package learned

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/recall"
)

// Limit is how many learned memories the view loads (the count covers
// them all).
const Limit = 500

// OpenKey opens the view from the Recall pane.
var OpenKey = key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "learned since you last looked"))

// Keys are the view's actions.
type Keys struct {
	Keep, Edit, Drop, Mark, AllSeen, Undo, Close key.Binding
}

// DefaultKeys returns the view's bindings: the marks and the undo are
// the Recall pane's.
func DefaultKeys() Keys {
	r := keys.DefaultRecall()
	return Keys{
		Keep:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "keep")),
		Edit:    r.Edit,
		Drop:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "drop")),
		Mark:    key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark (a, d act on the marked)")),
		AllSeen: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "mark all seen")),
		Undo:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo the last drop")),
		Close:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to Recall")),
	}
}

// mode is what the view shows.
type mode int

const (
	modeList    mode = iota
	modeForm         // editing one
	modeReason       // why the edit, before it is saved
	modeDrop         // why drop, before the drop (one or the marked)
	modeConfirm      // y/n: keep the marked, or mark all seen
)

// Messages.
type (
	// StateMsg is what is new, as a load or a review answered; the shell
	// shows its count in the status bar.
	StateMsg struct {
		State  *ops.Learned
		Err    error
		notice string // the review's outcome
	}
	editMsg struct {
		mem *core.Memory
		err error
	}
	droppedMsg struct {
		ids    []string
		failed int
		err    error
		state  *ops.Learned
	}
	recoveredMsg struct {
		n     int
		err   error
		state *ops.Learned
	}
)

// Model is the Learned view. It implements pane.Pane, though it is no tab:
// the shell shows it in place of the Recall pane.
type Model struct {
	ctx   *pane.Context
	k     Keys
	listK keys.List
	formK keys.Form

	width, height int

	list    pane.List[*core.Memory]
	state   *ops.Learned
	loading bool
	working bool

	mode    mode
	editor  *recall.Editor
	reason  textinput.Model
	pending []*core.Memory // what a drop or a batch keep asks about
	allSeen bool           // the confirmation is for "mark all seen"
	undo    []string       // the memories the last drop forgot
	flash   pane.Flash
}

// New returns the view.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, k: DefaultKeys(), listK: keys.DefaultList(), formK: keys.DefaultForm()}
	m.list = pane.NewList(func(mem *core.Memory) string { return mem.ID })
	m.reason = textinput.New()
	m.reason.Prompt = "reason: "
	m.reason.CharLimit = 500
	m.flash.Clock = ctx.Clock
	m.ApplyStyles()
	return m
}

// Title implements pane.Pane.
func (m *Model) Title() string { return "Learned" }

// Init implements pane.Pane: nothing is read until the view opens.
func (m *Model) Init() tea.Cmd { return nil }

// Open is the view coming on screen: it reads what is new.
func (m *Model) Open() tea.Cmd {
	m.mode = modeList
	m.flash.Clear()
	return m.load()
}

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() {
	m.reason.SetStyles(m.ctx.Styles.Input())
	if m.editor != nil {
		m.editor.ApplyStyles(m.ctx.Styles)
	}
}

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.reason.SetWidth(max(10, w-12))
	m.list.SetHeight(m.listHeight())
	if m.editor != nil {
		m.editor.SetSize(w, h)
	}
}

// previewLines is how much of the selected memory shows below the list.
const previewLines = 4

func (m *Model) listHeight() int {
	h := m.height - 2 - previewLines - 1 // header, message line, preview and its rule
	if m.mode == modeDrop || m.mode == modeConfirm {
		h -= 3
	}
	return max(1, h)
}

// Capturing implements pane.Pane.
func (m *Model) Capturing() bool {
	return m.mode != modeList
}

// Busy implements pane.Pane.
func (m *Model) Busy() bool { return m.loading || m.working }

// Nested implements pane.Pane: marks are cleared before esc closes.
func (m *Model) Nested() bool { return m.mode != modeList || m.list.MarkCount() > 0 }

// Count is how many learned memories are new, and whether it is known.
func (m *Model) Count() (int, bool) {
	if m.state == nil {
		return 0, false
	}
	return m.state.Count, true
}

// Refresh implements pane.Pane: what agents' sessions teach meanwhile
// appears, and what was forgotten elsewhere goes.
func (m *Model) Refresh(pane.Change) tea.Cmd {
	if m.state == nil {
		return nil // never opened
	}
	return m.load()
}

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeForm:
		return []key.Binding{m.formK.Save, m.formK.NextField, m.formK.Cancel}
	case modeReason, modeDrop:
		return []key.Binding{m.formK.Confirm, m.formK.Cancel}
	case modeConfirm:
		return []key.Binding{yes, no}
	}
	return []key.Binding{m.k.Keep, m.k.Edit, m.k.Drop, m.k.Mark, m.k.AllSeen, m.k.Close}
}

var (
	yes = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes"))
	no  = key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no"))
)

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.listK.Up, m.listK.Down, m.listK.PageUp, m.listK.PageDown, m.listK.Top, m.listK.Bottom},
		{m.k.Keep, m.k.Edit, m.k.Drop, m.k.Mark, m.k.AllSeen, m.k.Undo, m.k.Close},
	}
}

// load reads what is new.
func (m *Model) load() tea.Cmd {
	m.loading = true
	c := m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		st, err := c.Learned(ctx, Limit)
		return StateMsg{State: st, Err: err}
	}
}

// review sends a review and answers with what is new after it.
func (m *Model) review(in ops.LearnedReview, notice string) tea.Cmd {
	m.working = true
	c := m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		st, err := c.ReviewLearned(ctx, in, Limit)
		return StateMsg{State: st, Err: err, notice: notice}
	}
}

// apply shows a fresh state.
func (m *Model) apply(st *ops.Learned) {
	first := m.state == nil
	m.state = st
	if first {
		m.list.Reset(st.Memories, nil, st.Count, len(st.Memories) == st.Count)
	} else {
		m.list.Replace(st.Memories, st.Count, len(st.Memories) == st.Count)
	}
	m.list.SetHeight(m.listHeight())
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	m.flash.Update(msg)
	switch msg := msg.(type) {
	case StateMsg:
		m.loading, m.working = false, false
		if msg.Err != nil {
			return m.flash.Set("learned: "+msg.Err.Error(), true)
		}
		m.apply(msg.State)
		if msg.notice != "" {
			return m.flash.Set(msg.notice, false)
		}
		return nil
	case editMsg:
		m.working = false
		if msg.err != nil {
			return m.flash.Set("edit: "+msg.err.Error(), true)
		}
		m.editor = recall.NewEditor(msg.mem, m.ctx.Styles, m.ctx.Types, m.width, m.height)
		m.mode = modeForm
		return m.editor.Focus()
	case recall.EditorSaved:
		return m.saved(msg)
	case droppedMsg:
		m.working = false
		if msg.state != nil {
			m.apply(msg.state)
		}
		if len(msg.ids) > 0 {
			m.undo = msg.ids
		}
		if msg.err != nil {
			return m.flash.Set(fmt.Sprintf("dropped %d, %d failed: %v", len(msg.ids), msg.failed, msg.err), true)
		}
		what := "dropped " + pane.ShortID(msg.ids[0])
		if len(msg.ids) > 1 {
			what = fmt.Sprintf("dropped %d memories", len(msg.ids))
		}
		return m.flash.Set(what+" · ctrl+z undoes", false)
	case recoveredMsg:
		m.working = false
		if msg.state != nil {
			m.apply(msg.state)
		}
		if msg.err != nil {
			return m.flash.Set("undo: "+msg.err.Error(), true)
		}
		return m.flash.Set(fmt.Sprintf("recovered %d · back in Recall", msg.n), false)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		if m.mode == modeList {
			m.list.MoveBy(pane.WheelCursor(msg, 0))
		}
		return nil
	}
	switch {
	case m.mode == modeForm && m.editor != nil:
		return m.editor.Update(msg)
	case m.mode == modeReason || m.mode == modeDrop:
		var cmd tea.Cmd
		m.reason, cmd = m.reason.Update(msg)
		return cmd
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeForm:
		return m.formKey(msg)
	case modeReason, modeDrop:
		return m.promptKey(msg)
	case modeConfirm:
		return m.confirmKey(msg)
	}
	if m.list.Move(m.listK, msg) {
		return nil
	}
	sel, ok := m.list.Selected()
	marked := m.marked()
	switch {
	case key.Matches(msg, m.k.Mark):
		m.list.ToggleMark()
		m.list.MoveBy(1)
	case msg.String() == "esc" && m.list.MarkCount() > 0:
		m.list.ClearMarks()
	case key.Matches(msg, m.k.Undo):
		return m.undoDrop()
	case key.Matches(msg, m.k.AllSeen):
		if m.state == nil || m.list.Len() == 0 {
			return m.flash.Set("nothing new to mark seen", false)
		}
		m.pending, m.allSeen = nil, true
		m.mode = modeConfirm
	case key.Matches(msg, m.k.Keep) && len(marked) > 0:
		m.pending, m.allSeen = marked, false
		m.mode = modeConfirm
	case key.Matches(msg, m.k.Keep) && ok:
		return m.review(ops.LearnedReview{Keep: []string{sel.ID}}, "kept "+pane.ShortID(sel.ID))
	case key.Matches(msg, m.k.Drop) && (ok || len(marked) > 0):
		m.pending = marked
		if len(marked) == 0 {
			m.pending = []*core.Memory{sel}
		}
		m.mode = modeDrop
		m.reason.SetValue("")
		m.list.SetHeight(m.listHeight())
		return m.reason.Focus()
	case key.Matches(msg, m.k.Edit) && ok:
		m.working = true
		c, id := m.ctx.Client, sel.ID
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			mem, err := c.Get(ctx, id, true)
			if err == nil && mem.IsDeleted {
				err = errors.New("this memory was forgotten meanwhile")
			}
			return editMsg{mem: mem, err: err}
		}
	}
	m.list.SetHeight(m.listHeight())
	return nil
}

// marked are the marked rows still listed.
func (m *Model) marked() []*core.Memory {
	var out []*core.Memory
	for _, r := range m.list.MarkedRows() {
		for _, row := range m.list.Rows() {
			if row.ID == r.ID {
				out = append(out, row)
				break
			}
		}
	}
	return out
}

func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	m.mode = modeList
	m.list.SetHeight(m.listHeight())
	if msg.String() != "y" {
		return m.flash.Set("cancelled", false)
	}
	if m.allSeen {
		newest := m.list.Row(0).CreatedAt // newest first
		return m.review(ops.LearnedReview{SeenThrough: newest}, fmt.Sprintf("marked %d seen", m.state.Count))
	}
	ids := make([]string, 0, len(m.pending))
	for _, mem := range m.pending {
		ids = append(ids, mem.ID)
	}
	m.list.ClearMarks()
	return m.review(ops.LearnedReview{Keep: ids}, fmt.Sprintf("kept %d memories", len(ids)))
}

func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.reason.Blur()
		if m.mode == modeReason {
			m.mode = modeForm
			return m.editor.Focus()
		}
		m.mode = modeList
		m.list.SetHeight(m.listHeight())
		return nil
	case "enter":
		reason := strings.TrimSpace(m.reason.Value())
		m.reason.Blur()
		if m.mode == modeReason {
			if reason == "" {
				reason = "edited in the TUI (learned)"
			}
			m.working = true
			return m.editor.Save(m.ctx.Client, reason)
		}
		m.mode = modeList
		m.list.SetHeight(m.listHeight())
		return m.dropPending(reason)
	}
	var cmd tea.Cmd
	m.reason, cmd = m.reason.Update(msg)
	return cmd
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.formK.Cancel):
		m.editor, m.mode = nil, modeList
		return nil
	case key.Matches(msg, m.formK.Save):
		if m.editor.Validate() != nil {
			return nil
		}
		m.mode = modeReason
		m.reason.SetValue("")
		return m.reason.Focus()
	}
	return m.editor.Update(msg)
}

// saved ends an edit: an edited memory is reviewed, so it is kept.
func (m *Model) saved(msg recall.EditorSaved) tea.Cmd {
	m.working = false
	if msg.Err != nil {
		m.editor.Failed(msg)
		m.mode = modeForm
		return tea.Batch(m.editor.Focus(), m.flash.Set("save: "+msg.Err.Error(), true))
	}
	m.editor, m.mode = nil, modeList
	return m.review(ops.LearnedReview{Keep: []string{msg.ID}}, msg.What+" "+pane.ShortID(msg.ID)+" and kept it")
}

// dropPending forgets what the drop asked about, through the write path
// the Recall pane's delete uses, then asks what is new (once nothing is,
// "last looked" advances).
func (m *Model) dropPending(reason string) tea.Cmd {
	mems, c := m.pending, m.ctx.Client
	m.pending = nil
	m.list.ClearMarks()
	m.working = true
	if reason == "" {
		reason = "dropped in the TUI (learned)"
	}
	return func() tea.Msg {
		r := pane.RunEach(mems, func(ctx context.Context, mem *core.Memory) (string, error) {
			_, err := c.Forget(ctx, core.ForgetInput{ID: mem.ID, Reason: reason, Force: mem.Pinned})
			return mem.ID, err
		})
		out := droppedMsg{ids: r.Done, failed: r.Failed, err: r.Err}
		ctx, cancel := pane.CallContext()
		defer cancel()
		st, err := c.ReviewLearned(ctx, ops.LearnedReview{}, Limit)
		if err == nil {
			out.state = st
		} else if out.err == nil {
			out.err = err
		}
		return out
	}
}

// undoDrop recovers what the last drop forgot.
func (m *Model) undoDrop() tea.Cmd {
	ids, c := m.undo, m.ctx.Client
	if len(ids) == 0 {
		return m.flash.Set("nothing to undo: no drop here yet", false)
	}
	m.undo = nil
	m.working = true
	return func() tea.Msg {
		out := recoveredMsg{}
		for _, id := range ids {
			ctx, cancel := pane.CallContext()
			_, err := c.Recover(ctx, core.RecoverInput{ID: id, Reason: "undo in the TUI (learned)"})
			cancel()
			if err != nil && out.err == nil {
				out.err = err
			} else if err == nil {
				out.n++
			}
		}
		ctx, cancel := pane.CallContext()
		defer cancel()
		out.state, _ = c.Learned(ctx, Limit)
		return out
	}
}

// View implements pane.Pane.
func (m *Model) View() string {
	var out string
	switch m.mode {
	case modeForm:
		out = m.editor.View()
	case modeReason:
		out = lipgloss.NewStyle().MaxHeight(m.height-2).Render(m.editor.View()) + "\n" +
			m.ctx.Styles.Heading.Render("Why this change? ") + m.ctx.Styles.Faint.Render("(recorded in history; enter saves and keeps it)") + "\n" +
			m.reason.View()
	default:
		out = m.listView()
	}
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

// Head is the view's header: how many are new and what the marks do.
func (m *Model) Head() string {
	if m.state == nil {
		return "learned from sessions · reading…"
	}
	head := fmt.Sprintf("%s learned since you last looked", pane.Count(m.state.Count))
	if m.state.SeenThrough == "" {
		head = fmt.Sprintf("%s learned from sessions (never looked)", pane.Count(m.state.Count))
	}
	if m.state.Count > len(m.state.Memories) {
		head += fmt.Sprintf(", the newest %s", pane.Count(len(m.state.Memories)))
	}
	if k := len(m.marked()); k > 0 {
		head = fmt.Sprintf("%d marked (a keeps, d drops, esc unmarks) · %s", k, head)
	}
	return head
}

func (m *Model) listView() string {
	st := m.ctx.Styles
	lines := []string{pane.ListHead(st, m.Head(), "", m.width)}
	msg := ""
	if m.flash.Text != "" {
		msg = st.Success.Render(pane.Truncate(m.flash.Text, m.width))
		if m.flash.Err {
			msg = st.Error.Render(pane.Truncate(m.flash.Text, m.width))
		}
	}
	lines = append(lines, msg)
	h := m.listHeight()
	if m.state != nil && m.list.Len() == 0 {
		lines = append(lines, st.Faint.Render(pane.Truncate("Nothing new: every memory learned from a session has been seen. esc goes back to Recall.", m.width)))
		h--
	}
	from, to := m.list.Visible()
	for i := from; i < to && i < from+h; i++ {
		lines = append(lines, m.row(m.list.Row(i), i == m.list.Cursor()))
	}
	for len(lines) < 2+h {
		lines = append(lines, "")
	}
	lines = append(lines, st.Rule.Render(strings.Repeat("─", m.width)))
	lines = append(lines, m.preview()...)
	switch m.mode {
	case modeDrop:
		q := fmt.Sprintf("Drop %s “%s”? It is forgotten (recoverable).", pane.ShortID(m.pending[0].ID), pane.OneLine(m.pending[0].Content, max(10, m.width-50)))
		if len(m.pending) > 1 {
			q = fmt.Sprintf("Drop the %d marked memories? They are forgotten (recoverable).", len(m.pending))
		}
		lines = append(lines, st.Warning.Render(pane.Truncate(q, m.width)), m.reason.View(),
			st.Faint.Render(pane.Truncate("enter drops (ctrl+z undoes), esc cancels", m.width)))
	case modeConfirm:
		q := fmt.Sprintf("Keep the %d marked memories? They stay as they are and are no longer new.", len(m.pending))
		if m.allSeen {
			q = fmt.Sprintf("Mark all %s seen? They stay as they are.", pane.Count(m.state.Count))
		}
		lines = append(lines, st.Warning.Render(pane.Truncate(q, m.width)), st.Faint.Render("y yes · n no"), "")
	}
	return strings.Join(lines, "\n")
}

// Column widths.
const (
	colType = 10
	colAge  = 5
	colProj = 10
)

func (m *Model) row(mem *core.Memory, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	if m.list.Marked(mem) {
		marker = marker[:len(marker)-1] + "●"
		if selected {
			marker = "›●"
		}
	}
	line := marker + pane.Pad(mem.Type, colType) + " " + pane.Pad(pane.Age(m.ctx.Now(), mem.CreatedAt), colAge) + " " +
		pane.Pad(pane.ShortProject(mem.Project), colProj) + " "
	line = pane.Pad(line+pane.OneLine(mem.Content, max(8, m.width-lipgloss.Width(line))), m.width)
	if selected {
		return st.Selected.Render(line)
	}
	return st.Text.Render(line)
}

// preview is the selected memory whole (as much as fits) and where it
// came from.
func (m *Model) preview() []string {
	st := m.ctx.Styles
	mem, ok := m.list.Selected()
	if !ok {
		return make([]string, previewLines)
	}
	src := fmt.Sprintf("%s · learned %s from session %s · project %s · confidence %.2f", pane.ShortID(mem.ID),
		pane.Age(m.ctx.Now(), mem.CreatedAt), strings.TrimPrefix(mem.SourceID, "session:"), pane.ShortProject(mem.Project), mem.Confidence)
	out := []string{st.Faint.Render(pane.Truncate(src, m.width))}
	for _, l := range pane.WrapWords(mem.Content, max(10, m.width)) {
		if len(out) == previewLines {
			break
		}
		out = append(out, st.Text.Render(l))
	}
	for len(out) < previewLines {
		out = append(out, "")
	}
	return out
}

// Selected is the row under the cursor (tests look inside).
func (m *Model) Selected() (*core.Memory, bool) { return m.list.Selected() }

// Rows are the listed memories (tests look inside).
func (m *Model) Rows() []*core.Memory { return m.list.Rows() }
