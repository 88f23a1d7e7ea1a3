package sessions_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// projA is the project the tests' sessions run in.
const projA = "/work/alpha"

// A session through the hooks: periodic checkpoints every N prompts, a
// pre-compaction checkpoint with what the harness said, the recovery
// digest after the compaction, what was injected and later used, and a
// score at the end, all shown by GET /api/sessions/{key}.
func TestSessionContinuity(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Continuity.PromptInterval = 3 })
	port := e.MustID(t, "Staging postgres listens on port 5433 behind pgbouncer", "project", projA)
	e.MustID(t, "The office plants are watered on Fridays", "project", projA)
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-42", projA
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	if st := hook("session-start", map[string]any{"source": "startup"}); !strings.Contains(st.Str("inject"), "5433") {
		t.Fatalf("the port memory was not injected: %s", st)
	}
	hook("user-prompt-submit", map[string]any{"prompt": "which port does staging postgres listen on?"})
	e.Clock.Advance(time.Minute)
	hook("user-prompt-submit", map[string]any{"prompt": "connect pgbouncer to staging postgres on 5433 with token sk-live-abcdefghijklmnopqrstuvwx"})
	hook("remember", map[string]any{"content": "pgbouncer pool size on staging is 40"})
	hook("recall", map[string]any{"query": "pgbouncer pool"})
	e.Clock.Advance(time.Minute)
	hook("user-prompt-submit", map[string]any{"prompt": "now write the migration for the invoices table"})

	s := e.Get(t, "/api/sessions/s-42").Want(t, 200)
	cont := s.JSON["continuity"].(map[string]any)
	cps := cont["checkpoints"].([]any)
	if len(cps) != 1 {
		t.Fatalf("one periodic checkpoint after 3 prompts: %v", cps)
	}
	cp := cps[0].(map[string]any)
	digest := cp["digest"].(string)
	if cp["trigger"] != "periodic" || !strings.Contains(digest, "invoices table") || !strings.Contains(digest, "pgbouncer pool size") ||
		strings.Contains(digest, "sk-live-abcdefghijklmnopqrstuvwx") || cp["prompt_count"] != float64(3) {
		t.Fatalf("periodic checkpoint: %v", cp)
	}

	e.Clock.Advance(time.Minute)
	pre := hook("pre-compaction", map[string]any{"summary": "We were wiring pgbouncer for staging; next: the invoices migration"})
	if pre.Str("checkpointId") == "" {
		t.Fatalf("pre-compaction: %s", pre)
	}
	e.Clock.Advance(time.Minute)
	start := hook("session-start", map[string]any{"source": "compact"})
	inj := start.Str("inject")
	rec := strings.Index(inj, "Session Recovery")
	if !start.Bool("recovered") || rec < 0 || !strings.Contains(inj, "next: the invoices migration") ||
		(strings.Contains(inj, "Relevant Memories") && strings.Index(inj, "Relevant Memories") < rec) {
		t.Fatalf("the recovery digest opens the inject after a compaction: %s", inj)
	}
	if plain := hook("session-start", map[string]any{"source": "startup"}); plain.Bool("recovered") {
		t.Fatal("a fresh start gets no recovery digest")
	}

	end := hook("session-end", map[string]any{"transcript": "User: thanks, pgbouncer on 5433 works now\nAssistant: done"})
	if end.Num("continuityScore") <= 0 {
		t.Fatalf("session end score: %s", end)
	}
	s = e.Get(t, "/api/sessions/s-42").Want(t, 200)
	cont = s.JSON["continuity"].(map[string]any)
	score := cont["score"].(map[string]any)
	if score["method"] != "heuristic" || score["memories_used"].(float64) < 1 {
		t.Fatalf("score: %v", score)
	}
	var portRow map[string]any
	for _, m := range cont["memories"].([]any) {
		if row := m.(map[string]any); row["memory_id"] == port {
			portRow = row
		}
	}
	if portRow == nil || portRow["uses"].(float64) < 2 || portRow["relevance"] != float64(1) {
		t.Fatalf("the port memory was used: %v", portRow)
	}
	if n := len(cont["checkpoints"].([]any)); n < 3 {
		t.Fatalf("periodic, pre-compaction and session-end checkpoints: %d", n)
	}

	x := e.Post(t, "/api/sessions/s-42/checkpoints", map[string]any{"trigger": "agent", "note": "about to refactor the pool config"}).Want(t, 201)
	if x.Str("trigger") != "agent" {
		t.Fatalf("agent checkpoint: %s", x)
	}
	e.Post(t, "/api/sessions/s-42/checkpoints", map[string]any{"trigger": "periodic"}).WantInvalid(t, "trigger", "explicit or agent")
	e.Post(t, "/api/sessions/nope/checkpoints", map[string]any{}).WantErr(t, 404, "not_found")
}

// Checkpoints within 2.5 s merge; a session keeps its newest N.
func TestCheckpointMergeAndCap(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Continuity.MaxCheckpointsPerSession = 3 })
	e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_id": "s-1", "cwd": projA}).Want(t, 200)
	for i := range 6 {
		e.Post(t, "/api/sessions/s-1/checkpoints", map[string]any{"note": fmt.Sprintf("note %d", i)}).Want(t, 201)
		if i%2 == 1 {
			e.Clock.Advance(10 * time.Second)
		} else {
			e.Clock.Advance(time.Second) // the next one merges into this one
		}
	}
	cps := e.Get(t, "/api/sessions/s-1").JSON["continuity"].(map[string]any)["checkpoints"].([]any)
	if len(cps) != 3 {
		t.Fatalf("6 checkpoints, pairs merged, cap 3: %d", len(cps))
	}
	if d := cps[0].(map[string]any)["digest"].(string); !strings.Contains(d, "note 5") {
		t.Fatalf("newest first, merged: %s", d)
	}
}

// A remember may carry the session's transcript (docs/design/pipeline.md,
// "Session transcripts"): stored as session end stores it, extraction
// queued, the session not ended.
func TestRememberWithTranscript(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	before := e.State(t)
	e.Post(t, "/api/memory/remember", map[string]any{"content": "we pinned numpy to 1.26", "transcript": "User: pin numpy"}).
		WantInvalid(t, "session_id", "session")
	e.Unchanged(t, before)
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "we pinned numpy to 1.26", "session_id": "s-9", "harness": "codex",
		"transcript": "User: pin numpy to 1.26, the 2.x wheels break the build\nAssistant: pinned in requirements.txt"}).Want(t, 200)
	if r.Num("transcript_chars") == 0 || r.Str("id") == "" {
		t.Fatalf("remember with a transcript: %s", r)
	}
	s := e.Get(t, "/api/sessions/s-9").Want(t, 200)
	if s.Num("transcript_chars") == 0 || s.Str("ended_at") != "" || s.Str("harness") != "codex" {
		t.Fatalf("session: %s", s)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE job_type = 'session_extract'`); n != 1 {
		t.Fatalf("extraction jobs: %d", n)
	}
}
