// Package diagnostics is the Diagnostics pane: the composite health score
// and the six domains as bars with their signals, the silent failures, the
// maintenance recommendations, latency percentiles with a sparkline of
// recent recalls, the error ring, and every repair on a key with its result
// and the score before and after. It polls once a second while shown.
package diagnostics

import (
	"context"
	"errors"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/pane"
)

// PollInterval is how often the pane re-reads the report while shown: the
// service caches a report for core.DiagnosticsTTL, so polling faster would
// only repeat it.
const PollInterval = time.Second

// RecommendationsEvery is how many polls pass between two reads of the
// maintenance recommendations: they count duplicate clusters, a grouped
// scan that is too heavy to repeat every second on a large store.
const RecommendationsEvery = 5

// spinInterval is the frame time of the spinner shown while a repair runs.
var spinInterval = spinner.MiniDot.FPS

type (
	// spinMsg advances the spinner of the repair run it belongs to.
	spinMsg struct{ run *running }
	// snapshotMsg carries one poll's results. Parts that could not be
	// read are left nil with their error in Err.
	snapshotMsg struct {
		Seq     int
		Report  *wire.DiagnosticsReport
		Recs    []wire.Recommendation
		HasRecs bool // Recs were read in this poll
		Latency Latency
		Errors  []wire.ErrorEvent
		Usage   *wire.ModelUsageReport
		Err     error
	}
	// repairDoneMsg is a repair's outcome with the report measured after it.
	repairDoneMsg struct {
		Index    int
		Result   *wire.RepairResult
		Err      error
		After    *wire.DiagnosticsReport
		AfterErr error
	}
)

// running is a repair in flight.
type running struct {
	index  int
	before *wire.HealthScore
	frame  int
}

// outcome is the last repair's result, shown until the next one.
type outcome struct {
	index  int
	result *wire.RepairResult
	err    error
	before *wire.HealthScore
	after  *wire.HealthScore
}

// Model is the Diagnostics pane.
type Model struct {
	ctx  *pane.Context
	keys keys.Diagnostics
	list keys.List

	width, height int
	poller        pane.Poller // polls every PollInterval while shown
	polls         int
	seq           int
	loading       bool

	report  *wire.DiagnosticsReport
	recs    []wire.Recommendation
	latency Latency
	errs    []wire.ErrorEvent
	usage   *wire.ModelUsageReport // a chosen model's calls and tokens per day
	loadErr error

	actions []wire.RepairInfo
	confirm int // index into actions awaiting y/n; -1 when none
	run     *running
	last    *outcome

	vp viewport.Model
}

// New returns the Diagnostics pane.
func New(ctx *pane.Context) *Model {
	m := &Model{ctx: ctx, keys: keys.DefaultDiagnostics(), list: keys.DefaultList(), confirm: -1}
	m.poller.Interval, m.poller.Clock = PollInterval, ctx.Clock
	if ctx.Client != nil {
		m.actions = wire.RepairActions()
	}
	m.vp = viewport.New()
	m.vp.MouseWheelEnabled = true
	m.vp.SoftWrap = false
	return m
}

// Title implements pane.Pane.
func (m *Model) Title() string { return "Diagnostics" }

// Init implements pane.Pane. Nothing is read until the pane is shown.
func (m *Model) Init() tea.Cmd { return nil }

// ApplyStyles implements pane.Pane.
func (m *Model) ApplyStyles() { m.renderBody() }

// SetSize implements pane.Pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(1, h-headerLines))
	m.renderBody()
}

// Capturing implements pane.Pane: while a confirmation is asked, every key
// answers it (a digit must not switch panes under the prompt).
func (m *Model) Capturing() bool { return m.confirm >= 0 }

// Busy implements pane.Pane: the first read and a running repair, not the
// once-a-second polls (the status bar's spinner would never rest).
func (m *Model) Busy() bool { return m.run != nil || (m.loading && m.report == nil) }

// Nested implements pane.Pane.
func (m *Model) Nested() bool { return m.confirm >= 0 }

