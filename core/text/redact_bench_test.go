package text_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
)

// benchText is about 10 KB of what redaction sees on a write: transcript
// prose, code, commands, log lines and a few secrets.
var benchText = func() string {
	var b strings.Builder
	parts := []string{
		"User: the deploy failed again, can you look at the logs from last night?\n",
		"Assistant: Sure. The error says the connection to postgres://app:s3cr3tpw@db.internal:5432/app timed out after 30s.\n",
		"func (s *Service) Remember(ctx context.Context, in RememberInput, actor Actor) (*RememberResult, error) {\n",
		"\tif err := s.CheckFrozen(); err != nil {\n\t\treturn nil, err\n\t}\n",
		"2026-03-01T12:00:00.000Z INFO request served method=GET path=/api/memories status=200 ms=3\n",
		"export DEBUG=1\nexport DB_PASSWORD=hunter2hunter2\n",
		"fixed in commit 7457221c0a1b2c3d4e5f60718293a4b5c6d7e8f9, see https://github.com/cairnmem/cairn/pull/42\n",
		"curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk' https://api.example.com/v1/items\n",
		"The package provides a library for parsing configuration files written in TOML, with a small API.\n",
		"id 0193f4a2-7c1e-7b3a-9f00-123456789abc version 1.2.3-rc.1 path /usr/share/doc/cairn/README.md\n",
	}
	for b.Len() < 10<<10 {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	return b.String()
}()

func BenchmarkRedact(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		text.Redact(benchText)
	}
}
