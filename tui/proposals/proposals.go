// Package proposals is the Proposals pane: the pipeline's pending
// proposals (shadow, blocked, review-needed) with their fact, action,
// confidence and flags, the target memory's current content beside the
// proposed content for updates and deletes, and the operator's decisions:
// approve, reject with a reason, skip, and approve every pending ADD at or
// above a confidence. A toggle shows decided proposals with who decided
// and when. Decisions go through the same service calls as
// POST /api/proposals/{id}/approve|reject.
package proposals

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/wire"

	"github.com/cairnmem/cairn/core/extract"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
)

// RefreshInterval is how often the list is re-read while the pane is
// shown: the pipeline records proposals without a memory write, so the
// change stream alone would not show them.
const RefreshInterval = 2 * time.Second

// ApproveReason is recorded with decisions made by a key press.
const ApproveReason = "approved in the TUI"

// Actions are the action filters f cycles through ("" is every action).
var Actions = []string{"", extract.ActionAdd, extract.ActionUpdate, extract.ActionDelete, extract.ActionNone}

// Flags are the flag filters x cycles through.
var Flags = []string{"", FlagContradiction, FlagReview, FlagBlocked}

// Flag filter names.
const (
	FlagContradiction = "contradiction"
	FlagReview        = "review-needed"
	FlagBlocked       = "blocked"
)

// Sorts are the orders o cycles through, as the API names them ("" is
// newest first: in the decided view, newest decision first); SortAction
// is the pane's own: the newest grouped by action (ADD, UPDATE, DELETE,
// NONE).
var Sorts = []string{"", SortOldest, SortConfidence, SortAction}

// Sort orders of the list.
const (
	SortOldest     = "oldest"
	SortConfidence = "confidence"
	SortAction     = "action"
)

// sortLabel says how the list is ordered, for the header.
func sortLabel(sort string, decided bool) string {
	switch sort {
	case SortOldest:
		return "oldest first"
	case SortConfidence:
		return "highest confidence first"
	case SortAction:
		if decided {
			return "by action, newest decision first"
		}
		return "by action, newest first"
	case "":
		if decided {
			return "newest decision first"
		}
	}
	return "newest first"
}

type mode int

const (
	modeList        mode = iota
	modeReject           // typing a rejection reason
	modeThreshold        // typing the confidence for approve-all
	modeConfirm          // asking to approve many
	modeDetail           // the selected proposal full screen
	modeMarkApprove      // asking to approve the marked proposals
	modeMarkReject       // typing the reason to reject the marked proposals
)

type (
	loadedMsg struct {
		seq     int
		decided bool
		list    []*wire.Proposal
		total   int // how many the view holds in all (the list stops at pane.ProposalsLimit)
		err     error
	}
	targetMsg struct {
		id  string
		mem *core.Memory
		err error
	}
	decidedMsg struct {
		verb string
		p    *wire.Proposal
		id   string
		err  error
	}
	bulkMsg struct {
		approved []*wire.Proposal // as decided
		failed   int
		firstErr error
	}
	// markedMsg reports a decision on the marked proposals (verb approve
	// or reject), or the undo of several decisions (verb reopen).
	markedMsg struct {
		verb     string
		done     []*wire.Proposal // as decided (or reopened)
		kept     int              // decisions the undo left (they changed a memory in place)
		failed   int
		firstErr error
	}
)

// target is the current state of a proposal's target memory.
type target struct {
	mem *core.Memory
	err error
}

// Model is the Proposals pane.
type Model struct {
	ctx     *pane.Context
	keys    keys.Proposals
	list    keys.List
	form    keys.Form
	confirm keys.Confirm

	width, height int
	poll          pane.Poller

	decided bool
	action  int // index into Actions
	flag    int // index into Flags
	sort    int // index into Sorts
	// text filters the list by words in a proposal's fact, reason, type,
	// action, ids or decision (/); applied as typed.
	text    textinput.Model
	seq     int
	loading bool
	loaded  bool
	all     []*wire.Proposal
	total   int // the view's proposals in all, of which all holds the first
	visible []*wire.Proposal
	cursor  int
	offset  int
	targets map[string]target
	// marks are the proposals marked for a bulk decision, by id, in the
	// order they were marked.
	marks []string

	mode     mode
	input    textinput.Model
	bulk     []string // ids the confirmation asks about
	bulkMin  float64
	acting   bool
	flash    pane.Flash
	vp       viewport.Model
	detailID string
	// last are the proposals last decided here (one, or the marked
	// ones), as decided: ctrl+z reopens them.
	last []*wire.Proposal
}

