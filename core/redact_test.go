package core_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
)

func TestRedactEachKind(t *testing.T) {
	cases := []struct{ name, in, secret, kind string }{
		{"openai", "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234 here", "sk-proj-AbCdEf", "openai_key"},
		{"openai legacy", "OPENAI sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sk-AbCd", "openai_key"},
		{"anthropic", "use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz", "sk-ant-api03", "anthropic_key"},
		{"github classic", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghp_AbCd", "github_token"},
		{"github pat", "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz", "github_pat_11", "github_token"},
		{"aws", "aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"},
		{"slack", "xoxb-123456789012-abcdefghijkl", "xoxb-1234", "slack_token"},
		{"google", "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345", "AIzaSyA", "google_api_key"},
		{"bearer", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abcdefghijk'", "eyJhbGciOiJIUzI1NiJ9", "bearer_token"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter", "b3BlbnNzaC1rZXkt", "private_key"},
		{"url password", "postgres://admin:s3cr3tpw@db.internal:5432/app", "s3cr3tpw", "url_password"},
		{"env line", "DEBUG=1\nSTRIPE_SECRET_KEY=rk_live_abc123\nexport DB_PASSWORD='p@ss w0rd'\n", "rk_live_abc123", "env_secret"},
		{"inline", "the db password: hunter2hunter2 works", "hunter2hunter2", "inline_secret"},
		{"high entropy", "token value Zx8Qm2Lk9Vb4Nc7Rt1Yp6Wd3Hs5Gf0Ja2Ke", "Zx8Qm2Lk9Vb4", "high_entropy"},
	}
	for _, c := range cases {
		out, n := core.Redact(c.in)
		if n == 0 || strings.Contains(out, c.secret) || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: %q -> %q (%d)", c.name, c.in, out, n)
		}
		if !strings.Contains(out, "[REDACTED:"+c.kind+"]") && !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: kind %s not named: %q", c.name, c.kind, out)
		}
	}
	// What is kept.
	out, _ := core.Redact("postgres://admin:s3cr3tpw@db.internal:5432/app")
	if out != "postgres://admin:[REDACTED:url_password]@db.internal:5432/app" {
		t.Errorf("url: %q", out)
	}
	out, _ = core.Redact("DEBUG=1\nSTRIPE_SECRET_KEY=rk_live_abc123\nexport DB_PASSWORD='p@ss w0rd'\n")
	if out != "DEBUG=1\nSTRIPE_SECRET_KEY=[REDACTED:env_secret]\nexport DB_PASSWORD=[REDACTED:env_secret]\n" {
		t.Errorf("env: %q", out)
	}
	// Ordinary text, hashes, UUIDs and paths are left alone.
	for _, s := range []string{
		"we use sqlite with WAL; see core/recall.go line 120",
		"commit 7457221c0a1b2c3d4e5f60718293a4b5c6d7e8f9 fixed it",
		"id 0193f4a2-7c1e-7b3a-9f00-123456789abc",
		"KEYBOARD_LAYOUT=us",
		"the monkey=banana rule",
	} {
		if out, n := core.Redact(s); n != 0 || out != s {
			t.Errorf("false positive: %q -> %q", s, out)
		}
	}
}

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
