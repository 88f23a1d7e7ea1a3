// Tests of the Recall pane, driven through the shell as a person uses it.
package recall_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/recall"
)

func TestRecallListsRecentThenSearchesAsYouType(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
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
	if !strings.Contains(s, "1 · recent memories") || !strings.Contains(s, "use SQLite") {
		t.Fatalf("type:decision:\n%s", s)
	}
	h.TypeText(" imp:2")
	if !strings.Contains(h.Screen(), "imp:2: want a number from 0 to 1") {
		t.Fatalf("a bad filter is not explained:\n%s", h.Screen())
	}
}

func TestRecallDropsStaleSearches(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	rp := h.M.Pane(0)
	h.Press("/")
	// Type two characters without running the debounce ticks.
	_, first := h.M.Update(tuitest.KeyPress("x"))
	_, second := h.M.Update(tuitest.KeyPress("y"))
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
	if !strings.Contains(h.Screen(), "No memory is about this") {
		t.Fatalf("search for xy:\n%s", h.Screen())
	}
}

func TestRecallNewMemory(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.Press("n")
	h.TypeText("the staging database password rotates monthly")
	h.Press("tab")
	h.TypeText("infra,secrets")
	h.Press("tab", "tab", "tab", "tab", "space") // type, importance, project, pinned: toggle on
	h.Press("ctrl+s")
	res, err := h.Svc.List(context.Background(), storage.MemoryFilter{Tags: []string{"secrets"}}, 10, 0)
	if err != nil || len(res.Memories) != 1 {
		t.Fatalf("new memory not stored: %v %v", res, err)
	}
	got := res.Memories[0]
	if got.Content != "the staging database password rotates monthly" || !got.Pinned || got.UpdatedBy != "tui" || got.Project != "" {
		t.Fatalf("stored %+v", got)
	}
	if h.M.Pane(0).Nested() || !strings.Contains(h.Screen(), "› ") || !strings.Contains(h.Screen(), "password rot") {
		t.Fatalf("after saving, the list does not show the new memory:\n%s", h.Screen())
	}
}

// TestRecallFormRefusesUnknownType: a typo in the type field is refused
// with the nearest known type, and nothing is stored.
func TestRecallFormRefusesUnknownType(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.Press("n")
	h.TypeText("we ship on tuesdays")
	h.Press("tab", "tab")
	h.TypeText("decison")
	h.Press("ctrl+s")
	if s := h.Screen(); !strings.Contains(s, `type: unknown type "decison": did you mean "decision"?`) {
		t.Fatalf("a typo in the type is not refused:\n%s", s)
	}
	if res, _ := h.Svc.List(context.Background(), storage.MemoryFilter{}, 100, 0); len(res.Memories) != 6 {
		t.Fatalf("a memory was stored with a bad type: %d memories", len(res.Memories))
	}
	h.Press("ctrl+u")
	h.TypeText("decision")
	h.Press("ctrl+s")
	if res, _ := h.Svc.List(context.Background(), storage.MemoryFilter{Type: "decision"}, 100, 0); len(res.Memories) != 2 {
		t.Fatalf("the corrected form was not saved: %d decisions", len(res.Memories))
	}
}

// TestRecallFormTakesConfiguredTypes: memory.extra_types widens what the
// form accepts (as main passes it in tui.Options.Types), and a typo of an
// extra type is answered with it.
func TestRecallFormTakesConfiguredTypes(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Config: func(c *config.Config) { c.Memory.ExtraTypes = []string{"incident"} }})
	h.Press("n")
	h.TypeText("the march outage was a full disk")
	h.Press("tab", "tab")
	h.TypeText("incidnet")
	h.Press("ctrl+s")
	if s := h.Screen(); !strings.Contains(s, `type: unknown type "incidnet": did you mean "incident"?`) {
		t.Fatalf("a typo of a configured type:\n%s", s)
	}
	h.Press("ctrl+u")
	h.TypeText("incident")
	h.Press("ctrl+s")
	if res, _ := h.Svc.List(context.Background(), storage.MemoryFilter{Type: "incident"}, 100, 0); len(res.Memories) != 1 {
		t.Fatalf("a configured type was not saved: %d incidents\n%s", len(res.Memories), h.Screen())
	}
}