// New returns the Proposals pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultProposals(), list: keys.DefaultList(), form: keys.DefaultForm(),
		confirm: keys.DefaultConfirm(), targets: map[string]target{}}
	m.poll.Interval, m.poll.Clock = RefreshInterval, ctx.Clock
	m.flash.Clock = ctx.Clock
	m.input = textinput.New()
	m.input.CharLimit = 300
	m.text = textinput.New()
	m.text.Prompt = "/ "
	m.text.Placeholder = "filter proposals: fact, reason, type, id (enter opens, esc to the list)"
	m.text.CharLimit = 200
	m.vp = viewport.New()
	m.vp.MouseWheelEnabled = true
	m.ApplyStyles()
	return m
}

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() {
	m.input.SetStyles(m.ctx.Styles.Input())
	m.text.SetStyles(m.ctx.Styles.Input())
	m.renderDetail()
}

// Title implements pane.Pane.
func (m *Model) Title() string { return "Proposals" }

// Init implements pane.Pane.
func (m *Model) Init() tea.Cmd { return m.load(true) }

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetWidth(max(10, w-30))
	m.text.SetWidth(max(10, w-4))
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(1, h-2))
	m.renderDetail()
	m.clamp()
}

// SetShown implements pane.Shown.
func (m *Model) SetShown(shown bool) tea.Cmd {
	return m.poll.SetShown(shown, func() tea.Cmd { return m.load(false) })
}

// Capturing implements pane.Pane.
func (m *Model) Capturing() bool {
	return m.mode == modeReject || m.mode == modeThreshold || m.mode == modeConfirm ||
		m.mode == modeMarkApprove || m.mode == modeMarkReject || m.text.Focused()
}

// Busy implements pane.Pane.
func (m *Model) Busy() bool { return m.loading || m.acting }

// Nested implements pane.Pane.
func (m *Model) Nested() bool { return m.mode != modeList || m.text.Focused() }

// PendingProposals implements pane.PendingCounter: how many proposals
// are pending by the pane's last read, while it lists pending ones, so
// the status bar says what the pane says.
func (m *Model) PendingProposals() (int, bool) {
	if m.decided || !m.loaded {
		return 0, false
	}
	return m.total, true
}

// Refresh implements pane.Pane: a memory write may have changed a target,
// or (an approval) added a memory.
func (m *Model) Refresh(c pane.Change) tea.Cmd {
	if c.MemoryID == "" {
		clear(m.targets)
	} else {
		delete(m.targets, c.MemoryID)
	}
	if !m.poll.Shown() {
		return nil
	}
	return tea.Batch(m.load(false), m.fetchTarget())
}

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeReject, modeThreshold, modeMarkReject:
		return []key.Binding{m.form.Confirm, m.form.Cancel}
	case modeConfirm, modeMarkApprove:
		return []key.Binding{m.confirm.Yes, m.confirm.No}
	case modeDetail:
		if m.decided {
			return []key.Binding{m.list.Down, m.list.Up}
		}
		return []key.Binding{m.keys.Approve, m.keys.Reject, m.list.Down, m.list.Up}
	}
	if m.text.Focused() {
		return []key.Binding{m.list.Open, leaveFilter}
	}
	if m.decided {
		return []key.Binding{m.keys.Decided, m.list.Open, m.keys.Search, m.keys.Sort, m.keys.Action, m.keys.Flag}
	}
	return []key.Binding{m.keys.Approve, m.keys.Reject, m.keys.Skip, m.keys.Mark, m.keys.Search, m.keys.Sort, m.keys.ApproveAll,
		m.keys.Action, m.keys.Flag, m.keys.Decided}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom, m.list.Open},
		{m.keys.Approve, m.keys.Reject, m.keys.Skip, m.keys.ApproveAll, m.keys.Mark, m.keys.Undo},
		{m.keys.Search, m.keys.Sort, m.keys.Action, m.keys.Flag, m.keys.Decided},
	}
}

