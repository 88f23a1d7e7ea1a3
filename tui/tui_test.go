package tui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/httpapi"

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
	if !m.ShowingFullHelp() || !strings.Contains(h.screen(), "show deleted") {
		t.Fatalf("? does not open the full help:\n%s", h.screen())
	}
	step("esc")
	if m.ShowingFullHelp() {
		t.Fatal("esc does not close the help")
	}

	// While the search box has the keyboard, q and digits are text.
	h.press("/")
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
	h.press("/")
	if !isQuit(step("ctrl+c")) {
		t.Fatal("ctrl+c does not quit while typing")
	}
}

func TestEscBacksOutOfDetail(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.press("enter")
	if !h.m.Pane(0).Nested() || !strings.Contains(h.screen(), "Fields") {
		t.Fatalf("enter does not open the detail:\n%s", h.screen())
	}
	h.press("esc")
	if h.m.Pane(0).Nested() {
		t.Fatal("esc does not close the detail")
	}
	if isQuit(func() tea.Cmd { _, c := h.m.Update(keyPress("esc")); return c }()) {
		t.Fatal("esc at the top quits")
	}
}

func TestRecallListsRecentThenSearchesAsYouType(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	s := h.screen()
	if !strings.Contains(s, "6 · recent memories") || !strings.Contains(s, "HTTP API binds") {
		t.Fatalf("empty query does not list recent memories:\n%s", s)
	}
	h.press("/")
	h.typeText("deploy")
	s = h.screen()
	if !strings.Contains(s, "recall") || !strings.Contains(s, "ops/deploy.sh") || strings.Contains(s, "gofmt") {
		t.Fatalf("search for deploy:\n%s", s)
	}
	// Filters: only decisions.
	h.press("ctrl+u") // clear the box (textinput: delete before cursor)
	h.typeText("type:decision")
	s = h.screen()
	if !strings.Contains(s, "1 · recent memories") || !strings.Contains(s, "WAL mode") {
		t.Fatalf("type:decision:\n%s", s)
	}
	h.typeText(" imp:2")
	if !strings.Contains(h.screen(), "imp:2: want a number from 0 to 1") {
		t.Fatalf("a bad filter is not explained:\n%s", h.screen())
	}
}

func TestRecallDropsStaleSearches(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	rp := h.m.Pane(0)
	h.press("/")
	// Type two characters without running the debounce ticks.
	_, first := h.m.Update(keyPress("x"))
	_, second := h.m.Update(keyPress("y"))
	// The first tick is stale: it must not search.
	msgs := h.collect([]tea.Cmd{first})
	for _, msg := range msgs {
		if cmd := rp.Update(msg); cmd != nil {
			if out := h.collect([]tea.Cmd{cmd}); len(out) > 0 {
				t.Fatalf("a stale debounce tick searched: %#v", out)
			}
		}
	}
	h.run(second)
	if !strings.Contains(h.screen(), "Nothing matches") {
		t.Fatalf("search for xy:\n%s", h.screen())
	}
}

func TestRecallNewMemory(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.press("n")
	h.typeText("the staging database password rotates monthly")
	h.press("tab")
	h.typeText("infra,secrets")
	h.press("tab", "tab", "tab", "space") // type, importance, pinned: toggle on
	h.press("ctrl+s")
	res, err := h.svc.List(context.Background(), storage.MemoryFilter{Tags: []string{"secrets"}}, 10, 0)
	if err != nil || len(res.Memories) != 1 {
		t.Fatalf("new memory not stored: %v %v", res, err)
	}
	got := res.Memories[0]
	if got.Content != "the staging database password rotates monthly" || !got.Pinned || got.UpdatedBy != "tui" {
		t.Fatalf("stored %+v", got)
	}
	if h.m.Pane(0).Nested() || !strings.Contains(h.screen(), "› ") || !strings.Contains(h.screen(), "password rotate") {
		t.Fatalf("after saving, the list does not show the new memory:\n%s", h.screen())
	}
}

// selectID moves the Recall cursor to the memory with id (by content).
func (h *harness) selectRow(text string) {
	h.t.Helper()
	for range 10 {
		for _, line := range strings.Split(h.screen(), "\n") {
			if strings.HasPrefix(line, "› ") && strings.Contains(line, text) {
				return
			}
		}
		h.press("j")
	}
	h.t.Fatalf("no row with %q:\n%s", text, h.screen())
}

func TestRecallEditSendsIfVersionAndReason(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.selectRow("postgres runs")
	h.press("e")
	if !strings.Contains(h.screen(), "Edit 0000a001") {
		t.Fatalf("e does not open the editor:\n%s", h.screen())
	}
	h.press("ctrl+e") // end of line
	h.typeText(" (checked)")
	h.press("ctrl+s")
	if !strings.Contains(h.screen(), "Why this change?") {
		t.Fatalf("saving an edit does not ask why:\n%s", h.screen())
	}
	h.typeText("verified in staging")
	h.press("enter")
	m := h.get(idPostgres)
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
	h.press("e")
	h.press("ctrl+e")
	h.typeText(" MINE")
	// An agent changes the memory meanwhile.
	theirs := "postgres moved to port 6543 everywhere"
	if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &theirs, Reason: "agent"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.press("ctrl+s")
	h.typeText("mine")
	h.press("enter")
	s := h.screen()
	if !strings.Contains(s, "Version conflict") || !strings.Contains(s, "6543") || !strings.Contains(s, "MINE") {
		t.Fatalf("conflict screen:\n%s", s)
	}
	if got := h.get(idPostgres); got.Content != theirs {
		t.Fatalf("the conflicting save wrote: %q", got.Content)
	}
	// Saving again overwrites knowingly (against the version now stored).
	h.press("ctrl+s")
	h.press("enter")
	if got := h.get(idPostgres); !strings.HasSuffix(got.Content, "5432 MINE") || got.Version != 3 {
		t.Fatalf("second save: %q v%d", got.Content, got.Version)
	}
}