func TestRecallEditSendsIfVersionAndReason(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.SelectRow("postgres runs")
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
	m := h.Get(tuitest.IDPostgres)
	if !strings.HasSuffix(m.Content, "5432 (checked)") || m.Version != 2 {
		t.Fatalf("after edit: %q v%d", m.Content, m.Version)
	}
	hist, _ := h.Svc.MemoryHistory(context.Background(), tuitest.IDPostgres, 10)
	last := hist[len(hist)-1]
	if last.Reason != "verified in staging" || last.ChangedBy != "tui" || last.Metadata["ifVersion"] == nil {
		t.Fatalf("history: %+v", last)
	}
}

func TestRecallEditConflictKeepsText(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.SelectRow("postgres runs")
	h.Press("e")
	h.Press("ctrl+e")
	h.TypeText(" MINE")
	// An agent changes the memory meanwhile.
	theirs := "postgres moved to port 6543 everywhere"
	if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &theirs, Reason: "agent"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.Press("ctrl+s")
	h.TypeText("mine")
	h.Press("enter")
	s := h.Screen()
	if !strings.Contains(s, "Version conflict") || !strings.Contains(s, "6543") || !strings.Contains(s, "MINE") {
		t.Fatalf("conflict screen:\n%s", s)
	}
	if got := h.Get(tuitest.IDPostgres); got.Content != theirs {
		t.Fatalf("the conflicting save wrote: %q", got.Content)
	}
	// Saving again overwrites knowingly (against the version now stored).
	h.Press("ctrl+s")
	h.Press("enter")
	if got := h.Get(tuitest.IDPostgres); !strings.HasSuffix(got.Content, "5432 MINE") || got.Version != 3 {
		t.Fatalf("second save: %q v%d", got.Content, got.Version)
	}
}