// leaveFilter is shown while the filter box has the keyboard.
var leaveFilter = key.NewBinding(key.WithKeys("esc", "down"), key.WithHelp("esc/↓", "back to the list"))

// Visible returns the listed proposals after the filters (tests look inside).
func (m *Model) Visible() []*wire.Proposal { return m.visible }

// Flash returns the pane's message line.
func (m *Model) Flash() pane.Flash { return m.flash }

// Selected returns the proposal under the cursor.
func (m *Model) Selected() *wire.Proposal {
	if m.cursor < len(m.visible) {
		return m.visible[m.cursor]
	}
	return nil
}

func (m *Model) load(user bool) tea.Cmd {
	m.seq++
	if user {
		m.loading = true
	}
	seq, b, decided := m.seq, m.ctx.Client, m.decided
	sort := Sorts[m.sort]
	if sort == SortAction {
		sort = "" // read newest first, grouped when it arrives
	}
	f := wire.ProposalFilter{State: wire.ProposalPending, Sort: sort}
	if decided {
		f = wire.ProposalFilter{Decided: true, Sort: sort}
	}
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		page, err := b.Proposals(ctx, f, pane.ProposalsLimit)
		if err != nil {
			return loadedMsg{seq: seq, decided: decided, err: err}
		}
		return loadedMsg{seq: seq, decided: decided, list: page.Proposals, total: max(page.Total, len(page.Proposals))}
	}
}

func decidedAt(p *wire.Proposal) string {
	if p.DecidedAt != "" {
		return p.DecidedAt
	}
	return p.UpdatedAt
}

// fetchTarget loads the selected proposal's target memory once.
func (m *Model) fetchTarget() tea.Cmd {
	p := m.Selected()
	if p == nil || p.TargetMemoryID == "" {
		return nil
	}
	if _, ok := m.targets[p.TargetMemoryID]; ok {
		return nil
	}
	m.targets[p.TargetMemoryID] = target{} // in flight
	b, id := m.ctx.Client, p.TargetMemoryID
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		mem, err := b.Get(ctx, id, true)
		return targetMsg{id: id, mem: mem, err: err}
	}
}

// matches applies the action, flag and text filters.
func (m *Model) matches(p *wire.Proposal) bool {
	if a := Actions[m.action]; a != "" && p.Action != a {
		return false
	}
	if words := strings.Fields(strings.ToLower(m.text.Value())); len(words) > 0 {
		hay := strings.ToLower(strings.Join([]string{p.Fact, p.Reason, p.FactType, p.Action, p.ID, p.SourceMemoryID,
			p.TargetMemoryID, p.AppliedMemoryID, p.State, p.DecidedBy, p.DecisionReason, p.BlockedReason}, " "))
		for _, w := range words {
			if !strings.Contains(hay, w) {
				return false
			}
		}
	}
	switch Flags[m.flag] {
	case FlagContradiction:
		return p.ContradictionRisk
	case FlagReview:
		return p.ReviewNeeded
	case FlagBlocked:
		return p.Blocked
	}
	return true
}

func (m *Model) refilter() {
	keep := ""
	if p := m.Selected(); p != nil {
		keep = p.ID
	}
	m.visible = m.visible[:0]
	for _, p := range m.all {
		if m.matches(p) {
			m.visible = append(m.visible, p)
		}
	}
	for i, p := range m.visible {
		if p.ID == keep {
			m.cursor = i
		}
	}
	m.clamp()
}

func (m *Model) listHeight() int {
	return max(1, m.height-3-m.previewHeight())
}

