// Tests of the Jobs pane, driven through the shell as a person uses it.
package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/jobs"
	"github.com/cairnmem/cairn/tui/pane"
)

// paneJobs is the Jobs pane's index in the tab list.
const paneJobs = 2

func jobsPane(h *shelltest.Harness) *jobs.Model { return h.M.Pane(paneJobs).(*jobs.Model) }

func job(h *shelltest.Harness, id string) *storage.Job {
	h.T.Helper()
	j, err := h.App.Jobs.Get(context.Background(), id)
	if err != nil {
		h.T.Fatal(err)
	}
	return j
}

// selectJob moves the Jobs cursor to the row of the job on memory mem.
func selectJob(h *shelltest.Harness, mem string) {
	h.T.Helper()
	h.Press("g")
	for range len(jobsPane(h).Jobs()) {
		if line := tuitest.SelectedLine(h.Screen()); strings.Contains(line, pane8(mem)) {
			return
		}
		h.Press("j")
	}
	h.T.Fatalf("no job row for memory %s:\n%s", mem, h.Screen())
}

func pane8(id string) string { return id[len(id)-8:] }

func newJobsHarness(t *testing.T) *shelltest.Harness {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	shelltest.PipelineFixture(h)
	h.Press("3")
	if h.M.Active() != paneJobs {
		t.Fatalf("3 does not open Jobs: %d", h.M.Active())
	}
	return h
}