func TestRecallPinDeleteRecoverCopy(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	h.SelectRow("prefers tabs")
	h.Press("p")
	if !h.Get(tuitest.IDTabs).Pinned {
		t.Fatal("p does not pin")
	}
	h.Press("p")
	if h.Get(tuitest.IDTabs).Pinned {
		t.Fatal("p does not unpin")
	}

	h.Press("d")
	if !strings.Contains(h.Screen(), "Delete 0000a003") {
		t.Fatalf("d does not ask:\n%s", h.Screen())
	}
	h.Press("esc")
	if h.Get(tuitest.IDTabs).IsDeleted {
		t.Fatal("esc deleted")
	}
	h.Press("d")
	h.TypeText("obsolete")
	h.Press("enter")
	if m := h.Get(tuitest.IDTabs); !m.IsDeleted {
		t.Fatal("d + enter does not delete")
	}
	if strings.Contains(h.Screen(), "prefers tabs") {
		t.Fatalf("deleted memory still listed:\n%s", h.Screen())
	}
	hist, _ := h.Svc.MemoryHistory(context.Background(), tuitest.IDTabs, 10)
	if r := hist[len(hist)-1]; r.Event != "deleted" || r.Reason != "obsolete" {
		t.Fatalf("delete history %+v", r)
	}

	h.Press("D")
	if !strings.Contains(h.Screen(), "deleted memories") || !strings.Contains(h.Screen(), "prefers tabs") {
		t.Fatalf("D does not show deleted:\n%s", h.Screen())
	}
	h.Press("u")
	if h.Get(tuitest.IDTabs).IsDeleted {
		t.Fatal("u does not recover")
	}
	h.Press("D")

	// Pinned memories need force: the confirmed delete sends it.
	h.SelectRow("use SQLite")
	h.Press("d", "enter")
	if !h.Get(tuitest.IDSQLite).IsDeleted {
		t.Fatal("deleting a pinned memory failed")
	}

	// The deleted row's place is taken by the row below it.
	if got := tuitest.SelectedLine(h.Screen()); !strings.Contains(got, "prefers tabs") {
		t.Fatalf("after a delete the cursor is on %q", got)
	}
	h.Press("g")
	h.SelectRow("HTTP API")
	before := len(h.Sent)
	h.Press("y")
	want := h.Get(tuitest.IDAPI).Content
	var clip bool
	for _, msg := range h.Sent[before:] {
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" && fmt.Sprint(msg) == want {
			clip = true
		}
	}
	notice, _ := h.M.Notice()
	if !clip || !strings.HasPrefix(notice, fmt.Sprintf("copied %d characters", len([]rune(want)))) {
		t.Fatalf("y: clipboard %v, notice %q", clip, notice)
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
		q, err := recall.ParseQuery(tt.in, tuitest.FixedNow)
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

// goldenViews are the Recall pane's pinned states (shelltest.Golden).
var goldenViews = []shelltest.View{
	{Name: "recall-list", Setup: func(h *shelltest.Harness) {}},
	{Name: "recall-detail", Setup: func(h *shelltest.Harness) { h.Press("enter") }},
	{Name: "recall-edit", Setup: func(h *shelltest.Harness) { h.Press("j", "j", "e") }},
	{Name: "recall-delete", Setup: func(h *shelltest.Harness) { h.Press("j", "d") }},
	// The postgres memory (third in the list) with its entities, one picked,
	// then that entity's view.
	{Name: "recall-entities", Setup: func(h *shelltest.Harness) { tuitest.GraphFixture(h.T, h.DB); h.Press("j", "j", "enter", "E", "l") }},
	{Name: "recall-entity", Setup: func(h *shelltest.Harness) {
		tuitest.GraphFixture(h.T, h.DB)
		h.Press("j", "j", "enter", "E", "enter", "j")
	}},
}

func TestGolden(t *testing.T) { shelltest.Golden(t, goldenViews) }

// TestRecallEnterInSearchOpensResult: the search box's hint says "enter
// open", and enter opens the selected result, also when pressed before the
// debounced search for the last keystrokes has run.
func TestRecallEnterInSearchOpensResult(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	if !strings.Contains(h.Screen(), "/ search") {
		t.Fatalf("no search hint:\n%s", h.Screen())
	}
	h.Press("/")
	if !strings.Contains(h.Screen(), "enter open") {
		t.Fatalf("the search box's hint does not say what enter does:\n%s", h.Screen())
	}
	h.TypeText("deploy")
	h.Press("enter")
	if s := h.Screen(); !strings.Contains(s, "0000a004 · procedural") {
		t.Fatalf("enter in the search box does not open the selected result:\n%s", s)
	}
	// Opened from a search, it carries its score parts (half a page down).
	h.Press("ctrl+d")
	if s := h.Screen(); !strings.Contains(s, "Why this result") || !strings.Contains(s, "keyword       1.0000") {
		t.Fatalf("the search's score parts are not shown:\n%s", s)
	}
	h.Press("ctrl+u")
	if h.M.Pane(0).Capturing() {
		t.Fatal("the search box keeps the keyboard after enter")
	}

	// Typed faster than the debounce: enter searches at once and opens
	// the best hit for what was typed, not the row selected before.
	h.Press("esc", "/", "ctrl+u")
	for _, r := range "gofmt" {
		h.M.Update(tuitest.KeyPress(string(r))) // the debounce ticks are dropped
	}
	h.Press("enter")
	if s := h.Screen(); !strings.Contains(s, "0000a003 · preference") {
		t.Fatalf("enter before the debounce does not open the best hit for the typed text:\n%s", s)
	}
}

// TestRecallColumns: the score column shows only when a row has a score;
// the project column shows each memory's project (blank for none) and,
// while the list spans projects, outranks the tags at narrow widths.
func TestRecallColumns(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: "a memory of no project about deploy keys"},
		core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "7 · recent") })
	row := func(text string) string {
		for _, l := range strings.Split(h.Screen(), "\n") {
			if strings.Contains(l, text) {
				return l
			}
		}
		t.Fatalf("no row with %q:\n%s", text, h.Screen())
		return ""
	}
	// A recent list has no scores: rows start with the type, no blank score.
	if l := row("ops/deploy.sh"); !strings.HasPrefix(l, "  procedural 0.70") || !strings.Contains(l, " cairn ") {
		t.Fatalf("recent row at 80 columns: %q", l)
	}
	if l := row("no project about"); !regexp.MustCompile(`^. fact       0\.\d\d   now {4,}a memory`).MatchString(l) {
		t.Fatalf("a memory without a project: %q", l)
	}
	h.Press("/")
	h.TypeText("deploy")
	// Scored rows at 80 columns: the score shows, and over every project
	// the project stays: the tags give way.
	if l := row("ops/deploy.sh"); !regexp.MustCompile(`^. \d\.\d{3} procedural .* cairn +Run the deploy`).MatchString(l) || strings.Contains(l, "infra") {
		t.Fatalf("search row at 80 columns: %q", l)
	}
	h.Send(tea.WindowSizeMsg{Width: 120, Height: 30})
	if l := row("ops/deploy.sh"); !regexp.MustCompile(`^. \d\.\d{3} procedural .* cairn +infra,deploy`).MatchString(l) {
		t.Fatalf("search row at 120 columns: %q", l)
	}
}

