// Tests of the Diagnostics pane, driven through the shell as a person
// uses it, over the real client or one serving fixed reports.
package diagnostics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/wire"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui"
	"github.com/cairnmem/cairn/tui/diagnostics"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// diagPane is the Diagnostics pane's index in the tab list.
const diagPane = 3

func diagKey(*shelltest.Harness) string { return fmt.Sprint(diagPane + 1) }

func openDiagnostics(h *shelltest.Harness) {
	h.T.Helper()
	h.Press(diagKey(h))
	if _, ok := h.M.Pane(h.M.Active()).(*diagnostics.Model); !ok {
		h.T.Fatalf("key %s does not open the Diagnostics pane:\n%s", diagKey(h), h.Screen())
	}
}

// repairEvents counts the audit events of repairs run by the TUI.
func repairEvents(h *shelltest.Harness) int {
	h.T.Helper()
	ev, err := h.Svc.History(context.Background(), storage.HistoryFilter{Actor: pane.Actor.Name}, 100)
	if err != nil {
		h.T.Fatal(err)
	}
	return len(ev)
}

func TestDiagnosticsShowsTheLiveReport(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 80})
	openDiagnostics(h)
	s := h.Screen()
	for _, want := range []string{"Health ", "1.000 healthy", "queue ", "tombstone_ratio", "Silent failures", "Recommendations",
		"none: no signal calls for a repair", "Latency (ms)", "recall", "no samples yet", "Recent errors", "Repairs: press a key"} {
		if !strings.Contains(s, want) {
			t.Fatalf("no %q on the pane:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "r l f F e o d s repair") {
		t.Fatalf("the help line does not list the repair keys:\n%s", s)
	}
}

func TestDiagnosticsScrollKeys(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	openDiagnostics(h)
	top := h.Screen()
	if !strings.Contains(top, "Domains") || strings.Contains(top, "Recent errors") {
		t.Fatalf("80x24 should show the top of the report only:\n%s", top)
	}
	for _, k := range [][]string{{"G"}, {"end"}, {"ctrl+d", "ctrl+d", "ctrl+d", "ctrl+d", "ctrl+d", "ctrl+d"}} {
		h.Press(k...)
		if s := h.Screen(); !strings.Contains(s, "Recent errors") || strings.Contains(s, "Domains") {
			t.Fatalf("%v does not reach the bottom:\n%s", k, s)
		}
		h.Press("g")
		if h.Screen() != top {
			t.Fatalf("g does not return to the top:\n%s", h.Screen())
		}
	}
	h.Press("j")
	if s := h.Screen(); strings.Contains(s, "Domains") {
		t.Fatalf("j does not scroll:\n%s", s)
	}
	h.Press("k")
	if h.Screen() != top {
		t.Fatal("k does not scroll back")
	}
	h.Press("down", "ctrl+u")
	if h.Screen() != top {
		t.Fatal("down then ctrl+u does not come back to the top")
	}
}

func TestDiagnosticsRefreshKeyAndLivePolling(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 80})
	openDiagnostics(h)
	if !strings.Contains(h.Screen(), "none since start") {
		t.Fatalf("errors before any:\n%s", h.Screen())
	}
	an := h.Svc.Analytics()
	an.RecordError(analytics.ErrorEvent{Stage: "api", Code: "first_test_error", Message: "seen after R"})
	h.Press("R")
	if !strings.Contains(h.Screen(), "first_test_error") {
		t.Fatalf("R does not re-read:\n%s", h.Screen())
	}
	// While shown, the pane polls every second without a key.
	an.RecordError(analytics.ErrorEvent{Stage: "api", Code: "second_test_error", Message: "seen by polling"})
	if !h.PumpUntil(3*diagnostics.PollInterval, func() bool { return strings.Contains(h.Screen(), "second_test_error") }) {
		t.Fatalf("the pane does not poll while shown:\n%s", h.Screen())
	}
	// Hidden, it stops: no poll after switching away.
	h.Press("1")
	mark := len(h.Sent)
	h.Advance(2*diagnostics.PollInterval + 200*time.Millisecond)
	for _, msg := range h.Sent[mark:] {
		if name := fmt.Sprintf("%T", msg); name == "diagnostics.snapshotMsg" {
			t.Fatalf("the pane polled while hidden (%s)", name)
		}
	}
	if h.M.Pane(diagPane).(*diagnostics.Model).Visible() {
		t.Fatal("the pane thinks it is shown")
	}
}