// previewHeight is the share of the pane under the list that shows the
// selected proposal.
func (m *Model) previewHeight() int {
	if m.height < 12 {
		return 0
	}
	return max(6, m.height*2/5)
}

func (m *Model) clamp() {
	m.cursor, m.offset = pane.Scroll(m.cursor, m.offset, len(m.visible), m.listHeight())
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	m.flash.Update(msg)
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.loading = false
		if msg.err != nil {
			return tea.Batch(m.flash.Set("proposals: "+describe(msg.err), true), pane.Fail("proposals", msg.err))
		}
		if Sorts[m.sort] == SortAction {
			slices.SortStableFunc(msg.list, func(a, b *wire.Proposal) int {
				return slices.Index(Actions, a.Action) - slices.Index(Actions, b.Action)
			})
		}
		m.all, m.total, m.loaded = msg.list, msg.total, true
		m.pruneMarks()
		m.refilter()
		m.renderDetail()
		return m.fetchTarget()
	case targetMsg:
		m.targets[msg.id] = target{mem: msg.mem, err: msg.err}
		m.renderDetail()
	case decidedMsg:
		m.acting = false
		short := pane.ShortID(msg.id)
		if msg.err != nil {
			return tea.Batch(m.flash.Set(msg.verb+" "+short+": "+describe(msg.err), true), pane.Fail(msg.verb+" "+short, msg.err))
		}
		text := past(msg.verb) + " " + short
		if msg.p != nil {
			text = fmt.Sprintf("%s %s %s", past(msg.verb), strings.ToUpper(msg.p.Action), short)
			if msg.p.AppliedMemoryID != "" {
				text += " → memory " + pane.ShortID(msg.p.AppliedMemoryID)
			}
		}
		if m.mode == modeDetail {
			m.mode, m.detailID = modeList, ""
		}
		if msg.verb != "reopen" && msg.p != nil {
			m.last = []*wire.Proposal{msg.p}
			text += " · ctrl+z undoes"
		} else {
			m.last = nil
		}
		return tea.Batch(m.flash.Set(text, false), m.load(false), refreshStatus)
	case bulkMsg:
		m.acting = false
		undo := ""
		if len(msg.approved) > 0 {
			m.last, undo = msg.approved, " · ctrl+z undoes"
		}
		if msg.failed > 0 {
			text := fmt.Sprintf("approved %d, %d failed: %s", len(msg.approved), msg.failed, describe(msg.firstErr))
			return tea.Batch(m.flash.Set(text, true), pane.Fail("approve all", msg.firstErr), m.load(false), refreshStatus)
		}
		text := fmt.Sprintf("approved %d ADD proposals at confidence ≥ %.2f%s", len(msg.approved), m.bulkMin, undo)
		return tea.Batch(m.flash.Set(text, false), m.load(false), refreshStatus)
	case markedMsg:
		return m.markedDone(msg)
	case pane.PollTick:
		if !m.poll.Due(msg) {
			return nil
		}
		return tea.Batch(m.load(false), m.poll.Tick())
	case tea.MouseWheelMsg:
		if m.mode == modeDetail {
			var cmd tea.Cmd
			m.vp, cmd = m.vp.Update(msg)
			return cmd
		}
		m.cursor = pane.WheelCursor(msg, m.cursor)
		m.clamp()
		return m.fetchTarget()
	case tea.KeyPressMsg:
		return m.key(msg)
	default:
		var cmd tea.Cmd
		switch {
		case m.input.Focused():
			m.input, cmd = m.input.Update(msg)
		case m.text.Focused():
			m.text, cmd = m.text.Update(msg)
		}
		return cmd
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.text.Focused() {
		return m.textKey(msg)
	}
	switch m.mode {
	case modeReject, modeThreshold, modeMarkReject:
		return m.inputKey(msg)
	case modeMarkApprove:
		switch {
		case key.Matches(msg, m.confirm.Yes):
			m.mode = modeList
			return m.decideMarked("approve", ApproveReason+" (marked)")
		case key.Matches(msg, m.confirm.No):
			m.mode = modeList
			return m.flash.Set("approve cancelled: the marks stay", false)
		}
		return nil
	case modeConfirm:
		switch {
		case key.Matches(msg, m.confirm.Yes):
			m.mode = modeList
			return m.approveAll()
		case key.Matches(msg, m.confirm.No):
			m.mode, m.bulk = modeList, nil
			return m.flash.Set("approve all cancelled", false)
		}
		return nil
	case modeDetail:
		switch {
		case msg.String() == "esc":
			m.mode, m.detailID = modeList, ""
			return nil
		case key.Matches(msg, m.keys.Approve) && !m.decided:
			return m.approve()
		case key.Matches(msg, m.keys.Reject) && !m.decided:
			return m.startReject()
		}
		return pane.ScrollDetail(&m.vp, m.list, msg)
	}
	switch {
	case key.Matches(msg, m.keys.Undo):
		return m.undo()
	case key.Matches(msg, m.keys.Approve) && !m.decided && len(m.marks) > 0:
		m.mode = modeMarkApprove
		m.flash.Clear()
		return nil
	case key.Matches(msg, m.keys.Reject) && !m.decided && len(m.marks) > 0:
		m.mode = modeMarkReject
		m.input.Prompt = fmt.Sprintf("reject the %d marked because: ", len(m.marks))
		m.input.Placeholder = "reason (required)"
		m.input.SetValue("")
		m.flash.Clear()
		return m.input.Focus()
	case key.Matches(msg, m.keys.Mark) && !m.decided:
		m.toggleMark()
		m.cursor++
		m.clamp()
		return m.fetchTarget()
	case key.Matches(msg, m.keys.Search):
		return m.text.Focus()
	case key.Matches(msg, m.keys.Sort):
		m.sort = (m.sort + 1) % len(Sorts)
		m.cursor, m.offset = 0, 0
		return m.load(true)
	case key.Matches(msg, m.keys.Approve) && !m.decided:
		return m.approve()
	case key.Matches(msg, m.keys.Reject) && !m.decided:
		return m.startReject()
	case key.Matches(msg, m.keys.Skip) && !m.decided:
		if p := m.Selected(); p != nil {
			m.cursor++
			m.clamp()
			return tea.Batch(m.flash.Set("skipped "+pane.ShortID(p.ID)+": it stays pending", false), m.fetchTarget())
		}
		return nil
	case key.Matches(msg, m.keys.ApproveAll):
		if m.decided {
			return m.flash.Set("approve all works on pending proposals: press d to list them", false)
		}
		m.mode = modeThreshold
		m.input.Prompt = "approve pending ADD proposals with confidence ≥ "
		m.input.Placeholder = "0.8"
		m.input.SetValue("")
		m.flash.Clear()
		return m.input.Focus()
	case key.Matches(msg, m.keys.Action):
		m.action = (m.action + 1) % len(Actions)
		m.refilter()
		return m.fetchTarget()
	case key.Matches(msg, m.keys.Flag):
		m.flag = (m.flag + 1) % len(Flags)
		m.refilter()
		return m.fetchTarget()
	case key.Matches(msg, m.keys.Decided):
		m.decided = !m.decided
		m.all, m.visible, m.cursor, m.offset, m.loaded, m.marks = nil, nil, 0, 0, false, nil
		return m.load(true)
	case pane.IsMove(m.list, msg):
		m.cursor, _ = pane.MoveCursor(m.list, msg, m.cursor, len(m.visible), m.listHeight())
	case key.Matches(msg, m.list.Open):
		if p := m.Selected(); p != nil {
			m.mode, m.detailID = modeDetail, p.ID
			m.renderDetail()
			m.vp.GotoTop()
		}
		return nil
	case msg.String() == "esc":
		// One step at a time: the marks, the text, the other filters.
		switch {
		case len(m.marks) > 0:
			m.marks = nil
		case m.text.Value() != "":
			m.text.SetValue("")
			m.refilter()
		case m.action != 0 || m.flag != 0:
			m.action, m.flag = 0, 0
			m.refilter()
		}
		return m.fetchTarget()
	}
	m.clamp()
	return m.fetchTarget()
}

