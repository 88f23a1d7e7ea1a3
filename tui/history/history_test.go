// Tests of the History pane, driven through the shell as a person uses it.
package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

func TestHistoryFilterAndDiff(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	c := "postgres runs on port 5433 in staging; production uses 5432 too"
	if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &c, Reason: "clarify"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
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

// TestHistoryFiltersAsYouType: the filter applies after the debounce,
// without enter, and the header names the filter of the events shown
// (not what is typed but not yet applied).
func TestHistoryFiltersAsYouType(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	c := "postgres runs on port 5433 in staging; production uses 5432 too"
	if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &c, Reason: "clarify"}, core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "7 events") })
	h.Press("/")
	var last tea.Cmd
	for _, r := range "event:updated" {
		_, last = h.M.Update(tuitest.KeyPress(string(r))) // typed, the debounce not run yet
	}
	if s := h.Screen(); !strings.Contains(s, "7 events, newest first") || strings.Contains(s, "event=updated") {
		t.Fatalf("the header names a filter before it applies:\n%s", s)
	}
	h.Run(last) // the last keystroke's debounce fires; no enter
	if s := h.Screen(); !strings.Contains(s, "1 events, newest first · event=updated") || !h.M.Pane(1).Capturing() {
		t.Fatalf("the filter does not apply as you type:\n%s", s)
	}

	// A bare word is free text over content, reason and actor.
	h.Press("ctrl+u")
	h.TypeText("VPN")
	if s := h.Screen(); !strings.Contains(s, `1 events, newest first · text="VPN"`) || !strings.Contains(s, "0000a004") {
		t.Fatalf("a bare word is not a text filter:\n%s", s)
	}
	h.Press("ctrl+u")
	h.TypeText("clarify")
	if s := h.Screen(); !strings.Contains(s, "1 events") || !strings.Contains(s, "claude-code") {
		t.Fatalf("a word of the reason:\n%s", s)
	}

	// mem: takes the short id the list shows, or its start.
	h.Press("ctrl+u")
	h.TypeText("mem:0000a001")
	if s := h.Screen(); !strings.Contains(s, "2 events, newest first · memory=0000a001…") {
		t.Fatalf("mem: with the short id:\n%s", s)
	}
	h.Press("ctrl+u")
	h.TypeText("mem:0000a00")
	if s := h.Screen(); !strings.Contains(s, "7 events") {
		t.Fatalf("mem: with the start of a short id:\n%s", s)
	}
	h.Press("enter")
	if h.M.Pane(1).Capturing() {
		t.Fatal("enter does not leave the filter box")
	}
}

// TestHistorySelectionStaysOnItsEvent: events arriving above the
// selection neither move it to another event nor move its row on screen.
func TestHistorySelectionStaysOnItsEvent(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 80, Height: 12}) // 7 rows of events
	remember := func(i int) {
		if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: fmt.Sprintf("event number %d of the day", i)},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		remember(i)
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "16 events") })
	h.Press("G", "k", "k", "k") // scrolled, the selection mid-screen
	line := func(s, l string) int { return strings.Count(s[:strings.Index(s, l)], "\n") }
	before := tuitest.SelectedLine(h.Screen())
	row := line(h.Screen(), before)
	for i := range 3 {
		remember(10 + i)
		want := fmt.Sprintf("%d events", 17+i)
		if !h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), want) }) {
			t.Fatalf("no live refresh:\n%s", h.Screen())
		}
	}
	s := h.Screen()
	if got := tuitest.SelectedLine(s); got != before || line(s, got) != row {
		t.Fatalf("the selection moved from %q (line %d) to %q (line %d):\n%s", before, row, got, line(s, got), s)
	}
	// The arrivals are said, and g goes up to see them.
	if !strings.Contains(s, "3 new ↑ g") {
		t.Fatalf("no notice of the events new above:\n%s", s)
	}
	h.Press("g")
	if s := h.Screen(); strings.Contains(s, "new ↑") || !strings.Contains(tuitest.SelectedLine(s), "event number 12") {
		t.Fatalf("g does not go to the newest event:\n%s", s)
	}
}

// TestHistoryPagesReachEveryEvent: the list reads pages as the cursor
// goes down, G reads the last page, and the oldest event is reachable.
func TestHistoryPagesReachEveryEvent(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 80, Height: 24})
	for i := range 260 {
		if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: fmt.Sprintf("paged event number %03d", i)},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			t.Fatal(err)
		}
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "266 events") })
	if s := h.Screen(); !strings.Contains(s, "266 events, newest first · 1 of 266") {
		t.Fatalf("header:\n%s", s)
	}
	// Page down past the first page: the rows below are read as needed.
	for range 10 {
		h.Press("ctrl+d") // 19 rows a page at 80x24
	}
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "191 of 266") })
	if s := h.Screen(); !strings.Contains(s, "191 of 266") || !strings.Contains(tuitest.SelectedLine(s), "claude-code") {
		t.Fatalf("paging down:\n%s", s)
	}
	h.Press("G")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "266 of 266") })
	if s := h.Screen(); !strings.Contains(s, "266 of 266") || !strings.Contains(tuitest.SelectedLine(s), "0000a001") {
		t.Fatalf("G does not reach the oldest event:\n%s", s)
	}
	h.Press("g")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "1 of 266") })
	if s := h.Screen(); !strings.Contains(tuitest.SelectedLine(s), "claude-code") {
		t.Fatalf("g does not come back to the newest:\n%s", s)
	}
}

