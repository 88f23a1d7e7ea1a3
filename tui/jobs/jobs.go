// Package jobs is the Jobs pane: the pipeline's queue with its counts by
// status and type, one job's payload, parsed result and error, and the
// operator's fixes (retry one job, requeue dead jobs, release stale leases).
// While it is on screen it re-reads the queue every RefreshInterval, so
// workers' progress shows without a keypress.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
)

// RefreshInterval is how often the queue is re-read while the pane is
// shown: workers lease and finish jobs without writing memories, so the
// change stream alone would not show their progress.
const RefreshInterval = time.Second

// Filters are the status filters f and F cycle through; "backing-off" is
// a pending job that failed at least once and waits out its retry delay.
var Filters = []string{"", wire.JobPending, wire.JobLeased, wire.JobCompleted, wire.JobFailed, wire.JobDead, FilterBackingOff}

// FilterBackingOff selects pending jobs that failed at least once.
const FilterBackingOff = "backing-off"

// Sorts are the orders o cycles through, as the API names them: "" is
// live work first (leased, then pending), then the newest; SortType is
// the pane's own: the rows read live first, grouped by job type.
var Sorts = []string{"", SortNewest, SortOldest, SortType}

// Orders of the queue: by last update, or by type.
const (
	SortNewest = "newest"
	SortOldest = "oldest"
	SortType   = "type"
)

// sortLabel says how the queue is ordered, for the header.
func sortLabel(sort string) string {
	switch sort {
	case SortNewest:
		return "newest first"
	case SortOldest:
		return "oldest first"
	case SortType:
		return "by type, live first"
	}
	return "live first"
}

// statuses is the order of the counts in the header.
var statuses = []string{wire.JobPending, wire.JobLeased, wire.JobCompleted, wire.JobFailed, wire.JobDead}

type (
	loadedMsg struct {
		seq  int
		page *wire.JobsPage
		err  error
	}
	jobMsg struct {
		job *wire.Job
		err error
	}
	actionMsg struct {
		what string
		text string
		err  error
	}
)

// Model is the Jobs pane.
type Model struct {
	ctx     *pane.Context
	keys    keys.Jobs
	list    keys.List
	confirm keys.Confirm

	width, height int
	poll          pane.Poller

	filter int // index into Filters
	sort   int // index into Sorts
	// text filters the list by words in a job's id, type, status, memory
	// or error (/); applied as typed.
	text    textinput.Model
	seq     int
	loading bool // a load the user asked for (the spinner shows)
	loaded  bool
	err     error // the last load's error
	page    *wire.JobsPage
	cursor  int
	offset  int

	open       *wire.Job // the job whose detail is shown
	vp         viewport.Model
	askRequeue int // > 0: asking to requeue this many dead jobs
	acting     bool
	flash      pane.Flash

	conn connView // the connectors view (c)
}

// New returns the Jobs pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultJobs(), list: keys.DefaultList(), confirm: keys.DefaultConfirm()}
	m.poll.Interval, m.poll.Clock = RefreshInterval, ctx.Clock
	m.flash.Clock = ctx.Clock
	m.vp = viewport.New()
	m.vp.MouseWheelEnabled = true
	m.text = textinput.New()
	m.text.Prompt = "/ "
	m.text.Placeholder = "filter jobs: id, type, memory, error (enter/esc to the list)"
	m.text.CharLimit = 200
	m.text.SetStyles(ctx.Styles.Input())
	return m
}

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() {
	m.text.SetStyles(m.ctx.Styles.Input())
	if m.open != nil {
		m.vp.SetContent(m.detailContent())
	}
}

// Title implements pane.Pane.
func (m *Model) Title() string { return "Jobs" }

// Init implements pane.Pane.
func (m *Model) Init() tea.Cmd { return m.load(true) }

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.text.SetWidth(max(10, w-4))
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(1, h-2))
	if m.open != nil {
		m.vp.SetContent(m.detailContent())
	}
	m.clamp()
	m.clampConn()
}

// SetShown implements pane.Shown: polling starts when the pane shows and
// stops (at the next tick) when it hides.
func (m *Model) SetShown(shown bool) tea.Cmd {
	return m.poll.SetShown(shown, func() tea.Cmd { return m.load(false) })
}

// Capturing implements pane.Pane: the confirmation takes every key.
func (m *Model) Capturing() bool { return m.askRequeue > 0 || m.text.Focused() }