// textKey handles a key while the filter box has the focus: the list
// follows what is typed; enter opens the selected proposal, down goes to
// the list, esc leaves the box (the filter stays: esc again clears it).
func (m *Model) textKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.text.Blur()
		return nil
	case "enter":
		m.text.Blur()
		if p := m.Selected(); p != nil {
			m.mode, m.detailID = modeDetail, p.ID
			m.renderDetail()
			m.vp.GotoTop()
		}
		return nil
	case "down":
		m.text.Blur()
		m.cursor++
		m.clamp()
		return m.fetchTarget()
	}
	before := m.text.Value()
	var cmd tea.Cmd
	m.text, cmd = m.text.Update(msg)
	if m.text.Value() != before {
		m.cursor, m.offset = 0, 0
		m.refilter()
		return tea.Batch(cmd, m.fetchTarget())
	}
	return cmd
}

// toggleMark marks the selected proposal for a bulk decision, or
// unmarks it.
func (m *Model) toggleMark() {
	p := m.Selected()
	if p == nil {
		return
	}
	if i := slices.Index(m.marks, p.ID); i >= 0 {
		m.marks = slices.Delete(m.marks, i, i+1)
		return
	}
	m.marks = append(m.marks, p.ID)
}

// Marked reports whether proposal id is marked.
func (m *Model) Marked(id string) bool { return slices.Contains(m.marks, id) }