func TestRecallPinDeleteRecoverCopy(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.selectRow("prefers tabs")
	h.press("p")
	if !h.get(idTabs).Pinned {
		t.Fatal("p does not pin")
	}
	h.press("p")
	if h.get(idTabs).Pinned {
		t.Fatal("p does not unpin")
	}

	h.press("d")
	if !strings.Contains(h.screen(), "Delete 0000a003") {
		t.Fatalf("d does not ask:\n%s", h.screen())
	}
	h.press("esc")
	if h.get(idTabs).IsDeleted {
		t.Fatal("esc deleted")
	}
	h.press("d")
	h.typeText("obsolete")
	h.press("enter")
	if m := h.get(idTabs); !m.IsDeleted {
		t.Fatal("d + enter does not delete")
	}
	if strings.Contains(h.screen(), "prefers tabs") {
		t.Fatalf("deleted memory still listed:\n%s", h.screen())
	}
	hist, _ := h.svc.MemoryHistory(context.Background(), idTabs, 10)
	if r := hist[len(hist)-1]; r.Event != "deleted" || r.Reason != "obsolete" {
		t.Fatalf("delete history %+v", r)
	}

	h.press("D")
	if !strings.Contains(h.screen(), "deleted memories") || !strings.Contains(h.screen(), "prefers tabs") {
		t.Fatalf("D does not show deleted:\n%s", h.screen())
	}
	h.press("u")
	if h.get(idTabs).IsDeleted {
		t.Fatal("u does not recover")
	}
	h.press("D")

	// Pinned memories need force: the confirmed delete sends it.
	h.selectRow("WAL mode")
	h.press("d", "enter")
	if !h.get(idSQLite).IsDeleted {
		t.Fatal("deleting a pinned memory failed")
	}

	h.selectRow("HTTP API")
	before := len(h.sent)
	h.press("y")
	want := h.get(idAPI).Content
	var clip bool
	for _, msg := range h.sent[before:] {
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
	h.press("2")
	h.pumpUntil(2*time.Second, func() bool { return strings.Contains(h.screen(), "7 events") })
	if !strings.Contains(h.screen(), "7 events") {
		t.Fatalf("history does not list events (live refresh):\n%s", h.screen())
	}
	h.press("/")
	h.typeText("event:updated")
	h.press("enter")
	s := h.screen()
	if !strings.Contains(s, "1 events") || !strings.Contains(s, "claude-code") {
		t.Fatalf("event filter:\n%s", s)
	}
	h.press("enter")
	s = h.screen()
	if !strings.Contains(s, "- postgres runs on port 5433 in staging; production uses the default 5432") ||
		!strings.Contains(s, "+ postgres runs on port 5433 in staging; production uses 5432 too") ||
		!strings.Contains(s, "reason: clarify") {
		t.Fatalf("diff:\n%s", s)
	}
	h.press("esc")
	h.press("/", "ctrl+u")
	h.typeText("actor:seed")
	h.press("enter")
	if !strings.Contains(h.screen(), "6 events") {
		t.Fatalf("actor filter:\n%s", h.screen())
	}
}

func TestLiveChangesAppearWithoutAKeypress(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	if _, err := h.svc.Remember(context.Background(), core.RememberInput{Content: "agents can add memories while the TUI runs"},
		core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	if !h.pumpUntil(3*time.Second, func() bool { return strings.Contains(h.screen(), "agents can add memories") }) {
		t.Fatalf("new memory did not appear:\n%s", h.screen())
	}
}

// TestClientMode drives the UI over the HTTP API of a running service.
func TestClientMode(t *testing.T) {
	var srv *httptest.Server
	h := newHarness(t, harnessOpts{backend: func(svc *core.Service) backend.Backend {
		srv = httptest.NewServer(httpapi.NewAPI(svc, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return backend.NewHTTP(strings.TrimPrefix(srv.URL, "http://"))
	}})
	if !strings.Contains(h.screen(), "6 · recent memories") {
		t.Fatalf("client mode list:\n%s", h.screen())
	}
	h.press("/")
	h.typeText("deploy")
	h.press("esc")
	h.selectRow("ops/deploy.sh")
	h.press("e", "ctrl+e")
	h.typeText(" today")
	h.press("ctrl+s")
	h.typeText("over http")
	h.press("enter")
	got := h.get("0195a1b2-0000-7000-8000-00000000a004")
	if !strings.HasSuffix(got.Content, "VPN access today") || got.UpdatedBy != "tui" {
		t.Fatalf("edit over HTTP: %+v", got)
	}
	h.press("enter")
	if s := h.screen(); !strings.Contains(s, "v2") || !strings.Contains(s, "by tui") {
		t.Fatalf("detail over HTTP:\n%s", h.screen())
	}
	// Live changes by polling.
	if _, err := h.svc.Remember(context.Background(), core.RememberInput{Content: "seen by polling the history"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	h.press("esc", "/", "ctrl+u", "esc")
	if !h.pumpUntil(3*backend.PollInterval, func() bool { return strings.Contains(h.screen(), "seen by polling") }) {
		t.Fatalf("client mode did not pick up a change:\n%s", h.screen())
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