// Busy implements pane.Pane. Background refreshes do not count: a spinner
// blinking every second says nothing.
func (m *Model) Busy() bool { return m.loading || m.acting || m.conn.loading }

// Nested implements pane.Pane.
func (m *Model) Nested() bool { return m.open != nil || m.askRequeue > 0 || m.conn.shown }

// Refresh implements pane.Pane: a write anywhere may have queued a job.
func (m *Model) Refresh(pane.Change) tea.Cmd {
	if !m.poll.Shown() {
		return nil
	}
	return m.load(false)
}

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	switch {
	case m.askRequeue > 0:
		return []key.Binding{m.confirm.Yes, m.confirm.No}
	case m.open != nil:
		return []key.Binding{m.keys.Retry, m.list.Down, m.list.Up}
	case m.conn.shown:
		return []key.Binding{m.keys.Sync, m.keys.Queue, m.list.Down, m.list.Up}
	}
	return []key.Binding{m.list.Open, m.keys.Filter, m.keys.Connectors, m.keys.Retry, m.keys.RequeueAll, m.keys.ReleaseLeases, m.keys.Search, m.keys.Sort}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom, m.list.Open},
		{m.keys.Search, m.keys.Filter, m.keys.Sort, m.keys.Retry, m.keys.RequeueAll, m.keys.ReleaseLeases},
		{m.keys.Connectors, m.keys.Sync, m.keys.Queue},
	}
}

// Filter returns the current status filter ("" for all).
func (m *Model) Filter() string { return Filters[m.filter] }

// Jobs returns the loaded rows (tests look inside).
func (m *Model) Jobs() []*wire.Job {
	if m.page == nil {
		return nil
	}
	return m.page.Jobs
}

// Flash returns the pane's message line.
func (m *Model) Flash() pane.Flash { return m.flash }

func jobFilter(name string) wire.JobFilter {
	if name == FilterBackingOff {
		return wire.JobFilter{Failing: true}
	}
	return wire.JobFilter{Status: name}
}

// load reads the queue; user marks a load the user asked for.
func (m *Model) load(user bool) tea.Cmd {
	if m.conn.shown {
		return m.loadConnectors(user)
	}
	m.seq++
	if user {
		m.loading = true
	}
	seq, b, f := m.seq, m.ctx.Client, jobFilter(m.Filter())
	f.Text = strings.TrimSpace(m.text.Value())
	if f.Sort = Sorts[m.sort]; f.Sort == SortType {
		f.Sort = "" // read live first, grouped when it arrives
	}
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		p, err := b.Jobs(ctx, f, pane.JobsLimit)
		return loadedMsg{seq: seq, page: p, err: err}
	}
}

func (m *Model) fetchJob(id string) tea.Cmd {
	b := m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		j, err := b.Job(ctx, id)
		return jobMsg{job: j, err: err}
	}
}

func (m *Model) listHeight() int { return max(1, m.height-4) }

func (m *Model) clamp() {
	m.cursor, m.offset = pane.Scroll(m.cursor, m.offset, len(m.Jobs()), m.listHeight())
}