// Refresh implements pane.Pane: a write anywhere may move the scores.
func (m *Model) Refresh(pane.Change) tea.Cmd {
	if !m.poller.Shown() {
		return nil
	}
	return m.poll(false)
}

// SetShown implements pane.Shown: shown, it reads now and polls every
// second; hidden, the tick chain stops at its next tick.
func (m *Model) SetShown(shown bool) tea.Cmd {
	return m.poller.SetShown(shown, func() tea.Cmd { return m.poll(true) })
}

// Visible reports whether the pane is polling.
func (m *Model) Visible() bool { return m.poller.Shown() }

// ShortHelp implements pane.Pane.
func (m *Model) ShortHelp() []key.Binding {
	if m.confirm >= 0 {
		return []key.Binding{m.keys.Yes, m.keys.No}
	}
	return []key.Binding{m.keys.RepairKeys, m.list.Down, m.list.Up, m.keys.Refresh}
}

// FullHelp implements pane.Pane.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		m.keys.Repairs,
		{m.keys.Yes, m.keys.No, m.keys.Refresh},
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
	}
}

// poll reads the report, latency and errors (and the recommendations when
// withRecs is set or their turn has come) in one command.
func (m *Model) poll(withRecs bool) tea.Cmd {
	b := m.ctx.Client
	if b == nil {
		return nil
	}
	m.polls++
	withRecs = withRecs || m.polls%RecommendationsEvery == 0
	m.seq++
	m.loading = true
	seq := m.seq
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		return readSnapshot(ctx, b, seq, withRecs)
	}
}

func readSnapshot(ctx context.Context, b client.Client, seq int, withRecs bool) snapshotMsg {
	out := snapshotMsg{Seq: seq}
	var errs []error
	var err error
	if out.Report, err = b.Diagnostics(ctx, false); err != nil {
		errs = append(errs, err)
	}
	if withRecs {
		if out.Recs, err = b.Maintenance(ctx); err != nil {
			errs = append(errs, err)
		} else {
			out.HasRecs = true
		}
	}
	if out.Latency, err = readLatency(ctx, b); err != nil {
		errs = append(errs, err)
	}
	if out.Errors, err = b.RecentErrors(ctx, pane.ErrorsLimit); err != nil {
		errs = append(errs, err)
	}
	if out.Usage, err = b.ModelUsage(ctx); err != nil {
		errs = append(errs, err)
	}
	out.Err = errors.Join(errs...)
	return out
}

// Latency is the analytics view of recent operation latencies.
type Latency struct {
	// Summaries are keyed by operation (analytics.LatencyOps).
	Summaries map[string]wire.LatencySummary
	// RecallSamples are recent recall latencies in milliseconds, oldest
	// first.
	RecallSamples []float64
}

// readLatency reads the summary of every operation and the recall
// samples.
func readLatency(ctx context.Context, c client.Client) (Latency, error) {
	sums, err := c.Latency(ctx)
	if err != nil {
		return Latency{}, err
	}
	samples, err := c.LatencySamples(ctx, analytics.LatencyRecall)
	if err != nil {
		return Latency{}, err
	}
	return Latency{Summaries: sums, RecallSamples: samples}, nil
}

func (m *Model) spin(r *running) tea.Cmd {
	return m.ctx.Clock.Tick(spinInterval, func(time.Time) tea.Msg { return spinMsg{run: r} })
}

// startRepair runs actions[i] in a command, then measures a fresh report.
func (m *Model) startRepair(i int) tea.Cmd {
	b := m.ctx.Client
	info := m.actions[i]
	m.confirm = -1
	m.run = &running{index: i}
	if m.report != nil {
		before := m.report.Composite
		m.run.before = &before
	}
	m.renderBody()
	opts := wire.RepairOptions{Reason: "operator repair from the TUI"}
	if info.Options != nil {
		opts = *info.Options
		opts.Reason = "operator repair from the TUI"
	}
	return tea.Batch(func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		msg := repairDoneMsg{Index: i}
		msg.Result, msg.Err = b.Repair(ctx, info.Action, opts)
		if msg.Err == nil {
			msg.After, msg.AfterErr = b.Diagnostics(ctx, true)
		}
		return msg
	}, m.spin(m.run))
}

