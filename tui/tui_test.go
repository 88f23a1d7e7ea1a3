package tui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/tui/pane"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/core"
)

func stripANSI(s string) string { return ansi.Strip(s) }

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestKeyRouting(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	m := h.m
	step := func(k string) tea.Cmd {
		_, cmd := m.Update(keyPress(k))
		return cmd
	}
	if m.Active() != 0 {
		t.Fatal("does not start on Recall")
	}
	step("tab")
	if m.Active() != 1 {
		t.Fatalf("tab: active %d", m.Active())
	}
	step("5")
	if m.Active() != 4 || m.Pane(4).Title() != "Proposals" {
		t.Fatalf("5: active %d", m.Active())
	}
	step("tab")
	if m.Active() != 0 {
		t.Fatalf("tab wraps: active %d", m.Active())
	}
	step("shift+tab")
	if m.Active() != len(m.panes)-1 {
		t.Fatalf("shift+tab wraps back: active %d", m.Active())
	}
	step("1")
	if m.Active() != 0 {
		t.Fatalf("1: active %d", m.Active())
	}
	step("2")
	if m.Active() != 1 {
		t.Fatalf("2: active %d", m.Active())
	}
	step("3")
	if m.Active() != 2 || m.Pane(2).Title() != "Jobs" {
		t.Fatalf("3: active %d", m.Active())
	}
	step("4")
	if m.Active() != 3 || m.Pane(3).Title() != "Diagnostics" {
		t.Fatalf("4: active %d", m.Active())
	}
	step("6") // no sixth pane: ignored
	if m.Active() != 3 {
		t.Fatalf("6: active %d", m.Active())
	}
	step("1")

	step("?")
	if !m.ShowingFullHelp() || !strings.Contains(h.Screen(), "show deleted") {
		t.Fatalf("? does not open the full help:\n%s", h.Screen())
	}
	step("esc")
	if m.ShowingFullHelp() {
		t.Fatal("esc does not close the help")
	}

	// While the search box has the keyboard, q and digits are text.
	h.Press("/")
	if !m.Pane(0).Capturing() {
		t.Fatal("/ does not focus the search box")
	}
	if isQuit(step("q")) {
		t.Fatal("q quit while typing a search")
	}
	step("2")
	if m.Active() != 0 {
		t.Fatal("2 switched panes while typing")
	}
	step("esc")
	if m.Pane(0).Capturing() {
		t.Fatal("esc does not leave the search box")
	}
	if !isQuit(step("q")) {
		t.Fatal("q does not quit")
	}
	h.Press("/")
	if !isQuit(step("ctrl+c")) {
		t.Fatal("ctrl+c does not quit while typing")
	}
}

func TestEscBacksOutOfDetail(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.Press("enter")
	if !h.m.Pane(0).Nested() || !strings.Contains(h.Screen(), "Fields") {
		t.Fatalf("enter does not open the detail:\n%s", h.Screen())
	}
	h.Press("esc")
	if h.m.Pane(0).Nested() {
		t.Fatal("esc does not close the detail")
	}
	if isQuit(func() tea.Cmd { _, c := h.m.Update(keyPress("esc")); return c }()) {
		t.Fatal("esc at the top quits")
	}
}