// pruneMarks drops the marks of proposals no longer listed (decided
// elsewhere).
func (m *Model) pruneMarks() {
	m.marks = slices.DeleteFunc(m.marks, func(id string) bool { return m.byID(id) == nil })
	if len(m.marks) == 0 {
		m.marks = nil
	}
}

// markedActions counts the marked proposals by action ("2 ADD, 1 UPDATE").
func (m *Model) markedActions() string {
	n := map[string]int{}
	var order []string
	for _, id := range m.marks {
		if p := m.byID(id); p != nil {
			a := strings.ToUpper(p.Action)
			if n[a] == 0 {
				order = append(order, a)
			}
			n[a]++
		}
	}
	parts := make([]string, len(order))
	for i, a := range order {
		parts[i] = fmt.Sprintf("%d %s", n[a], a)
	}
	return strings.Join(parts, ", ")
}

// decideMarked approves or rejects every marked proposal, in the order
// they were marked, and clears the marks.
func (m *Model) decideMarked(verb, reason string) tea.Cmd {
	ids, b := slices.Clone(m.marks), m.ctx.Client
	m.marks = nil
	m.acting = true
	m.flash.Clear()
	return func() tea.Msg {
		r := pane.RunEach(ids, func(ctx context.Context, id string) (*wire.Proposal, error) {
			decide := b.RejectProposal
			if verb == "approve" {
				decide = b.ApproveProposal
			}
			got, err := decide(ctx, id, reason)
			if err != nil {
				err = fmt.Errorf("%s: %w", pane.ShortID(id), err)
			}
			return got, err
		})
		return markedMsg{verb: verb, done: r.Done, failed: r.Failed, firstErr: r.Err}
	}
}

// markedDone applies the outcome of a bulk decision or of its undo.
func (m *Model) markedDone(msg markedMsg) tea.Cmd {
	m.acting = false
	text := past(msg.verb) + " " + proposalsN(len(msg.done))
	if msg.verb == "reopen" {
		m.last = nil
		if msg.kept > 0 {
			text += fmt.Sprintf("; %d changed a memory in place: see its history (Recall, enter) to revert it", msg.kept)
		}
	} else if len(msg.done) > 0 {
		m.last = msg.done
		text += " · ctrl+z undoes"
	}
	if msg.failed > 0 {
		text = fmt.Sprintf("%s %d, %d failed: %s", past(msg.verb), len(msg.done), msg.failed, describe(msg.firstErr))
		if len(msg.done) > 0 && msg.verb != "reopen" {
			text += " · ctrl+z undoes the rest"
		}
		return tea.Batch(m.flash.Set(text, true), pane.Fail(msg.verb+" marked", msg.firstErr), m.load(false), refreshStatus)
	}
	return tea.Batch(m.flash.Set(text, false), m.load(false), refreshStatus)
}

