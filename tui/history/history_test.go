// Tests of the History pane, driven through the shell as a person uses it.
package history_test

import (
	"context"
	"strings"
	"testing"
	"time"

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

// goldenViews are the History pane's pinned states (shelltest.Golden).
var goldenViews = []shelltest.View{
	{Name: "history-list", Setup: func(h *shelltest.Harness) { h.Press("2") }},
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