func TestDiagnosticsNonDestructiveRepairsRunAtOnce(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	openDiagnostics(h)
	before := repairEvents(h)
	for _, c := range []struct{ key, want string }{
		{"f", "✓ check-fts: 0 affected · full-text index consistent"},
		{"r", "requeue-dead: 0 affected"},
		{"l", "release-leases: 0 affected"},
		{"e", "re-embed: 0 affected"},
	} {
		h.Press(c.key)
		s := h.Screen()
		if !strings.Contains(s, c.want) || !strings.Contains(s, "health 1.000 → 1.000 (+0.000)") {
			t.Fatalf("%s: no result %q with the score change:\n%s", c.key, c.want, s)
		}
	}
	if got := repairEvents(h) - before; got != 4 {
		t.Fatalf("%d repairs audited as the TUI, want 4", got)
	}
}

func TestDiagnosticsDestructiveRepairsAskFirst(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	openDiagnostics(h)
	before := repairEvents(h)
	for _, k := range []string{"F", "o", "d", "s"} {
		h.Press(k)
		if s := h.Screen(); !strings.Contains(s, "? y/n") || !h.M.Pane(h.M.Active()).Capturing() {
			t.Fatalf("%s does not ask:\n%s", k, s)
		}
		// Under the prompt, digits and q answer nothing and go nowhere.
		h.Press("1", "q")
		if h.Quit || h.M.Active() != diagPane {
			t.Fatalf("%s: a key under the prompt escaped it", k)
		}
		if k == "o" {
			h.Press("esc")
		} else {
			h.Press("n")
		}
		if strings.Contains(h.Screen(), "? y/n") {
			t.Fatalf("%s: the prompt stays after cancelling", k)
		}
		if text, _ := h.M.Notice(); !strings.Contains(text, "cancelled: nothing changed") {
			t.Fatalf("%s: cancelling is not said (%q)", k, text)
		}
	}
	if repairEvents(h) != before {
		t.Fatal("a cancelled repair ran")
	}
	// The retention sweep, confirmed.
	h.Press("s")
	if s := h.Screen(); !strings.Contains(s, "Run retention-sweep? y/n · Purge expired tombstones") {
		t.Fatalf("the prompt does not name the repair:\n%s", s)
	}
	h.Press("y")
	s := h.Screen()
	if !strings.Contains(s, "✓ retention-sweep: 0 affected") || !strings.Contains(s, "health 1.000 → 1.000") || !strings.Contains(s, "Last repair: ") {
		t.Fatalf("retention-sweep result:\n%s", s)
	}
	// And the FTS rebuild.
	h.Press("F", "y")
	if s := h.Screen(); !strings.Contains(s, "check-fts --repair: ") {
		t.Fatalf("check-fts --repair result:\n%s", s)
	}
	if got := repairEvents(h) - before; got != 2 {
		t.Fatalf("%d repairs audited, want 2", got)
	}
}

// repairRefuser is the real client whose repairs answer with err, as the
// API does when a repair is already running or the gate denies it.
type repairRefuser struct {
	*client.InProcess
	err error
}

func (r repairRefuser) Repair(context.Context, string, ops.RepairOptions) (*ops.RepairResult, error) {
	return nil, r.err
}

