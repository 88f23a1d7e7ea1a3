package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// TestSessionEndNeverOpensAPath: any local caller could name a file in
// transcript_path and read it back through GET /api/sessions/{key} (a
// .netrc came back intact), or name /dev/zero and pin a core. The server
// no longer opens paths: the session is recorded without a transcript and
// the answer says so.
func TestSessionEndNeverOpensAPath(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	secret := filepath.Join(t.TempDir(), ".netrc")
	const password = "correct-horse-battery-staple-42"
	if err := os.WriteFile(secret, []byte("machine example.com login me password "+password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for key, path := range map[string]string{"steal": secret, "spin": "/dev/zero", "home": "~/.netrc"} {
		r := e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": key, "transcript_path": path}).Want(t, 200)
		if r.Str("transcript") != "not sent" || r.Num("transcriptChars") != 0 || !strings.Contains(r.Str("warning"), "transcript_path is not read") {
			t.Fatalf("session-end with only a path: %s", r)
		}
		s := e.Get(t, "/api/sessions/"+key).Want(t, 200)
		if strings.Contains(string(s.Raw), password) || strings.Contains(string(s.Raw), "machine example.com") || s.Num("transcript_chars") != 0 {
			t.Fatalf("the session serves the file back: %s", s)
		}
		if s.Str("ended_at") == "" {
			t.Fatalf("the session end was not recorded: %s", s)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM session_transcripts`); n != 0 {
		t.Fatalf("%d transcripts stored from paths", n)
	}
}
