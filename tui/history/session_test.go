package history_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
)

// TestHistorySessionView: an event made in an agent session opens that
// session (s): its score and method, the memories it was offered with
// rank, score, uses and relevance, and its checkpoints.
func TestHistorySessionView(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{})
	ctx := context.Background()
	hk := h.App.Hooks
	req := hooks.Request{Harness: "claude-code", SessionKey: "s-tui", Project: "cairn"}
	if _, err := hk.SessionStart(ctx, req); err != nil {
		t.Fatal(err)
	}
	p := req
	p.Prompt = "which port does postgres run on in staging?"
	if _, err := hk.UserPrompt(ctx, p); err != nil {
		t.Fatal(err)
	}
	r := req
	r.Content = "pgbouncer sits in front of the staging postgres on port 6432"
	if _, err := hk.Remember(ctx, r); err != nil {
		t.Fatal(err)
	}
	e := req
	e.Transcript = "User: postgres on 5433 in staging works through pgbouncer"
	if _, err := hk.SessionEnd(ctx, e); err != nil {
		t.Fatal(err)
	}
	h.Press("2")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "pgbouncer sits") })
	h.Press("/")
	h.TypeText("actor:claude-code")
	h.Press("enter")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "actor=claude-code") })
	h.Press("s")
	h.PumpUntil(2*time.Second, func() bool { return strings.Contains(h.Screen(), "session s-tui") })
	s := h.Screen()
	for _, want := range []string{"session s-tui · claude-code · cairn", "Score ", "heuristic", "Memories offered", "relevance", "session_start", "Checkpoints (1, newest first)"} {
		if !strings.Contains(s, want) {
			t.Fatalf("session view lacks %q:\n%s", want, s)
		}
	}
	h.Press("esc")
	if strings.Contains(h.Screen(), "session s-tui") {
		t.Fatalf("esc closes the session view:\n%s", h.Screen())
	}
}