// refreshStatus asks the shell to re-read the status bar: a decision
// changes the pending count without a memory write the change stream
// would carry (a rejection), and the bar must not lag once the pane is
// left.
func refreshStatus() tea.Msg { return pane.RefreshStatusMsg{} }

func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.input.Blur()
		m.mode = m.returnMode()
		return nil
	case "enter":
		v := strings.TrimSpace(m.input.Value())
		if m.mode == modeMarkReject {
			if v == "" {
				return m.flash.Set("a rejection needs a reason", true)
			}
			m.input.Blur()
			m.mode = modeList
			return m.decideMarked("reject", v)
		}
		if m.mode == modeReject {
			if v == "" {
				return m.flash.Set("a rejection needs a reason", true)
			}
			m.input.Blur()
			m.mode = m.returnMode()
			return m.reject(v)
		}
		return m.askApproveAll(v)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// returnMode is where a prompt goes back to: the detail when it was open.
func (m *Model) returnMode() mode {
	if m.detailID != "" && m.mode != modeMarkReject {
		return modeDetail
	}
	return modeList
}

func (m *Model) startReject() tea.Cmd {
	p := m.Selected()
	if p == nil {
		return nil
	}
	if m.mode != modeDetail {
		m.detailID = ""
	}
	m.mode = modeReject
	m.input.Prompt = "reject " + pane.ShortID(p.ID) + " because: "
	m.input.Placeholder = "reason (required)"
	m.input.SetValue("")
	m.flash.Clear()
	return m.input.Focus()
}

// askApproveAll parses the confidence and asks about exactly the pending
// ADD proposals it selects.
func (m *Model) askApproveAll(v string) tea.Cmd {
	if v == "" {
		v = m.input.Placeholder
	}
	min, err := strconv.ParseFloat(v, 64)
	if err != nil || min < 0 || min > 1 {
		return m.flash.Set(fmt.Sprintf("%q: want a confidence from 0 to 1, like 0.8", v), true)
	}
	m.input.Blur()
	m.bulk, m.bulkMin = nil, min
	for _, p := range m.all {
		if p.State == wire.ProposalPending && p.Action == extract.ActionAdd && p.Confidence >= min {
			m.bulk = append(m.bulk, p.ID)
		}
	}
	if len(m.bulk) == 0 {
		m.mode = modeList
		return m.flash.Set(fmt.Sprintf("no pending ADD proposals at confidence ≥ %.2f", min), false)
	}
	m.mode = modeConfirm
	return nil
}

func (m *Model) approve() tea.Cmd {
	p := m.Selected()
	if m.mode == modeDetail {
		p = m.byID(m.detailID)
	}
	if p == nil {
		return nil
	}
	m.acting = true
	m.flash.Clear()
	b, id := m.ctx.Client, p.ID
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		got, err := b.ApproveProposal(ctx, id, ApproveReason)
		return decidedMsg{verb: "approve", id: id, p: got, err: err}
	}
}

func (m *Model) reject(reason string) tea.Cmd {
	p := m.Selected()
	if m.detailID != "" {
		p = m.byID(m.detailID)
	}
	if p == nil {
		return nil
	}
	m.acting = true
	b, id := m.ctx.Client, p.ID
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		got, err := b.RejectProposal(ctx, id, reason)
		return decidedMsg{verb: "reject", id: id, p: got, err: err}
	}
}

func (m *Model) approveAll() tea.Cmd {
	ids, b := m.bulk, m.ctx.Client
	m.bulk = nil
	m.acting = true
	return func() tea.Msg {
		r := pane.RunEach(ids, func(ctx context.Context, id string) (*wire.Proposal, error) {
			got, err := b.ApproveProposal(ctx, id, ApproveReason+" (approve all)")
			if err != nil {
				err = fmt.Errorf("%s: %w", pane.ShortID(id), err)
			}
			return got, err
		})
		return bulkMsg{approved: r.Done, failed: r.Failed, firstErr: r.Err}
	}
}

