package core_test

import (
	"strings"
	"testing"
)

func TestRedactionCounterAndHookPaths(t *testing.T) {
	e := newEnv(t)
	if e.svc.RedactionCount() != 0 {
		t.Fatal("counter not zero")
	}
	r := e.post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "deploy key is ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 for ci", "project": projA}).want(t, 200)
	if got := e.get(t, "/api/memory/"+r.str("id")).str("content"); strings.Contains(got, "ghp_") || !strings.Contains(got, "[REDACTED:github_token]") {
		t.Fatalf("stored: %q", got)
	}
	if e.svc.RedactionCount() != 1 {
		t.Fatalf("count = %d", e.svc.RedactionCount())
	}
	// Another write path redacts at storage too (and injection redacts
	// again, for memories stored before redaction existed).
	e.mem(t, "the ci deploy token is xoxb-123456789012-abcdefghijkl", map[string]any{"project": projA})
	inj := e.post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": projA, "prompt": "what is the ci deploy token"}).want(t, 200).str("inject")
	if strings.Contains(inj, "xoxb-") || !strings.Contains(inj, "[REDACTED:slack_token]") {
		t.Fatalf("inject: %q", inj)
	}
	inj = e.post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA}).want(t, 200).str("inject")
	if strings.Contains(inj, "xoxb-") {
		t.Fatalf("session-start inject: %q", inj)
	}
	e.post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "r1", "transcript": "User: my key is AKIAIOSFODNN7EXAMPLE"}).want(t, 200)
	if tr := e.get(t, "/api/sessions/r1").str("transcript"); strings.Contains(tr, "AKIA") {
		t.Fatalf("transcript: %q", tr)
	}
	if e.svc.RedactionCount() < 3 {
		t.Fatalf("count = %d", e.svc.RedactionCount())
	}
}

// Every write path redacts: the API's remember and PATCH too, not only hooks.
func TestRememberAndModifyRedact(t *testing.T) {
	e := newEnv(t)
	r := e.post(t, "/api/memory/remember", map[string]any{"content": "the staging key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 for now"}).want(t, 200)
	if c := r.str("content"); strings.Contains(c, "sk-proj-") || !strings.Contains(c, "[REDACTED") {
		t.Fatalf("remember stored a secret: %q", c)
	}
	id := r.str("id")
	e.patch(t, id, map[string]any{"reason": "t", "content": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB rotated"}).want(t, 200)
	if c := e.get(t, "/api/memory/"+id).str("content"); strings.Contains(c, "ghp_") {
		t.Fatalf("patch stored a secret: %q", c)
	}
}