func (m *Model) selected() *wire.Job {
	if m.open != nil {
		return m.open
	}
	if jobs := m.Jobs(); m.cursor < len(jobs) {
		return jobs[m.cursor]
	}
	return nil
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	m.flash.Update(msg)
	if cmd, ok := m.connUpdate(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.loading, m.err = false, msg.err
		if msg.err != nil {
			return tea.Batch(m.flash.Set("jobs: "+msg.err.Error(), true), pane.Fail("jobs", msg.err))
		}
		keep := ""
		if s := m.selected(); s != nil {
			keep = s.ID
		}
		if Sorts[m.sort] == SortType {
			slices.SortStableFunc(msg.page.Jobs, func(a, b *wire.Job) int { return strings.Compare(a.JobType, b.JobType) })
		}
		m.page, m.loaded = msg.page, true
		m.cursor = 0
		for i, j := range m.page.Jobs {
			if j.ID == keep {
				m.cursor = i
			}
		}
		m.clamp()
		if m.open != nil {
			// Keep the detail live: the open job may have moved on.
			for _, j := range m.page.Jobs {
				if j.ID == m.open.ID && j.UpdatedAt != m.open.UpdatedAt {
					m.open = j
					m.vp.SetContent(m.detailContent())
				}
			}
		}
	case jobMsg:
		if msg.err != nil {
			return m.flash.Set("job: "+msg.err.Error(), true)
		}
		if m.open != nil && m.open.ID == msg.job.ID {
			m.open = msg.job
			m.vp.SetContent(m.detailContent())
		}
	case actionMsg:
		m.acting = false
		if msg.err != nil {
			return tea.Batch(m.flash.Set(msg.what+": "+msg.err.Error(), true), pane.Fail(msg.what, msg.err))
		}
		return tea.Batch(m.flash.Set(msg.text, false), m.load(false))
	case pane.PollTick:
		if !m.poll.Due(msg) {
			return nil // hidden, another pane's, or an older tick loop
		}
		return tea.Batch(m.load(false), m.poll.Tick())
	case tea.MouseWheelMsg:
		if m.conn.shown {
			m.conn.cursor = pane.WheelCursor(msg, m.conn.cursor)
			m.clampConn()
			return nil
		}
		if m.open != nil {
			var cmd tea.Cmd
			m.vp, cmd = m.vp.Update(msg)
			return cmd
		}
		m.cursor = pane.WheelCursor(msg, m.cursor)
		m.clamp()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.text.Focused() {
		switch msg.String() {
		case "enter", "esc", "down":
			m.text.Blur()
			return nil
		}
		before := m.text.Value()
		var cmd tea.Cmd
		m.text, cmd = m.text.Update(msg)
		if m.text.Value() != before {
			m.cursor, m.offset = 0, 0
			return tea.Batch(cmd, m.load(true))
		}
		return cmd
	}
	if m.askRequeue > 0 {
		switch {
		case key.Matches(msg, m.confirm.Yes):
			n := m.askRequeue
			m.askRequeue = 0
			return m.requeue("", n)
		case key.Matches(msg, m.confirm.No):
			m.askRequeue = 0
			return m.flash.Set("requeue cancelled", false)
		}
		return nil
	}
	if m.conn.shown {
		return m.connKey(msg)
	}
	if m.open == nil && key.Matches(msg, m.keys.Connectors) {
		m.conn.shown = true
		return m.loadConnectors(true)
	}
	switch {
	case key.Matches(msg, m.keys.Retry):
		return m.retry()
	case key.Matches(msg, m.keys.RequeueAll):
		n := 0
		if m.page != nil {
			n = m.page.Counts[wire.JobDead]
		}
		if n == 0 {
			return m.flash.Set("no dead jobs to requeue", false)
		}
		m.askRequeue = min(n, pane.RequeueAllLimit)
		return nil
	case key.Matches(msg, m.keys.ReleaseLeases):
		return m.releaseLeases()
	}
	if m.open != nil {
		switch {
		case msg.String() == "esc":
			m.open = nil
		default:
			return pane.ScrollDetail(&m.vp, m.list, msg)
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Search) && !m.conn.shown:
		return m.text.Focus()
	case key.Matches(msg, m.keys.Filter):
		m.filter = (m.filter + 1) % len(Filters)
		m.cursor, m.offset = 0, 0
		return m.load(true)
	case key.Matches(msg, m.keys.FilterBack):
		m.filter = (m.filter + len(Filters) - 1) % len(Filters)
		m.cursor, m.offset = 0, 0
		return m.load(true)
	case key.Matches(msg, m.keys.Sort):
		m.sort = (m.sort + 1) % len(Sorts)
		m.cursor, m.offset = 0, 0
		return m.load(true)
	case pane.IsMove(m.list, msg):
		m.cursor, _ = pane.MoveCursor(m.list, msg, m.cursor, len(m.Jobs()), m.listHeight())
	case key.Matches(msg, m.list.Open):
		if j := m.selected(); j != nil {
			m.open = j
			m.vp.SetContent(m.detailContent())
			m.vp.GotoTop()
			return m.fetchJob(j.ID)
		}
	case msg.String() == "esc":
		if m.text.Value() != "" {
			m.text.SetValue("")
			return m.load(true)
		}
		if m.filter != 0 {
			m.filter = 0
			return m.load(true)
		}
	}
	m.clamp()
	return nil
}

// retry acts on the selected job by its state: a dead job goes back to
// the queue through the requeue-dead repair (audited); a failed or
// backing-off one is made due now.
func (m *Model) retry() tea.Cmd {
	j := m.selected()
	if j == nil {
		return nil
	}
	if j.Status == wire.JobDead {
		return m.requeue(j.ID, 1)
	}
	if j.Status == wire.JobFailed || (j.Status == wire.JobPending && j.FailedAt != "") {
		m.acting = true
		b, id := m.ctx.Client, j.ID
		return func() tea.Msg {
			ctx, cancel := pane.CallContext()
			defer cancel()
			_, err := b.RetryJob(ctx, id)
			return actionMsg{what: "retry " + pane.ShortID(id), text: "job " + pane.ShortID(id) + " is due now", err: err}
		}
	}
	return m.flash.Set(fmt.Sprintf("job %s is %s: only failed, backing-off or dead jobs can be retried", pane.ShortID(j.ID), j.Status), false)
}

// RequeueDead returns dead jobs to the queue through c's requeue-dead
// repair: the one job id, or (id empty) up to limit of them.
func RequeueDead(ctx context.Context, c client.Client, id string, limit int) (*wire.RepairResult, error) {
	return c.Repair(ctx, wire.RepairRequeueDead, wire.RepairOptions{JobID: id, BatchSize: limit, Reason: "requeued from the TUI"})
}

// ReleaseLeases returns jobs leased longer than the lease timeout to the
// queue through c's release-leases repair.
func ReleaseLeases(ctx context.Context, c client.Client) (*wire.RepairResult, error) {
	return c.Repair(ctx, wire.RepairReleaseLeases, wire.RepairOptions{Reason: "released from the TUI"})
}

func (m *Model) requeue(id string, limit int) tea.Cmd {
	m.acting = true
	b := m.ctx.Client
	what := "requeue dead jobs"
	if id != "" {
		what = "requeue " + pane.ShortID(id)
	}
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		res, err := RequeueDead(ctx, b, id, limit)
		if err != nil {
			return actionMsg{what: what, err: err}
		}
		if !res.Success {
			return actionMsg{what: what, err: errors.New(res.Message)}
		}
		return actionMsg{what: what, text: res.Message}
	}
}