// Update implements pane.Pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pane.PollTick:
		if !m.poller.Due(msg) {
			return nil
		}
		var cmd tea.Cmd
		if !m.loading {
			cmd = m.poll(false)
		}
		return tea.Batch(cmd, m.poller.Tick())
	case spinMsg:
		if msg.run != m.run {
			return nil // that run has ended
		}
		m.run.frame++
		return m.spin(m.run)
	case snapshotMsg:
		if msg.Seq != m.seq {
			return nil
		}
		m.loading = false
		m.applySnapshot(msg)
	case repairDoneMsg:
		return m.repairDone(msg)
	case tea.MouseWheelMsg:
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// applySnapshot shows a poll's results; parts that failed keep their
// previous values.
func (m *Model) applySnapshot(msg snapshotMsg) {
	if msg.Report != nil && !older(msg.Report, m.report) {
		m.report = msg.Report
	}
	if msg.HasRecs {
		m.recs = msg.Recs
	}
	if msg.Latency.Summaries != nil {
		m.latency = msg.Latency
	}
	if msg.Errors != nil {
		m.errs = msg.Errors
	}
	if msg.Usage != nil {
		m.usage = msg.Usage
	}
	m.loadErr = msg.Err
	m.renderBody()
}

// older reports whether report r was measured before cur: a cached report
// read just after a repair must not replace the fresh one measured after it.
func older(r, cur *wire.DiagnosticsReport) bool {
	if cur == nil {
		return false
	}
	a, errA := wire.ParseTime(r.Timestamp)
	b, errB := wire.ParseTime(cur.Timestamp)
	return errA == nil && errB == nil && a.Before(b)
}

func (m *Model) repairDone(msg repairDoneMsg) tea.Cmd {
	out := &outcome{index: msg.Index, result: msg.Result, err: msg.Err}
	if m.run != nil {
		out.before = m.run.before
	}
	m.run = nil
	if msg.After != nil {
		m.report = msg.After
		after := msg.After.Composite
		out.after = &after
	}
	if msg.AfterErr != nil {
		m.loadErr = msg.AfterErr
	}
	m.last = out
	m.renderBody()
	info := m.actions[msg.Index]
	var cmds []tea.Cmd
	if msg.Err != nil {
		cmds = append(cmds, pane.Fail("repair "+info.Action, msg.Err))
	} else {
		cmds = append(cmds, pane.Notice("repair %s: %d affected", info.Action, msg.Result.Affected))
	}
	if m.poller.Shown() {
		// The recommendations and the error ring move with a repair.
		cmds = append(cmds, m.poll(true))
	}
	return tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.confirm >= 0 {
		switch {
		case key.Matches(msg, m.keys.Yes):
			return m.startRepair(m.confirm)
		case key.Matches(msg, m.keys.No):
			// Said, so a "no" is never taken for a repair that did nothing.
			action := m.actions[m.confirm].Action
			m.confirm = -1
			return pane.Notice("repair %s cancelled: nothing changed", action)
		}
		return nil
	}
	for i, b := range m.keys.Repairs {
		if i < len(m.actions) && key.Matches(msg, b) {
			if m.run != nil {
				return pane.Notice("repair %s is still running", m.actions[m.run.index].Action)
			}
			if m.actions[i].Destructive {
				m.confirm = i
				return nil
			}
			return m.startRepair(i)
		}
	}
	switch {
	case key.Matches(msg, m.keys.Refresh):
		return m.poll(true)
	case key.Matches(msg, m.list.Up):
		m.vp.ScrollUp(1)
	case key.Matches(msg, m.list.Down):
		m.vp.ScrollDown(1)
	case key.Matches(msg, m.list.PageUp):
		m.vp.PageUp()
	case key.Matches(msg, m.list.PageDown):
		m.vp.PageDown()
	case key.Matches(msg, m.list.Top):
		m.vp.GotoTop()
	case key.Matches(msg, m.list.Bottom):
		m.vp.GotoBottom()
	}
	return nil
}