func TestJobsCountsAndList(t *testing.T) {
	h := newJobsHarness(t)
	s := h.Screen()
	for _, want := range []string{"pending 2 · leased 1 · completed 1 · failed 0 · dead 1", "by type: extract 5 (3 live, 1 dead)",
		"5 all jobs, live first", "backing-off", "provider: ollama: connection refused", "0000a004 dead        3/3   3h"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	// Live first: the leased job heads the list.
	if line := tuitest.SelectedLine(s); !strings.Contains(line, "leased") {
		t.Fatalf("first row %q", line)
	}
}

func TestJobsNavigation(t *testing.T) {
	h := newJobsHarness(t)
	row := func() string { return tuitest.SelectedLine(h.Screen()) }
	first := row()
	h.Press("j")
	if row() == first {
		t.Fatal("j does not move down")
	}
	h.Press("k")
	if row() != first {
		t.Fatal("k does not move up")
	}
	h.Press("G")
	if !strings.Contains(row(), "completed") {
		t.Fatalf("G: %q", row())
	}
	h.Press("g")
	if row() != first {
		t.Fatal("g does not go to the top")
	}
	h.Send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if !strings.Contains(row(), "completed") {
		t.Fatalf("pgdown: %q", row())
	}
	h.Send(tea.KeyPressMsg{Code: tea.KeyPgUp})
	if row() != first {
		t.Fatalf("pgup: %q", row())
	}
	h.Send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if row() == first {
		t.Fatal("the wheel does not scroll")
	}
}

func TestJobsStatusFilters(t *testing.T) {
	h := newJobsHarness(t)
	p := jobsPane(h)
	want := []string{"pending", "leased", "completed", "failed", "dead", "backing-off", ""}
	for _, w := range want {
		h.Press("f")
		if p.Filter() != w {
			t.Fatalf("f: filter %q, want %q", p.Filter(), w)
		}
		for _, j := range p.Jobs() {
			switch {
			case w == "backing-off" && (j.Status != storage.JobPending || j.FailedAt == ""):
				t.Fatalf("backing-off lists %s job %s", j.Status, j.ID)
			case w != "" && w != "backing-off" && j.Status != w:
				t.Fatalf("%s lists a %s job", w, j.Status)
			}
		}
	}
	h.Press("F")
	if p.Filter() != "backing-off" || len(p.Jobs()) != 1 || !strings.Contains(h.Screen(), "1 backing-off jobs") {
		t.Fatalf("F: %q %d\n%s", p.Filter(), len(p.Jobs()), h.Screen())
	}
	h.Press("esc")
	if p.Filter() != "" || len(p.Jobs()) != 5 {
		t.Fatalf("esc does not clear the filter: %q", p.Filter())
	}
}

// TestJobsTextFilter: / filters the queue by text as it is typed (here
// the dead job's error), the header says so, esc clears it.
func TestJobsTextFilter(t *testing.T) {
	h := newJobsHarness(t)
	p := jobsPane(h)
	dead := job(h, tuitest.JobDead)
	word := strings.Fields(dead.Error)[0]
	h.Press("/")
	if !h.M.Pane(h.M.Active()).Capturing() {
		t.Fatal("/ does not focus the filter")
	}
	h.TypeText(word)
	h.Press("enter")
	if len(p.Jobs()) == 0 || len(p.Jobs()) == 5 || !strings.Contains(h.Screen(), fmt.Sprintf("matching %q", word)) {
		t.Fatalf("text filter %q: %d jobs\n%s", word, len(p.Jobs()), h.Screen())
	}
	for _, j := range p.Jobs() {
		if !strings.Contains(strings.ToLower(j.ID+j.JobType+j.Status+j.MemoryID+j.Error), strings.ToLower(word)) {
			t.Fatalf("%q lists job %+v", word, j)
		}
	}
	h.Press("esc")
	if len(p.Jobs()) != 5 {
		t.Fatalf("esc does not clear the text filter: %d jobs", len(p.Jobs()))
	}
}

func TestJobsDetailShowsParsedResult(t *testing.T) {
	h := newJobsHarness(t)
	selectJob(h, tuitest.IDSQLite)
	h.Press("enter")
	s := h.Screen()
	for _, want := range []string{"extract job 000b0001 · completed", "completed by heuristic, controlled-write mode", "Facts decided on (0)", "Proposals (",
		"1 facts, 0 entities, 0 proposals", "not proposed: 1 restates source"} {
		if !strings.Contains(s, want) {
			t.Fatalf("detail lacks %q:\n%s", want, s)
		}
	}
	if !h.M.Pane(paneJobs).Nested() {
		t.Fatal("detail is not nested")
	}
	h.Press("esc")
	if h.M.Pane(paneJobs).Nested() {
		t.Fatal("esc does not close the detail")
	}
	selectJob(h, tuitest.IDDeploy)
	h.Press("enter")
	s = h.Screen()
	if !strings.Contains(s, "Error") || !strings.Contains(s, "connection refused") || !strings.Contains(s, `"reason": "reextract"`) {
		t.Fatalf("dead job detail lacks error or payload:\n%s", s)
	}
}

func TestJobsRetryRequeuesDeadAndRetriesBackingOff(t *testing.T) {
	h := newJobsHarness(t)
	selectJob(h, tuitest.IDDeploy)
	h.Press("r")
	if j := job(h, tuitest.JobDead); j.Status != storage.JobPending || j.Attempts != 0 {
		t.Fatalf("r on a dead job: %s attempts %d", j.Status, j.Attempts)
	}
	if f := jobsPane(h).Flash(); f.Err || !strings.Contains(f.Text, "requeued 1 dead jobs") {
		t.Fatalf("flash %+v", f)
	}
	// Requeued, it is pending like a new job, not backing off.
	if line := tuitest.SelectedLine(h.Screen()); !strings.Contains(line, "pending") || strings.Contains(line, "backing-off") {
		t.Fatalf("a requeued dead job shows as %q", line)
	}
	// The requeue is audited as a repair by the TUI.
	hist, err := h.Svc.History(context.Background(), storage.HistoryFilter{MemoryID: "system"}, 10)
	if err != nil || len(hist) == 0 || hist[0].ChangedBy != "tui" {
		t.Fatalf("no audit event: %v %v", hist, err)
	}

	selectJob(h, tuitest.IDFlakyTest)
	h.Press("r")
	if j := job(h, tuitest.JobBacking); j.Status != storage.JobPending || j.NextAttemptAt != "" {
		t.Fatalf("r on a backing-off job: %+v", j)
	}
	if f := jobsPane(h).Flash(); !strings.Contains(f.Text, "is due now") {
		t.Fatalf("flash %+v", f)
	}

	selectJob(h, tuitest.IDSQLite)
	h.Press("r")
	if f := jobsPane(h).Flash(); !strings.Contains(f.Text, "only failed, backing-off or dead jobs") {
		t.Fatalf("r on a completed job: %+v", f)
	}
	if job(h, tuitest.JobDone).Status != storage.JobCompleted {
		t.Fatal("r changed a completed job")
	}
}

func TestJobsRequeueAllAsksFirst(t *testing.T) {
	h := newJobsHarness(t)
	h.Press("R")
	if !h.M.Pane(paneJobs).Capturing() || !strings.Contains(h.Screen(), "Requeue all 1 dead jobs? y/n") {
		t.Fatalf("R does not ask:\n%s", h.Screen())
	}
	h.Press("q") // not an answer, and not a quit either
	if h.Quit || !h.M.Pane(paneJobs).Capturing() {
		t.Fatal("q during the question")
	}
	h.Press("n")
	if job(h, tuitest.JobDead).Status != storage.JobDead || h.M.Pane(paneJobs).Capturing() {
		t.Fatal("n requeued or kept asking")
	}
	h.Press("R", "y")
	if job(h, tuitest.JobDead).Status != storage.JobPending {
		t.Fatal("y did not requeue")
	}
	if !strings.Contains(h.Screen(), "requeued 1 dead jobs") || !strings.Contains(h.Screen(), "dead 0") {
		t.Fatalf("after requeue:\n%s", h.Screen())
	}
	h.Press("R")
	if h.M.Pane(paneJobs).Capturing() || !strings.Contains(h.Screen(), "no dead jobs to requeue") {
		t.Fatalf("R with nothing dead:\n%s", h.Screen())
	}
}

func TestJobsReleaseStaleLeases(t *testing.T) {
	h := newJobsHarness(t)
	h.Press("L")
	if j := job(h, tuitest.JobStale); j.Status != storage.JobPending || j.LeaseOwner != "" {
		t.Fatalf("L left the stale lease: %+v", j)
	}
	if f := jobsPane(h).Flash(); f.Err || !strings.Contains(f.Text, "released 1 stale leases") {
		t.Fatalf("flash %+v", f)
	}
}

func TestJobsLiveWhileShownOnly(t *testing.T) {
	h := newJobsHarness(t)
	// A memory remembered with the pipeline on queues an extract job; the
	// pane shows it on its next tick without a keypress.
	res, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: "the nightly backup runs at 02:00 UTC from cron"}, core.Actor{Name: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	if !h.PumpUntil(3*time.Second, func() bool { return len(jobsPane(h).Jobs()) == 6 }) {
		t.Fatalf("the new job %s never showed:\n%s", res.Memory.ID, h.Screen())
	}
	// Hidden, the pane stops polling: its tick loop ends.
	h.Press("1")
	before := len(jobsPane(h).Jobs())
	changes := h.Background()
	if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: "the staging VPN needs a hardware key"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	// The change reaches the shell (which refreshes the panes), then 2.5 s
	// of ticks pass.
	if !h.PumpUntil(3*time.Second, func() bool { return h.Background() > changes }) {
		t.Fatal("the change never reached the UI")
	}
	h.Advance(2500 * time.Millisecond)
	if got := len(jobsPane(h).Jobs()); got != before {
		t.Fatalf("hidden pane reloaded: %d jobs, had %d", got, before)
	}
	h.Press("3")
	if got := len(jobsPane(h).Jobs()); got != before+1 {
		t.Fatalf("showing the pane does not reload: %d", got)
	}
}

func TestJobsErrorIsShown(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Client: func(ap *app.App) client.Client {
		return tuitest.Failing(ap)
	}})
	h.Press("3")
	if s := h.Screen(); !strings.Contains(s, "jobs: list jobs: database is locked") {
		t.Fatalf("error not shown:\n%s", s)
	}
}

