package tui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/backend"
	"github.com/cairnmem/cairn/tui/recall"
)

func stripANSI(s string) string { return ansi.Strip(s) }

const (
	idPostgres = "0195a1b2-0000-7000-8000-00000000a001"
	idSQLite   = "0195a1b2-0000-7000-8000-00000000a002"
	idTabs     = "0195a1b2-0000-7000-8000-00000000a003"
	idAPI      = "0195a1b2-0000-7000-8000-00000000a006"
)

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

func TestRecallListsRecentThenSearchesAsYouType(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	s := h.Screen()
	if !strings.Contains(s, "6 · recent memories") || !strings.Contains(s, "HTTP API binds") {
		t.Fatalf("empty query does not list recent memories:\n%s", s)
	}
	h.Press("/")
	h.TypeText("deploy")
	s = h.Screen()
	if !strings.Contains(s, "recall") || !strings.Contains(s, "ops/deploy.sh") || strings.Contains(s, "gofmt") {
		t.Fatalf("search for deploy:\n%s", s)
	}
	// Filters: only decisions.
	h.Press("ctrl+u") // clear the box (textinput: delete before cursor)
	h.TypeText("type:decision")
	s = h.Screen()
	if !strings.Contains(s, "1 · recent memories") || !strings.Contains(s, "WAL mode") {
		t.Fatalf("type:decision:\n%s", s)
	}
	h.TypeText(" imp:2")
	if !strings.Contains(h.Screen(), "imp:2: want a number from 0 to 1") {
		t.Fatalf("a bad filter is not explained:\n%s", h.Screen())
	}
}

func TestRecallDropsStaleSearches(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	rp := h.m.Pane(0)
	h.Press("/")
	// Type two characters without running the debounce ticks.
	_, first := h.m.Update(keyPress("x"))
	_, second := h.m.Update(keyPress("y"))
	// The first tick is stale: it must not search.
	msgs := h.Collect(first)
	for _, msg := range msgs {
		if cmd := rp.Update(msg); cmd != nil {
			if out := h.Collect(cmd); len(out) > 0 {
				t.Fatalf("a stale debounce tick searched: %#v", out)
			}
		}
	}
	h.Run(second)
	if !strings.Contains(h.Screen(), "Nothing matches") {
		t.Fatalf("search for xy:\n%s", h.Screen())
	}
}

func TestRecallNewMemory(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.Press("n")
	h.TypeText("the staging database password rotates monthly")
	h.Press("tab")
	h.TypeText("infra,secrets")
	h.Press("tab", "tab", "tab", "space") // type, importance, pinned: toggle on
	h.Press("ctrl+s")
	res, err := h.svc.List(context.Background(), storage.MemoryFilter{Tags: []string{"secrets"}}, 10, 0)
	if err != nil || len(res.Memories) != 1 {
		t.Fatalf("new memory not stored: %v %v", res, err)
	}
	got := res.Memories[0]
	if got.Content != "the staging database password rotates monthly" || !got.Pinned || got.UpdatedBy != "tui" {
		t.Fatalf("stored %+v", got)
	}
	if h.m.Pane(0).Nested() || !strings.Contains(h.Screen(), "› ") || !strings.Contains(h.Screen(), "password rotate") {
		t.Fatalf("after saving, the list does not show the new memory:\n%s", h.Screen())
	}
}

// selectID moves the Recall cursor to the memory with id (by content).
func (h *harness) selectRow(text string) {
	h.t.Helper()
	for range 10 {
		for _, line := range strings.Split(h.Screen(), "\n") {
			if strings.HasPrefix(line, "› ") && strings.Contains(line, text) {
				return
			}
		}
		h.Press("j")
	}
	h.t.Fatalf("no row with %q:\n%s", text, h.Screen())
}