func TestDiagnosticsShowsRepairErrors(t *testing.T) {
	for _, c := range []struct {
		err  *core.Error
		want string
	}{
		{&core.Error{Code: ops.CodeRepairInProgress, Message: "repair check-fts is already running"},
			"✗ check-fts failed: repair_in_progress: repair check-fts is already running"},
		{&core.Error{Code: ops.CodeRepairDisabled, Message: "repair check-fts denied"},
			"✗ check-fts failed: " + ops.CodeRepairDisabled + ": repair check-fts denied"},
	} {
		h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40, Client: func(ap *app.App) client.Client {
			return repairRefuser{InProcess: client.Local(ap, pane.LocalOptions), err: c.err}
		}})
		openDiagnostics(h)
		h.Press("f")
		if s := h.Screen(); !strings.Contains(s, c.want) {
			t.Fatalf("no %q:\n%s", c.want, s)
		}
		if _, isErr := h.M.Notice(); !isErr {
			t.Fatal("the status bar does not show the error")
		}
	}
}

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{nil, ""},
		{[]float64{5}, "▁"},
		{[]float64{3, 3, 3}, "▁▁▁"},
		{[]float64{0, 7}, "▁█"},
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, "▁▂▃▄▅▆▇█"},
	} {
		if got := diagnostics.Sparkline(c.in); got != c.want {
			t.Errorf("Sparkline(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// fixedOps serves fixed diagnostics over the real client, so the golden
// renders do not depend on file sizes or timings.
type fixedOps struct {
	*client.InProcess
	mu            sync.Mutex
	report, after *ops.DiagnosticsReport
	recs          []ops.Recommendation
	latency       diagnostics.Latency
	errs          []wire.ErrorEvent
	diagErr       error
	result        *ops.RepairResult
	repairErr     error
}

func (f *fixedOps) Diagnostics(_ context.Context, fresh bool) (*ops.DiagnosticsReport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fresh && f.after != nil {
		return f.after, nil
	}
	return f.report, f.diagErr
}

func (f *fixedOps) Maintenance(context.Context) ([]ops.Recommendation, error) {
	return f.recs, f.diagErr
}

func (f *fixedOps) Latency(context.Context) (map[string]wire.LatencySummary, error) {
	return f.latency.Summaries, nil
}

func (f *fixedOps) LatencySamples(context.Context, string) ([]float64, error) {
	return f.latency.RecallSamples, nil
}

func (f *fixedOps) RecentErrors(context.Context, int) ([]wire.ErrorEvent, error) {
	return f.errs, nil
}

// Repair answers with the fixed result; after it, every report is the
// after one, as the service's would be.
func (f *fixedOps) Repair(context.Context, string, ops.RepairOptions) (*ops.RepairResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.repairErr == nil && f.after != nil {
		f.report = f.after
	}
	return f.result, f.repairErr
}

func sig(domain, name, unit string, value, threshold, penalty float64, msg string) ops.Signal {
	return ops.Signal{Name: name, Domain: domain, Value: value, Threshold: threshold, Unit: unit, Penalty: penalty,
		Triggered: penalty > 0, Message: msg}
}

func info(domain, name, unit string, value float64, msg string) ops.Signal {
	return ops.Signal{Name: name, Domain: domain, Value: value, Unit: unit, Informational: true, Message: msg}
}

// healthyReport is a fresh store's report.
func healthyReport() *ops.DiagnosticsReport {
	r := &ops.DiagnosticsReport{Timestamp: storage.FormatTime(tuitest.FixedNow), ComputeMs: 1.25, SilentFailures: []ops.Signal{}}
	for _, name := range ops.DiagnosticsDomains {
		r.Domains = append(r.Domains, ops.DomainReport{Name: name, Score: 1, Weight: ops.DomainWeights[name], Status: ops.StatusHealthy})
	}
	r.Domains[0].Signals = []ops.Signal{sig("queue", "pending_jobs", "count", 0, 50, 0, "0 jobs pending (more than 50 costs 0.3)")}
	r.Domains[1].Signals = []ops.Signal{sig("storage", "tombstone_ratio", "ratio", 0, 0.3, 0, "0 of 6 rows are tombstones"),
		info("storage", "db_size", "bytes", 335872, "database file holds 82 pages of 4096 bytes")}
	r.Domains[2].Signals = []ops.Signal{sig("index", "fts_mismatch", "ratio", 0, 0.1, 0, "full-text index holds 6 documents for 6 memory rows")}
	r.SilentFailures = []ops.Signal{r.Domains[2].Signals[0]}
	r.Composite = ops.HealthScore{Score: 1, Status: ops.StatusHealthy}
	return r
}

// busyReport has degraded and unhealthy domains.
func busyReport(indexScore float64) *ops.DiagnosticsReport {
	r := healthyReport()
	r.ComputeMs = 3.5
	r.Domains[0].Signals = []ops.Signal{
		sig("queue", "pending_jobs", "count", 0, 50, 0, "0 jobs pending (more than 50 costs 0.3)"),
		sig("queue", "stale_leases", "count", 3, 0, 0.2, "3 jobs leased more than 10m0s ago (any costs 0.2; repair release-leases frees them)"),
	}
	r.Domains[0].Score, r.Domains[0].Status = 0.8, ops.StatusHealthy
	r.Domains[1].Signals = append([]ops.Signal{sig("storage", "tombstone_ratio", "ratio", 0.42, 0.3, 0.3,
		"420 of 1000 rows are tombstones (above 30% costs 0.3; retention purges them)")}, r.Domains[1].Signals[1:]...)
	r.Domains[1].Score, r.Domains[1].Status = 0.7, ops.StatusDegraded
	fts := sig("index", "fts_mismatch", "ratio", 0.25, 0.1, 0.4, "full-text index holds 750 documents for 1000 memory rows (a gap above 10% costs 0.4)")
	if indexScore == 1 {
		fts = sig("index", "fts_mismatch", "ratio", 0, 0.1, 0, "full-text index holds 1000 documents for 1000 memory rows")
	}
	r.Domains[2].Signals = []ops.Signal{fts,
		sig("index", "embedding_coverage", "ratio", 0.5, 0.8, 0.3, "500 of 1000 live memories have a current vector (below 80% costs 0.3)")}
	r.Domains[2].Score, r.Domains[2].Status = indexScore-0.3, ops.HealthStatus(indexScore-0.3)
	r.Domains[3].Note = "pipeline disabled: only embedding calls are tracked"
	r.SilentFailures = []ops.Signal{fts, r.Domains[2].Signals[1]}
	total := 0.0
	for _, d := range r.Domains {
		total += d.Score * d.Weight
	}
	total = math.Round(total*1000) / 1000
	r.Composite = ops.HealthScore{Score: total, Status: ops.HealthStatus(total)}
	return r
}

func busyOps(b *client.InProcess) *fixedOps {
	samples := make([]float64, 300)
	for i := range samples {
		samples[i] = 4 + 3*math.Sin(float64(i)/7) + float64(i%11)/4
	}
	at := func(d time.Duration) string { return storage.FormatTime(tuitest.FixedNow.Add(-d)) }
	after := busyReport(1)
	after.Timestamp = storage.FormatTime(tuitest.FixedNow.Add(time.Second))
	return &fixedOps{InProcess: b, report: busyReport(0.6), after: after,
		recs: []ops.Recommendation{
			{Action: ops.RepairCheckFTS, Options: ops.RepairOptions{Repair: true}, Domain: "index", Signal: "fts_mismatch", Reason: "fts_mismatch 0.25 > 0.1"},
			{Action: ops.RepairReEmbed, Domain: "index", Signal: "embedding_coverage", Reason: "embedding_coverage 0.5 < 0.8", Halted: true},
			{Action: ops.RepairRetentionSweep, Domain: "storage", Signal: "tombstone_ratio", Reason: "tombstone_ratio 0.42 > 0.3"},
		},
		latency: diagnostics.Latency{Summaries: map[string]analytics.LatencySummary{
			"remember": {P50: 2.1, P95: 5.8, P99: 12.4, Count: 120, Mean: 2.6},
			"recall":   {P50: 6.3, P95: 9.9, P99: 10.5, Count: 300, Mean: 6.6},
			"mutate":   {P50: 3.2, P95: 7.7, P99: 8.1, Count: 14, Mean: 3.9},
		}, RecallSamples: samples},
		errs: []wire.ErrorEvent{
			{Timestamp: at(2 * time.Minute), Stage: "embedding", Code: "provider_timeout", Message: "ollama did not answer within 10s"},
			{Timestamp: at(3 * time.Hour), Stage: "api", Code: "api_server_error", Message: "Internal Server Error on POST /api/memory/recall"},
		},
		result: &ops.RepairResult{Action: ops.RepairCheckFTS, Success: true, Affected: 250, Message: "rebuilt the full-text index: 1000 rows indexed"},
	}
}

// The Diagnostics pane in client mode: the report, a repair and its score
// change all come over the HTTP API.
func TestDiagnosticsClientMode(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 60, Client: func(ap *app.App) client.Client {
		srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	}})
	openDiagnostics(h)
	if !h.PumpUntil(5*time.Second, func() bool { return strings.Contains(h.Screen(), "1.000 healthy") }) {
		t.Fatalf("no report over HTTP:\n%s", h.Screen())
	}
	before := repairEvents(h)
	h.Press("f")
	if !h.PumpUntil(10*time.Second, func() bool { return strings.Contains(h.Screen(), "✓ check-fts: 0 affected") }) {
		t.Fatalf("no repair result over HTTP:\n%s", h.Screen())
	}
	if !h.PumpUntil(5*time.Second, func() bool { return strings.Contains(h.Screen(), "health 1.000 → 1.000") }) {
		t.Fatalf("no score change over HTTP:\n%s", h.Screen())
	}
	if repairEvents(h)-before != 1 {
		t.Fatal("the repair was not audited")
	}
}

// goldenViews are the Diagnostics pane's pinned states (shelltest.Golden),
// each over a client serving fixed diagnostics.
var goldenViews = []shelltest.View{
	{Name: "healthy", Client: fixed(func(b *client.InProcess) *fixedOps {
		return &fixedOps{InProcess: b, report: healthyReport(), recs: []ops.Recommendation{},
			latency: diagnostics.Latency{Summaries: map[string]analytics.LatencySummary{}}, errs: []wire.ErrorEvent{}}
	}), Setup: func(h *shelltest.Harness) { openDiagnostics(h) }},
	{Name: "busy-repaired", Client: fixed(busyOps), Setup: func(h *shelltest.Harness) { openDiagnostics(h); h.Press("F", "y") }},
	{Name: "busy-confirm", Client: fixed(busyOps), Setup: func(h *shelltest.Harness) { openDiagnostics(h); h.Press("j", "j", "j", "s") }},
	{Name: "error", Client: fixed(func(b *client.InProcess) *fixedOps {
		return &fixedOps{InProcess: b, diagErr: errors.New("cairn at http://127.0.0.1:3850 does not answer: connection refused"),
			latency: diagnostics.Latency{Summaries: map[string]analytics.LatencySummary{}}, errs: []wire.ErrorEvent{},
			repairErr: &core.Error{Code: ops.CodeRepairInProgress, Message: "repair check-fts is already running"}}
	}), Setup: func(h *shelltest.Harness) { openDiagnostics(h); h.Press("f") }},
}

// fixed wraps the Local client over the harness's service in ops.
func fixed(ops func(b *client.InProcess) *fixedOps) func(ap *app.App) client.Client {
	return func(ap *app.App) client.Client { return ops(client.Local(ap, pane.LocalOptions)) }
}

func TestGoldenDiagnostics(t *testing.T) { shelltest.Golden(t, goldenViews) }

// BenchmarkDiagnosticsFrame is one frame of the Diagnostics pane at
// 120×40 with a realistic report (degraded domains, recommendations, 300
// recall samples, errors): what each once-a-second poll costs the UI once
// its snapshot has been applied. It needs no big database.
func BenchmarkDiagnosticsFrame(b *testing.B) {
	ap, _ := tuitest.OpenApp(b, b.TempDir())
	m := tui.New(tui.Options{Client: busyOps(client.Local(ap, pane.LocalOptions)), Addr: "127.0.0.1:3850", Theme: themes.MustBuiltin("dark"),
		Now: func() time.Time { return tuitest.FixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	_, cmd := m.Update(tuitest.KeyPress("4")) // Diagnostics
	for _, msg := range tuitest.RunAll(cmd) { // the first poll (and one tick, a second)
		m.Update(msg)
	}
	if !strings.Contains(m.Render(), "0.769 degraded") {
		b.Fatalf("the pane does not show the report:\n%s", m.Render())
	}
	for b.Loop() {
		_ = m.View()
	}
}