func (m *Model) byID(id string) *wire.Proposal {
	for _, p := range m.all {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// describe says what went wrong in words a person can act on.
func describe(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) {
		switch ce.Code {
		case core.CodeVersionConflict:
			return "version_conflict: the target changed since; it stays pending"
		case pipeline.CodeProposalNotPending:
			return ce.Message + " (" + ce.Code + ")"
		case core.CodeFrozen:
			return "mutations are frozen (kill switch): nothing can be applied"
		}
		if ce.Code != "" {
			return ce.Message + " (" + ce.Code + ")"
		}
	}
	return err.Error()
}

// past is a decision's verb in the past tense ("approve" → "approved",
// "reject" → "rejected").
func past(verb string) string {
	if strings.HasSuffix(verb, "e") {
		return verb + "d"
	}
	return verb + "ed"
}

// undo reopens the proposals last decided here (one, or the marked
// ones). A rejection or a skip changed no memory: reopening undoes it. An
// approved ADD made a memory: it is forgotten first (recoverable like any
// delete). An applied update or delete changed a memory in place: that is
// not undone from here (the memory's history holds the old content).
func (m *Model) undo() tea.Cmd {
	last, b := m.last, m.ctx.Client
	if len(last) == 0 {
		return m.flash.Set("nothing to undo: no decision made here since the pane opened", false)
	}
	var undo []*wire.Proposal
	for _, p := range last {
		if !inPlace(p) {
			undo = append(undo, p)
		}
	}
	if len(undo) == 0 {
		p := last[0]
		if len(last) > 1 {
			return m.flash.Set(fmt.Sprintf("the %d decisions changed memories in place: see their history (Recall, enter) to revert them", len(last)), true)
		}
		return m.flash.Set(fmt.Sprintf("%s %s changed memory %s in place: see its history (Recall, enter) to revert it",
			strings.ToUpper(p.Action), pane.ShortID(p.ID), pane.ShortID(p.AppliedMemoryID)), true)
	}
	m.last = nil
	m.acting = true
	if len(last) == 1 {
		p := last[0]
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			got, err := reopen(ctx, b, p)
			return decidedMsg{verb: "reopen", id: p.ID, p: got, err: err}
		}
	}
	kept := len(last) - len(undo)
	return func() tea.Msg {
		r := pane.RunEach(undo, func(ctx context.Context, p *wire.Proposal) (*wire.Proposal, error) {
			got, err := reopen(ctx, b, p)
			if err != nil {
				err = fmt.Errorf("%s: %w", pane.ShortID(p.ID), err)
			}
			return got, err
		})
		return markedMsg{verb: "reopen", kept: kept, done: r.Done, failed: r.Failed, firstErr: r.Err}
	}
}

// proposalsN is "1 proposal" or "n proposals".
func proposalsN(n int) string {
	if n == 1 {
		return "1 proposal"
	}
	return fmt.Sprintf("%d proposals", n)
}

// inPlace reports a decision that changed a memory in place (an applied
// update or delete), which the undo leaves.
func inPlace(p *wire.Proposal) bool {
	applied := p.State == wire.ProposalApproved || p.State == wire.ProposalApplied
	return applied && !strings.EqualFold(p.Action, "add") && p.AppliedMemoryID != ""
}

// reopen undoes one decision: an approved ADD's memory is forgotten, then
// the proposal is pending again.
func reopen(ctx context.Context, b client.Client, p *wire.Proposal) (*wire.Proposal, error) {
	applied := p.State == wire.ProposalApproved || p.State == wire.ProposalApplied
	if applied && p.AppliedMemoryID != "" {
		if _, err := b.Forget(ctx, core.ForgetInput{ID: p.AppliedMemoryID, Reason: "approval of proposal " + p.ID + " undone in the TUI", Force: true}); err != nil {
			return nil, err
		}
	}
	return b.ReopenProposal(ctx, p.ID, "undone in the TUI")
}
