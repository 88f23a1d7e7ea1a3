package core_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// projA is the project the tests' sessions run in.
const projA = "/work/alpha"

func TestRedactionCounterAndHookPaths(t *testing.T) {
	e := apitest.NewEnv(t)
	if e.Svc.Redactor().Count() != 0 {
		t.Fatal("counter not zero")
	}
	r := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "deploy key is ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 for ci", "project": projA}).Want(t, 200)
	if got := e.Get(t, "/api/memory/"+r.Str("id")).Str("content"); strings.Contains(got, "ghp_") || !strings.Contains(got, "[REDACTED:github_token]") {
		t.Fatalf("stored: %q", got)
	}
	if e.Svc.Redactor().Count() != 1 {
		t.Fatalf("count = %d", e.Svc.Redactor().Count())
	}
	// Another write path redacts at storage too (and injection redacts
	// again, for memories stored before redaction existed).
	e.Mem(t, "the ci deploy token is xoxb-123456789012-abcdefghijkl", map[string]any{"project": projA})
	inj := e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": projA, "prompt": "what is the ci deploy token"}).Want(t, 200).Str("inject")
	if strings.Contains(inj, "xoxb-") || !strings.Contains(inj, "[REDACTED:slack_token]") {
		t.Fatalf("inject: %q", inj)
	}
	inj = e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA}).Want(t, 200).Str("inject")
	if strings.Contains(inj, "xoxb-") {
		t.Fatalf("session-start inject: %q", inj)
	}
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "r1", "transcript": "User: my key is AKIAIOSFODNN7EXAMPLE"}).Want(t, 200)
	if tr := e.Get(t, "/api/sessions/r1").Str("transcript"); strings.Contains(tr, "AKIA") {
		t.Fatalf("transcript: %q", tr)
	}
	if e.Svc.Redactor().Count() < 3 {
		t.Fatalf("count = %d", e.Svc.Redactor().Count())
	}
}

// Every write path redacts: the API's remember and PATCH too, not only hooks.
func TestRememberAndModifyRedact(t *testing.T) {
	e := apitest.NewEnv(t)
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "the staging key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 for now"}).Want(t, 200)
	if c := r.Str("content"); strings.Contains(c, "sk-proj-") || !strings.Contains(c, "[REDACTED") {
		t.Fatalf("remember stored a secret: %q", c)
	}
	id := r.Str("id")
	e.Patch(t, id, map[string]any{"reason": "t", "content": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB rotated"}).Want(t, 200)
	if c := e.Get(t, "/api/memory/"+id).Str("content"); strings.Contains(c, "ghp_") {
		t.Fatalf("patch stored a secret: %q", c)
	}
}

// Ordinary text shaped like "name-with-private: prose" was stored as
// "name-with-private: [REDACTED:env_secret]" and such lines then
// collapsed as duplicates. Through the real write paths they are stored
// as written, each its own memory; the secrets of issue 15 are not.
func TestRedactionPrecisionThroughWrites(t *testing.T) {
	e := apitest.NewEnv(t)
	lines := []string{
		"qttools5-private-dev: Use at your own risk.",
		"libkf5akonadiprivate-dev: Use at your own risk.",
		"qtbase5-private-dev: This package contains private header development files.",
	}
	ids := map[string]bool{}
	for i, l := range lines {
		path, body := "/api/memory/remember", map[string]any{"content": l}
		if i%2 == 1 {
			path, body = "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": l}
		}
		id := e.Post(t, path, body).Want(t, 200).Str("id")
		if got := e.Get(t, "/api/memory/"+id).Str("content"); got != l {
			t.Fatalf("stored %q as %q", l, got)
		}
		ids[id] = true
	}
	if len(ids) != len(lines) || e.Svc.Redactor().Count() != 0 {
		t.Fatalf("%d memories for %d lines, %d redactions", len(ids), len(lines), e.Svc.Redactor().Count())
	}
	for _, c := range []struct{ in, secret string }{
		{"run it with PGPASSWORD=hunter2 psql -h db app", "hunter2"},
		{"the cache is redis://:r3dis-pa55@cache.internal:6379/0", "r3dis-pa55"},
		{"mysql -u root -pSup3rS3cret shop", "Sup3rS3cret"},
		{"the password is Tr0ub4dor&3 for now", "Tr0ub4dor&3"},
	} {
		id := e.Post(t, "/api/memory/remember", map[string]any{"content": c.in}).Want(t, 200).Str("id")
		if got := e.Get(t, "/api/memory/"+id).Str("content"); strings.Contains(got, c.secret) || !strings.Contains(got, "[REDACTED:") {
			t.Fatalf("stored a secret: %q", got)
		}
	}
}