func TestLiveChangesAppearWithoutAKeypress(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	if _, err := h.svc.Remember(context.Background(), core.RememberInput{Content: "agents can add memories while the TUI runs"},
		core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	if !h.PumpUntil(3*time.Second, func() bool { return strings.Contains(h.Screen(), "agents can add memories") }) {
		t.Fatalf("new memory did not appear:\n%s", h.Screen())
	}
}

// TestClientMode drives the UI over the HTTP API of a running service.
func TestClientMode(t *testing.T) {
	var srv *httptest.Server
	h := newHarness(t, harnessOpts{client: func(ap *app.App) client.Client {
		srv = httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	}})
	if !strings.Contains(h.Screen(), "6 · recent memories") {
		t.Fatalf("client mode list:\n%s", h.Screen())
	}
	h.Press("/")
	h.TypeText("deploy")
	h.Press("esc")
	h.SelectRow("ops/deploy.sh")
	h.Press("e", "ctrl+e")
	h.TypeText(" today")
	h.Press("ctrl+s")
	h.TypeText("over http")
	h.Press("enter")
	got := h.Get("0195a1b2-0000-7000-8000-00000000a004")
	if !strings.HasSuffix(got.Content, "VPN access today") || got.UpdatedBy != "tui" {
		t.Fatalf("edit over HTTP: %+v", got)
	}
	h.Press("enter")
	if s := h.Screen(); !strings.Contains(s, "v2") || !strings.Contains(s, "by tui") {
		t.Fatalf("detail over HTTP:\n%s", h.Screen())
	}
	// Live changes by polling.
	if _, err := h.svc.Remember(context.Background(), core.RememberInput{Content: "seen by polling the history"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	h.Press("esc", "/", "ctrl+u", "esc")
	if !h.PumpUntil(3*pane.PollInterval, func() bool { return strings.Contains(h.Screen(), "seen by polling") }) {
		t.Fatalf("client mode did not pick up a change:\n%s", h.Screen())
	}
}

func TestStatusBarWarnsOfDeadJobsAndPendingProposals(t *testing.T) {
	h := newHarness(t, harnessOpts{width: 120, height: 40})
	if strings.Contains(h.Screen(), "dead jobs") {
		t.Fatal("warning without dead jobs")
	}
	pipelineFixture(h)
	st, err := pane.Snapshot(context.Background(), client.Local(h.app, pane.LocalOptions), "")
	if err != nil {
		t.Fatal(err)
	}
	if st.DeadJobs != 1 || st.PendingProposals != 3 {
		t.Fatalf("status counts: %+v", st)
	}
	h.Send(StatusMsg{Status: st})
	if s := h.Screen(); !strings.Contains(s, "1 dead jobs · 3 proposals pending") {
		t.Fatalf("status bar:\n%s", s)
	}
}

// TestSpinnerFramesComeFromTheClock checks the status bar's spinner: it
// starts with work in flight, each frame schedules the next on the clock,
// and it stops at the first frame after the work ends.
func TestSpinnerFramesComeFromTheClock(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.Press("/")
	_, cmd := h.m.Update(keyPress("x"))
	var debounce tea.Msg
	for _, msg := range h.Collect(cmd) {
		if fmt.Sprintf("%T", msg) == "recall.debounceMsg" {
			debounce = msg
		}
	}
	if debounce == nil {
		t.Fatal("typing schedules no search")
	}
	_, cmd = h.m.Update(debounce) // the search starts
	if !h.m.Busy() || !h.m.spinning {
		t.Fatal("the spinner does not start with a search in flight")
	}
	var results, tick tea.Msg
	for _, msg := range h.Collect(cmd) { // the results and the first frame
		if _, ok := msg.(spinner.TickMsg); ok {
			tick = msg
		} else if fmt.Sprintf("%T", msg) == "recall.resultsMsg" {
			results = msg
		}
	}
	if tick == nil || results == nil {
		t.Fatalf("no first frame (%v) or no results (%v)", tick, results)
	}
	frame := h.m.spin.View()
	for i := range 3 {
		_, next := h.m.Update(tick)
		if h.m.spin.View() == frame {
			t.Fatalf("frame %d did not advance", i)
		}
		frame = h.m.spin.View()
		out := h.Collect(next)
		if len(out) != 1 {
			t.Fatalf("frame %d scheduled %v", i, out)
		}
		if _, ok := out[0].(spinner.TickMsg); !ok {
			t.Fatalf("frame %d scheduled %T", i, out[0])
		}
		tick = out[0]
	}
	h.Send(results)
	if _, next := h.m.Update(tick); next != nil || h.m.spinning || h.m.spin.View() != frame {
		t.Fatal("the spinner turns on after the work ended")
	}
}
