package hooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/workers/llm"
)

func jsonl(prompts ...string) string {
	var lines []string
	for _, p := range prompts {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
		lines = append(lines, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Understood. Let me look at the code first, then I will make the change you asked for and run the tests."}]}}`)
	}
	return strings.Join(lines, "\n")
}

// A session is learned from at each compaction and periodically while it
// lasts, not only at its end; a transcript that cannot all be read is
// learned from as far as it can, with a warning in the session's record.
func TestLearningDuringTheSession(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.Continuity.PromptInterval = 2 })
	ctx := context.Background()
	learned := func() string {
		t.Helper()
		job, err := e.App.Jobs.Lease(ctx, "test", jobs.SessionExtract)
		if err != nil || job == nil {
			t.Fatalf("no learning job queued: %v", err)
		}
		if _, err := e.App.Pipeline.ProcessExtractJob(ctx, job, llm.NewHeuristic()); err != nil {
			t.Fatal(err)
		}
		var all []string
		rows, _ := e.RO.Query(`SELECT content FROM memories WHERE session_id = 's-l' AND is_deleted = 0`)
		for rows.Next() {
			var c string
			rows.Scan(&c)
			all = append(all, c)
		}
		rows.Close()
		return strings.Join(all, "\n")
	}
	base := func(extra map[string]any) map[string]any {
		extra["harness"], extra["cwd"], extra["session_id"] = "claude-code", projA, "s-l"
		return extra
	}
	// At a compaction: the shim sends the transcript so far.
	first := jsonl("We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.")
	r := e.Post(t, "/api/hooks/pre-compaction", base(map[string]any{"transcript": first})).Want(t, 200)
	if l, _ := r.JSON["learned"].(map[string]any); l == nil || l["queued"] != true {
		t.Fatalf("pre-compaction with a transcript: %s", r)
	}
	if got := learned(); !strings.Contains(got, "sqlc instead of gorm") {
		t.Fatalf("nothing learned at the compaction: %q", got)
	}
	// Periodically: the prompt hook asks for the transcript when a
	// periodic checkpoint falls due (every 2 prompts here).
	asked := 0
	for range 2 {
		if prompt(t, e, "s-l", "carry on with the invoices").Bool("learn") {
			asked++
		}
	}
	if asked != 1 {
		t.Fatalf("the prompt hook asked for the transcript %d times in 2 prompts, want 1", asked)
	}
	// The transcript so far, with a line that is not JSON and a binary one.
	second := first + "\n" + jsonl("We paginate with cursors from now on: keyset pagination on created_at and id, never OFFSET.") +
		"\n{not json\n\x00\x01\x02binary\n"
	r = e.Post(t, "/api/hooks/session-transcript", base(map[string]any{"transcript": second, "transcript_warning": "transcript: reading stopped after 12 bytes: input/output error"})).Want(t, 200)
	if r.Bool("queued") != true || !strings.Contains(r.Str("warning"), "unreadable lines left out") {
		t.Fatalf("session-transcript: %s", r)
	}
	got := learned()
	if !strings.Contains(got, "keyset pagination") || strings.Count(got, "sqlc instead of gorm") != 1 {
		t.Fatalf("learned so far:\n%s", got)
	}
	s := e.Get(t, "/api/sessions/s-l").Want(t, 200)
	if w := s.Str("transcript_warning"); !strings.Contains(w, "unreadable lines left out") || !strings.Contains(w, "input/output error") {
		t.Fatalf("the session's record has no warning: %q", w)
	}
	// Bad input names the field; nothing is stored.
	e.Post(t, "/api/hooks/session-transcript", base(map[string]any{})).WantInvalid(t, "transcript", "transcript is required")
	e.Post(t, "/api/hooks/session-transcript", map[string]any{"harness": "claude-code", "cwd": projA, "transcript": first}).WantInvalid(t, "session_id", "session")
}