// TestRecallNewMemoryTakesTheCurrentProject: the form's project field
// starts as the current project, so a memory made in the TUI belongs to it
// (it is not injected into every project); P narrows the list to it.
func TestRecallNewMemoryTakesTheCurrentProject(t *testing.T) {
	const project = "github.com/acme/webshop"
	h := shelltest.New(t, shelltest.Options{Project: project})
	if !strings.Contains(h.Screen(), "all projects (P: webshop)") {
		t.Fatalf("the list does not say it shows every project:\n%s", h.Screen())
	}
	h.Press("n")
	if !strings.Contains(h.Screen(), "project    "+project) {
		t.Fatalf("the form's project field does not start as the current project:\n%s", h.Screen())
	}
	h.TypeText("checkout retries card payments twice")
	h.Press("ctrl+s")
	res, err := h.Svc.List(context.Background(), storage.MemoryFilter{Project: project}, 10, 0)
	if err != nil || len(res.Memories) != 1 || res.Memories[0].Content != "checkout retries card payments twice" {
		t.Fatalf("the new memory is not in the current project: %+v %v", res, err)
	}
	if !strings.Contains(tuitest.SelectedLine(h.Screen()), " webshop ") {
		t.Fatalf("the project column does not show the project:\n%s", h.Screen())
	}

	// Clearing the field makes a memory of no project.
	h.Press("n", "tab", "tab", "tab", "tab", "ctrl+u")
	h.Press("shift+tab", "shift+tab", "shift+tab", "shift+tab")
	h.TypeText("a fact for every project")
	h.Press("ctrl+s")
	res, err = h.Svc.List(context.Background(), storage.MemoryFilter{}, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Memories {
		if m.Content == "a fact for every project" && m.Project != "" {
			t.Fatalf("a cleared project field stored project %q", m.Project)
		}
	}

	// P: only the current project, then every project again.
	h.Press("P")
	if s := h.Screen(); !strings.Contains(s, "1 · recent memories · project "+project) || strings.Contains(s, "ops/deploy.sh") {
		t.Fatalf("P does not narrow the list to the current project:\n%s", s)
	}
	h.Press("P")
	if s := h.Screen(); !strings.Contains(s, "8 · recent memories · all projects") {
		t.Fatalf("P again does not show every project:\n%s", s)
	}
}

// TestRecallSelectionStaysPut: memories arriving above the selection
// neither move it to another memory nor move its row on screen.
func TestRecallSelectionStaysPut(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 80, Height: 12}) // 7 rows of memories
	remember := func(i int) {
		if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: fmt.Sprintf("note number %d of the day", i)},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		remember(i)
	}
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "16 · recent") })
	h.Press("G", "k", "k", "k")
	line := func(s, l string) int { return strings.Count(s[:strings.Index(s, l)], "\n") }
	before := tuitest.SelectedLine(h.Screen())
	row := line(h.Screen(), before)
	for i := range 3 {
		remember(10 + i)
		want := fmt.Sprintf("%d · 1", 17+i)
		if !h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), want) }) {
			t.Fatalf("no live refresh:\n%s", h.Screen())
		}
	}
	s := h.Screen()
	if got := tuitest.SelectedLine(s); got != before || line(s, got) != row {
		t.Fatalf("the selection moved from %q (line %d) to %q (line %d):\n%s", before, row, got, line(s, got), s)
	}
	if !strings.Contains(s, "3 new ↑ g") {
		t.Fatalf("no notice of the memories new above:\n%s", s)
	}
	h.Press("g")
	if s := h.Screen(); strings.Contains(s, "new ↑") || !strings.Contains(tuitest.SelectedLine(s), "note number 12") {
		t.Fatalf("g does not go to the newest memory:\n%s", s)
	}
}

