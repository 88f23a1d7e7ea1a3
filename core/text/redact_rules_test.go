package text_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
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
		out, n := text.Redact(c.in)
		if n == 0 || strings.Contains(out, c.secret) || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: %q -> %q (%d)", c.name, c.in, out, n)
		}
		if !strings.Contains(out, "[REDACTED:"+c.kind+"]") && !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: kind %s not named: %q", c.name, c.kind, out)
		}
	}
	// What is kept.
	out, _ := text.Redact("postgres://admin:s3cr3tpw@db.internal:5432/app")
	if out != "postgres://admin:[REDACTED:url_password]@db.internal:5432/app" {
		t.Errorf("url: %q", out)
	}
	out, _ = text.Redact("DEBUG=1\nSTRIPE_SECRET_KEY=rk_live_abc123\nexport DB_PASSWORD='p@ss w0rd'\n")
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
		if out, n := text.Redact(s); n != 0 || out != s {
			t.Errorf("false positive: %q -> %q", s, out)
		}
	}
}