func TestRecallEditSendsIfVersionAndReason(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.selectRow("postgres runs")
	h.Press("e")
	if !strings.Contains(h.Screen(), "Edit 0000a001") {
		t.Fatalf("e does not open the editor:\n%s", h.Screen())
	}
	h.Press("ctrl+e") // end of line
	h.TypeText(" (checked)")
	h.Press("ctrl+s")
	if !strings.Contains(h.Screen(), "Why this change?") {
		t.Fatalf("saving an edit does not ask why:\n%s", h.Screen())
	}
	h.TypeText("verified in staging")
	h.Press("enter")
	m := h.Get(idPostgres)
	if !strings.HasSuffix(m.Content, "5432 (checked)") || m.Version != 2 {
		t.Fatalf("after edit: %q v%d", m.Content, m.Version)
	}
	hist, _ := h.svc.MemoryHistory(context.Background(), idPostgres, 10)
	last := hist[len(hist)-1]
	if last.Reason != "verified in staging" || last.ChangedBy != "tui" || last.Metadata["ifVersion"] == nil {
		t.Fatalf("history: %+v", last)
	}
}

func TestRecallEditConflictKeepsText(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.selectRow("postgres runs")
	h.Press("e")
	h.Press("ctrl+e")
	h.TypeText(" MINE")
	// An agent changes the memory meanwhile.
	theirs := "postgres moved to port 6543 everywhere"
	if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &theirs, Reason: "agent"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.Press("ctrl+s")
	h.TypeText("mine")
	h.Press("enter")
	s := h.Screen()
	if !strings.Contains(s, "Version conflict") || !strings.Contains(s, "6543") || !strings.Contains(s, "MINE") {
		t.Fatalf("conflict screen:\n%s", s)
	}
	if got := h.Get(idPostgres); got.Content != theirs {
		t.Fatalf("the conflicting save wrote: %q", got.Content)
	}
	// Saving again overwrites knowingly (against the version now stored).
	h.Press("ctrl+s")
	h.Press("enter")
	if got := h.Get(idPostgres); !strings.HasSuffix(got.Content, "5432 MINE") || got.Version != 3 {
		t.Fatalf("second save: %q v%d", got.Content, got.Version)
	}
}

func TestRecallPinDeleteRecoverCopy(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.selectRow("prefers tabs")
	h.Press("p")
	if !h.Get(idTabs).Pinned {
		t.Fatal("p does not pin")
	}
	h.Press("p")
	if h.Get(idTabs).Pinned {
		t.Fatal("p does not unpin")
	}

	h.Press("d")
	if !strings.Contains(h.Screen(), "Delete 0000a003") {
		t.Fatalf("d does not ask:\n%s", h.Screen())
	}
	h.Press("esc")
	if h.Get(idTabs).IsDeleted {
		t.Fatal("esc deleted")
	}
	h.Press("d")
	h.TypeText("obsolete")
	h.Press("enter")
	if m := h.Get(idTabs); !m.IsDeleted {
		t.Fatal("d + enter does not delete")
	}
	if strings.Contains(h.Screen(), "prefers tabs") {
		t.Fatalf("deleted memory still listed:\n%s", h.Screen())
	}
	hist, _ := h.svc.MemoryHistory(context.Background(), idTabs, 10)
	if r := hist[len(hist)-1]; r.Event != "deleted" || r.Reason != "obsolete" {
		t.Fatalf("delete history %+v", r)
	}

	h.Press("D")
	if !strings.Contains(h.Screen(), "deleted memories") || !strings.Contains(h.Screen(), "prefers tabs") {
		t.Fatalf("D does not show deleted:\n%s", h.Screen())
	}
	h.Press("u")
	if h.Get(idTabs).IsDeleted {
		t.Fatal("u does not recover")
	}
	h.Press("D")

	// Pinned memories need force: the confirmed delete sends it.
	h.selectRow("WAL mode")
	h.Press("d", "enter")
	if !h.Get(idSQLite).IsDeleted {
		t.Fatal("deleting a pinned memory failed")
	}

	h.selectRow("HTTP API")
	before := len(h.Sent)
	h.Press("y")
	want := h.Get(idAPI).Content
	var clip bool
	for _, msg := range h.Sent[before:] {
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" && fmt.Sprint(msg) == want {
			clip = true
		}
	}
	if !clip || !strings.HasPrefix(h.m.notice, fmt.Sprintf("copied %d characters", len([]rune(want)))) {
		t.Fatalf("y: clipboard %v, notice %q", clip, h.m.notice)
	}
}