// goldenViews are the Jobs pane's pinned states (shelltest.Golden).
var goldenViews = []shelltest.View{
	{Name: "jobs-empty", Setup: func(h *shelltest.Harness) { h.Press("3") }},
	{Name: "jobs-busy", Setup: func(h *shelltest.Harness) { shelltest.PipelineFixture(h); h.Press("3", "j", "j") },
		Status: func(s *pane.Status) { s.Pipeline, s.Queue, s.DeadJobs, s.PendingProposals = "shadow", 3, 1, 3 }},
	{Name: "jobs-detail", Setup: func(h *shelltest.Harness) { shelltest.PipelineFixture(h); h.Press("3", "G", "enter") }},
	{Name: "jobs-confirm", Setup: func(h *shelltest.Harness) { shelltest.PipelineFixture(h); h.Press("3", "R") }},
	{Name: "jobs-error", Setup: func(h *shelltest.Harness) { h.Press("3") }, Client: tuitest.Failing},
	{Name: "jobs-connectors", Setup: func(h *shelltest.Harness) { tuitest.ConnectorFixture(h.T, h.DB); h.Press("3", "c", "j") }},
	{Name: "jobs-connectors-empty", Setup: func(h *shelltest.Harness) { h.Press("3", "c") }},
}

func TestGolden(t *testing.T) { shelltest.Golden(t, goldenViews) }