// goldenViews are the History pane's pinned states (shelltest.Golden).
var goldenViews = []shelltest.View{
	{Name: "history-list", Setup: func(h *shelltest.Harness) { h.Press("2") }},
	{Name: "history-oldest-first", Setup: func(h *shelltest.Harness) { h.Press("2", "o") }},
	{Name: "history-diff", Setup: func(h *shelltest.Harness) {
		c := "postgres runs on port 5433 in staging\nproduction uses the default 5432"
		if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &c, Reason: "split into two lines"},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			h.T.Fatal(err)
		}
		h.Press("2")
		h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "7 events") })
		h.Press("g", "enter")
	}},
}

func TestGolden(t *testing.T) { shelltest.Golden(t, goldenViews) }

// TestHistorySortOldestFirst: o orders the events oldest first (the
// header says so, the filter stays, every event is reachable); events
// that arrive then come last: followed on the last row, counted ("N new
// ↓ G") elsewhere, and G goes to them. o again is newest first.
func TestHistorySortOldestFirst(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 80, Height: 24})
	remember := func(content string) {
		if _, err := h.Svc.Remember(context.Background(), core.RememberInput{Content: content},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 260 {
		remember(fmt.Sprintf("sorted event number %03d", i))
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "266 events") })
	h.Press("o")
	s := h.Screen()
	if !strings.Contains(s, "266 events, oldest first · 1 of 266") || !strings.Contains(tuitest.SelectedLine(s), "0000a001") {
		t.Fatalf("o does not order the events oldest first:\n%s", s)
	}
	// Down the list, pages are read in this order too; G reaches the
	// newest event.
	for range 10 {
		h.Press("ctrl+d")
	}
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "191 of 266") })
	if s := h.Screen(); !strings.Contains(tuitest.SelectedLine(s), "sorted event number 184") {
		t.Fatalf("paging down oldest first:\n%s", s)
	}
	h.Press("G")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "266 of 266") })
	if s := h.Screen(); !strings.Contains(tuitest.SelectedLine(s), "sorted event number 259") {
		t.Fatalf("G does not reach the newest event:\n%s", s)
	}

	// On the last row, an event that arrives is followed.
	remember("an event that arrives late")
	if !h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "267 of 267") }) {
		t.Fatalf("the last row does not follow the new event:\n%s", h.Screen())
	}
	if s := h.Screen(); !strings.Contains(tuitest.SelectedLine(s), "an event that arrives") || strings.Contains(s, "new ↓") {
		t.Fatalf("following the end:\n%s", s)
	}
	// Scrolled up, arrivals are counted below and the selection stays.
	h.Press("ctrl+u", "ctrl+u")
	before := tuitest.SelectedLine(h.Screen())
	remember("one more late")
	remember("and another late")
	if !h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "2 new ↓ G") }) {
		t.Fatalf("no notice of the events new below:\n%s", h.Screen())
	}
	if s := h.Screen(); tuitest.SelectedLine(s) != before || !strings.Contains(s, "of 269") || strings.Contains(s, "new ↑") {
		t.Fatalf("the selection moved from %q or the total is wrong:\n%s", before, s)
	}
	h.Press("G")
	if s := h.Screen(); !strings.Contains(s, "269 of 269") || strings.Contains(s, "new ↓") || !strings.Contains(tuitest.SelectedLine(s), "and another late") {
		t.Fatalf("G does not go to the new events:\n%s", s)
	}

	// Scrolled far from a loaded end (g reads the first page again), the
	// total still tells what arrived below.
	h.Press("g")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "1 of 269") })
	remember("far below the window")
	if !h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "1 new ↓ G") }) {
		t.Fatalf("no notice of an event new below an unloaded end:\n%s", h.Screen())
	}
	if s := h.Screen(); !strings.Contains(s, "1 of 270") || !strings.Contains(tuitest.SelectedLine(s), "0000a001") {
		t.Fatalf("after an arrival below an unloaded end:\n%s", s)
	}

	// The filter stays across orders; o again is newest first.
	h.Press("/")
	h.TypeText("event:created")
	h.Press("enter", "o")
	if s := h.Screen(); !strings.Contains(s, "270 events, newest first · 1 of 270 · event=created") || !strings.Contains(tuitest.SelectedLine(s), "far below the window") {
		t.Fatalf("o back to newest first with the filter:\n%s", s)
	}
	h.Press("o")
	if s := h.Screen(); !strings.Contains(s, "270 events, oldest first · 1 of 270 · event=created") || !strings.Contains(tuitest.SelectedLine(s), "0000a001") {
		t.Fatalf("the filter does not stay across orders:\n%s", s)
	}
}