func (m *Model) releaseLeases() tea.Cmd {
	m.acting = true
	b := m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		res, err := ReleaseLeases(ctx, b)
		if err != nil {
			return actionMsg{what: "release leases", err: err}
		}
		if !res.Success {
			return actionMsg{what: "release leases", err: errors.New(res.Message)}
		}
		return actionMsg{what: "release leases", text: res.Message}
	}
}

// View implements pane.Pane.
func (m *Model) View() string {
	var out string
	if m.conn.shown {
		out = m.connectorsView()
	} else if m.open != nil {
		out = m.detailView()
	} else {
		out = m.listView()
	}
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

// header is the counts line: every status, then every type's live work.
func (m *Model) header() string {
	st := m.ctx.Styles
	switch {
	case m.page == nil && m.err != nil:
		return st.Error.Render("queue: unavailable")
	case m.page == nil:
		return st.Faint.Render("queue: loading…")
	}
	var parts []string
	for _, s := range statuses {
		n := m.page.Counts[s]
		text := fmt.Sprintf("%s %d", s, n)
		switch {
		case n > 0 && (s == wire.JobDead || s == wire.JobFailed):
			parts = append(parts, st.Warning.Render(text))
		case n > 0 && s != wire.JobCompleted:
			parts = append(parts, st.Accent.Render(text))
		default:
			parts = append(parts, st.Faint.Render(text))
		}
	}
	return ansi.Truncate(strings.Join(parts, st.Rule.Render(" · ")), m.width, "…")
}

// byType is each job type's total with its live and dead work.
func (m *Model) byType() string {
	if m.page == nil {
		return ""
	}
	var types []string
	for _, t := range slices.Sorted(maps.Keys(m.page.ByType)) {
		c := m.page.ByType[t]
		total := 0
		for _, n := range c {
			total += n
		}
		var extra []string
		if live := c[wire.JobPending] + c[wire.JobLeased]; live > 0 {
			extra = append(extra, fmt.Sprintf("%d live", live))
		}
		if d := c[wire.JobDead]; d > 0 {
			extra = append(extra, fmt.Sprintf("%d dead", d))
		}
		seg := fmt.Sprintf("%s %d", t, total)
		if len(extra) > 0 {
			seg += " (" + strings.Join(extra, ", ") + ")"
		}
		types = append(types, seg)
	}
	if len(types) == 0 {
		return ""
	}
	return " · by type: " + strings.Join(types, ", ")
}

// Column widths of the queue.
const (
	colType    = 9
	colMem     = 8
	colStatus  = 11
	colAttempt = 5
	colAge     = 5
	colLease   = 6
)

func (m *Model) listView() string {
	st := m.ctx.Styles
	var b strings.Builder
	b.WriteString(m.header() + "\n")
	filter := "all jobs"
	if f := m.Filter(); f != "" {
		filter = f + " jobs"
	}
	sub := fmt.Sprintf("%d %s, %s", len(m.Jobs()), filter, sortLabel(Sorts[m.sort]))
	if len(m.Jobs()) == pane.JobsLimit {
		sub += fmt.Sprintf(" (the newest %d)", pane.JobsLimit)
	}
	if t := strings.TrimSpace(m.text.Value()); t != "" {
		sub += fmt.Sprintf(" · matching %q", t)
	}
	sub += m.byType()
	if m.text.Focused() {
		b.WriteString(m.text.View() + "\n")
	} else {
		b.WriteString(st.Faint.Render(pane.Truncate(sub, m.width)) + "\n")
	}
	b.WriteString(m.messageLine() + "\n")
	b.WriteString(st.Faint.Render(pane.Truncate("  "+pane.Pad("type", colType)+" "+pane.Pad("memory", colMem)+" "+pane.Pad("status", colStatus)+" "+
		pane.Pad("tries", colAttempt)+" "+pane.Pad("age", colAge)+" "+pane.Pad("lease", colLease)+" last error", m.width)))
	if len(m.Jobs()) == 0 && m.loaded {
		b.WriteString("\n" + st.Faint.Render("No jobs. Memories stored while the pipeline is on queue an extract job each."))
	}
	for i := m.offset; i < len(m.Jobs()) && i < m.offset+m.listHeight(); i++ {
		b.WriteString("\n" + m.row(m.Jobs()[i], i == m.cursor))
	}
	return b.String()
}

// messageLine is the confirmation question or the last action's outcome.
func (m *Model) messageLine() string {
	st := m.ctx.Styles
	switch {
	case m.askRequeue > 0:
		return st.Warning.Bold(true).Render(pane.Truncate(fmt.Sprintf("Requeue all %d dead jobs? y/n", m.askRequeue), m.width))
	case m.flash.Err:
		return st.Error.Render(pane.Truncate(m.flash.Text, m.width))
	}
	return st.Success.Render(pane.Truncate(m.flash.Text, m.width))
}

// displayStatus names a pending job that already failed "backing-off";
// a dead job requeued (its attempts back to 0) is pending again, its
// last error kept for the record.
func displayStatus(j *wire.Job) string {
	if j.Status == wire.JobPending && j.FailedAt != "" && j.Attempts > 0 {
		return FilterBackingOff
	}
	return j.Status
}

func (m *Model) row(j *wire.Job, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	now := m.ctx.Now()
	lease := ""
	if j.Status == wire.JobLeased && j.LeasedAt != "" {
		lease = pane.Age(now, j.LeasedAt)
	}
	mem := pane.ShortID(j.MemoryID)
	if mem == "" {
		mem = pane.ShortID(j.DocumentID)
	}
	line := marker + pane.Pad(j.JobType, colType) + " " + pane.Pad(mem, colMem) + " " + pane.Pad(displayStatus(j), colStatus) + " " +
		pane.Pad(fmt.Sprintf("%d/%d", j.Attempts, j.MaxAttempts), colAttempt) + " " + pane.Pad(pane.Age(now, j.CreatedAt), colAge) + " " +
		pane.Pad(lease, colLease) + " "
	line += pane.OneLine(j.Error, max(5, m.width-lipgloss.Width(line)))
	line = pane.Pad(line, m.width)
	switch {
	case selected:
		return st.Selected.Render(line)
	case j.Status == wire.JobDead || j.Status == wire.JobFailed:
		return st.Warning.Render(line)
	case j.Status == wire.JobCompleted:
		return st.Faint.Render(line)
	}
	return st.Text.Render(line)
}

func (m *Model) detailView() string {
	st := m.ctx.Styles
	j := m.open
	head := fmt.Sprintf("%s job %s · %s · attempt %d/%d", j.JobType, pane.ShortID(j.ID), displayStatus(j), j.Attempts, j.MaxAttempts)
	return st.Heading.Render(pane.Truncate(head, m.width)) + "\n" + m.messageLine() + "\n" + m.vp.View()
}

// detailContent renders the open job: its fields, payload, parsed result
// and error.
func (m *Model) detailContent() string {
	return Detail(m.ctx, m.open, max(20, m.width-2))
}