// TestRecallBrowsePagesReachEveryMemory: browsing reads pages as the
// cursor goes down and G reads the last page, so the oldest memory of a
// long store is reachable without a search; the header counts them all.
func TestRecallBrowsePagesReachEveryMemory(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 80, Height: 24})
	for i := range 250 {
		if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: fmt.Sprintf("browsed note %03d", i)},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			t.Fatal(err)
		}
	}
	h.Press("esc", "g")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "256 · 1 of 256") })
	if s := h.Screen(); !strings.Contains(s, "256 · 1 of 256 · recent memories") {
		t.Fatalf("header:\n%s", s)
	}
	for range 8 {
		h.Press("ctrl+d") // 19 rows a page at 80x24
	}
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "153 of 256") })
	if s := h.Screen(); !strings.Contains(s, "153 of 256") || !strings.Contains(tuitest.SelectedLine(s), "browsed note") {
		t.Fatalf("paging down:\n%s", s)
	}
	h.Press("G")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "256 of 256") })
	if s := h.Screen(); !strings.Contains(s, "256 of 256") || !strings.Contains(tuitest.SelectedLine(s), "Flaky test") {
		t.Fatalf("G does not reach the oldest memory:\n%s", s)
	}
	h.Press("enter")
	if s := h.Screen(); !strings.Contains(s, "TestExportImportRoundTrip") {
		t.Fatalf("the oldest memory does not open:\n%s", s)
	}
}

// TestRecallMarkDeleteAndUndo: space marks rows, d asks once for all of
// them (pinned included), ctrl+z brings them back; Y copies the id.
func TestRecallMarkDeleteAndUndo(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 100, Height: 24})
	h.Press("esc", "g")
	h.SelectRow("use SQLite") // pinned
	h.Press("space")          // marks it, moves down
	h.SelectRow("prefers tabs")
	h.Press("space")
	if s := h.Screen(); !strings.Contains(s, "2 marked (d deletes, esc unmarks)") || strings.Count(s, "●") != 2 {
		t.Fatalf("marks:\n%s", s)
	}
	h.Press("d")
	if s := h.Screen(); !strings.Contains(s, "Delete the 2 marked memories? 1 pinned.") {
		t.Fatalf("d with marks does not ask for all:\n%s", s)
	}
	h.TypeText("cleanup")
	h.Press("enter")
	if !h.Get(tuitest.IDSQLite).IsDeleted || !h.Get(tuitest.IDTabs).IsDeleted {
		t.Fatal("the marked memories were not deleted")
	}
	if text, _ := h.M.Notice(); !strings.Contains(text, "deleted 2 memories · ctrl+z undoes") {
		t.Fatalf("notice %q", text)
	}
	h.Press("ctrl+z")
	if h.Get(tuitest.IDSQLite).IsDeleted || h.Get(tuitest.IDTabs).IsDeleted {
		t.Fatal("ctrl+z does not recover them")
	}
	h.Press("ctrl+z")
	if text, _ := h.M.Notice(); !strings.Contains(text, "nothing to undo") {
		t.Fatalf("a second undo: %q", text)
	}

	// A single delete is undone the same way.
	h.Press("g")
	h.SelectRow("HTTP API")
	h.Press("d", "enter")
	if !h.Get(tuitest.IDAPI).IsDeleted {
		t.Fatal("d + enter does not delete")
	}
	h.Press("ctrl+z")
	if h.Get(tuitest.IDAPI).IsDeleted {
		t.Fatal("ctrl+z does not recover a single delete")
	}

	h.Press("g")
	h.SelectRow("HTTP API")
	before := len(h.Sent)
	h.Press("Y")
	var copied bool
	for _, msg := range h.Sent[before:] {
		copied = copied || fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" && fmt.Sprint(msg) == tuitest.IDAPI
	}
	if text, _ := h.M.Notice(); !copied || !strings.Contains(text, "copied id "+pane.ShortID(tuitest.IDAPI)) {
		t.Fatalf("Y: clipboard %v, notice %q", copied, text)
	}
}