func TestHistoryFilterAndDiff(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := "postgres runs on port 5433 in staging; production uses 5432 too"
	if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &c, Reason: "clarify"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "7 events") })
	if !strings.Contains(h.Screen(), "7 events") {
		t.Fatalf("history does not list events (live refresh):\n%s", h.Screen())
	}
	h.Press("/")
	h.TypeText("event:updated")
	h.Press("enter")
	s := h.Screen()
	if !strings.Contains(s, "1 events") || !strings.Contains(s, "claude-code") {
		t.Fatalf("event filter:\n%s", s)
	}
	h.Press("enter")
	s = h.Screen()
	if !strings.Contains(s, "- postgres runs on port 5433 in staging; production uses the default 5432") ||
		!strings.Contains(s, "+ postgres runs on port 5433 in staging; production uses 5432 too") ||
		!strings.Contains(s, "reason: clarify") {
		t.Fatalf("diff:\n%s", s)
	}
	h.Press("esc")
	h.Press("/", "ctrl+u")
	h.TypeText("actor:seed")
	h.Press("enter")
	if !strings.Contains(h.Screen(), "6 events") {
		t.Fatalf("actor filter:\n%s", h.Screen())
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
	h := newHarness(t, harnessOpts{backend: func(svc *core.Service) backend.Backend {
		srv = httptest.NewServer(core.NewAPI(svc, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return backend.NewHTTP(strings.TrimPrefix(srv.URL, "http://"))
	}})
	if !strings.Contains(h.Screen(), "6 · recent memories") {
		t.Fatalf("client mode list:\n%s", h.Screen())
	}
	h.Press("/")
	h.TypeText("deploy")
	h.Press("esc")
	h.selectRow("ops/deploy.sh")
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
	if !h.PumpUntil(3*backend.PollInterval, func() bool { return strings.Contains(h.Screen(), "seen by polling") }) {
		t.Fatalf("client mode did not pick up a change:\n%s", h.Screen())
	}
}

func TestParseQuery(t *testing.T) {
	yes := true
	tests := []struct {
		in      string
		text    string
		check   func(f storage.MemoryFilter) bool
		wantErr string
	}{
		{"postgres port", "postgres port", func(f storage.MemoryFilter) bool { return f.Type == "" }, ""},
		{"type:decision wal", "wal", func(f storage.MemoryFilter) bool { return f.Type == "decision" }, ""},
		{"tag:a,b tags:c x", "x", func(f storage.MemoryFilter) bool { return strings.Join(f.Tags, ",") == "a,b,c" }, ""},
		{"who:claude project:cairn", "", func(f storage.MemoryFilter) bool { return f.Who == "claude" && f.Project == "cairn" }, ""},
		{"pinned:yes", "", func(f storage.MemoryFilter) bool { return f.Pinned != nil && *f.Pinned == yes }, ""},
		{"imp:0.7", "", func(f storage.MemoryFilter) bool { return *f.ImportanceMin == 0.7 }, ""},
		{"since:2d", "", func(f storage.MemoryFilter) bool { return f.Since == "2026-03-12T15:09:26.000Z" }, ""},
		{"since:2026-01-31", "", func(f storage.MemoryFilter) bool { return f.Since == "2026-01-31T00:00:00.000Z" }, ""},
		{"http://example.com", "http://example.com", func(f storage.MemoryFilter) bool { return true }, ""},
		{"pinned:maybe", "", nil, "pinned:maybe"},
		{"imp:x", "", nil, "imp:x"},
		{"since:soon", "", nil, "since:soon"},
	}
	for _, tt := range tests {
		q, err := recall.ParseQuery(tt.in, fixedNow)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v", tt.in, err)
			}
			continue
		}
		if err != nil || q.Text != tt.text || !tt.check(q.Filter) {
			t.Errorf("%q: %+v %v", tt.in, q, err)
		}
	}
}
