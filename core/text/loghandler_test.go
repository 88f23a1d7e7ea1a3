package text

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// No credential reaches a log line through RedactLogs: not in the
// message, a string, an error, a group, a value printed with %v, or an
// attribute added with With.
func TestRedactLogs(t *testing.T) {
	const gh = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	var buf bytes.Buffer
	log := slog.New(RedactLogs(slog.NewTextHandler(&buf, nil)))
	log.With("actor", "ci token="+gh).WithGroup("req").Info("fetch https://admin:hunter2pw@db.example/app failed",
		"url", "https://example.com/p?access_token="+gh,
		"err", errors.New(`Get "https://u:hunter2pw@example.com/": refused`),
		slog.Group("g", "dsn", "postgres://admin:hunter2pw@db/app"),
		"any", []string{"token=" + gh},
		"n", 3)
	out := buf.String()
	for _, secret := range []string{gh, "hunter2pw"} {
		if strings.Contains(out, secret) {
			t.Fatalf("%s reached the log:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"db.example/app", "example.com/p", "req.n=3", "refused"} {
		if !strings.Contains(out, kept) {
			t.Errorf("the line lost %q:\n%s", kept, out)
		}
	}
}
