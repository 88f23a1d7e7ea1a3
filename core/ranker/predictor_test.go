package ranker_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/storage"
)

// projA is the project the tests' sessions run in.
const projA = "/work/alpha"

// plantSessions stores n scored sessions whose session-start offers carry
// a planted signal: the decisions, ranked last by the baseline (lower
// importance), are the relevant ones; or, with inverted, the baseline's
// first ones are.
func plantSessions(t *testing.T, e *apitest.Env, prefix string, n int, inverted bool) {
	t.Helper()
	for s := range n {
		key := fmt.Sprintf("%s-%d", prefix, s)
		at := storage.FormatTime(e.Clock.Now())
		e.Exec(t, `INSERT INTO session_scores (session_key, harness, score, confidence, memories_recalled, memories_used, method, created_at)
			VALUES (?, 'claude-code', 0.5, 0.5, 10, 3, 'heuristic', ?)`, key, at)
		for r := range 10 {
			decision := r >= 7
			x := make([]float64, len(ranker.FeatureNames))
			imp := 0.9 - 0.02*float64(r)
			if decision {
				imp = 0.5 - 0.02*float64(r-7)
			}
			x[0], x[5], x[6], x[7], x[11], x[12], x[13] = 1, imp, imp, 1, 1, 1/float64(1+r), imp
			rel := 0.0
			if decision != inverted && (!inverted || r < 3) {
				rel = 1
			}
			if (s+r)%5 == 0 { // noise: the odd decision without signal
				x[9] = 0
			} else if decision {
				x[9] = 1
			}
			b, _ := json.Marshal(x)
			e.Exec(t, `INSERT INTO session_memories (session_key, memory_id, source, rank, score, was_injected, relevance, features,
				offer_group, created_at, updated_at) VALUES (?, ?, 'session_start', ?, ?, 1, ?, ?, 0, ?, ?)`,
				key, fmt.Sprintf("m-%s-%d", key, r), r, imp, rel, string(b), at, at)
		}
		e.Clock.Advance(time.Minute)
	}
}

// startIDs are the memory ids a session start injected, and its ranker
// note.
func startIDs(t *testing.T, e *apitest.Env, session string) ([]string, map[string]any) {
	t.Helper()
	r := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_id": session, "cwd": projA}).Want(t, 200)
	var ids []string
	for _, m := range r.List(t, "memories") {
		ids = append(ids, m["id"].(string))
	}
	note, _ := r.JSON["ranker"].(map[string]any)
	return ids, note
}

// The learned ranker learns a planted signal from scored sessions (the
// decisions, which the baseline ranks last, are the memories sessions
// used), beats the baseline on held-out sessions, reports it, and re-ranks
// session start; when later sessions show the opposite, the drift check
// puts the baseline order back.
func TestPredictorLearnsAndFallsBack(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) {
		c.Predictor.Enabled, c.Predictor.MinSessions, c.Predictor.RetrainEvery = true, 20, 1000
	})
	var decisions []string
	for i := range 20 {
		e.MustID(t, fmt.Sprintf("Routine note %d about the build server: the nightly job compiles every module, runs the whole test suite and uploads the artifacts to the cache bucket", i),
			"project", projA, "importance", 0.9)
	}
	for i := range 3 {
		decisions = append(decisions, e.MustID(t, fmt.Sprintf("Decision %d: we chose to keep the build cache in a separate bucket in another region, so that a purge of one region never empties the cache of the others", i),
			"project", projA, "importance", 0.5, "type", "decision"))
	}
	baseline, note := startIDs(t, e, "cold")
	if note != nil {
		t.Fatalf("cold start: no model, no ranker note: %v", note)
	}
	if slices.ContainsFunc(decisions, func(id string) bool { return slices.Contains(baseline, id) }) {
		t.Fatalf("the baseline (importance first) should leave the decisions out of the budget: %v", baseline)
	}
	st := e.Get(t, "/api/pipeline/status").Want(t, 200).JSON["predictor"].(map[string]any)
	if st["active"] != false || !strings.Contains(st["reason"].(string), "cold start") {
		t.Fatalf("status before training: %v", st)
	}

	plantSessions(t, e, "train", 24, false)
	ps, err := e.App.Predictor.Train(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ps.TrainedSessions != 24 || ps.Holdout.Sessions != 6 || ps.Holdout.NDCGModel <= ps.Holdout.NDCGBaseline || !ps.Active {
		t.Fatalf("trained on the planted signal: %+v", ps)
	}
	st = e.Get(t, "/api/pipeline/status").Want(t, 200).JSON["predictor"].(map[string]any)
	if st["active"] != true || st["trained_sessions"] != float64(24) {
		t.Fatalf("status after training: %v", st)
	}
	learned, note := startIDs(t, e, "warm")
	if note == nil || note["active"] != true {
		t.Fatalf("ranker note: %v", note)
	}
	for _, d := range decisions {
		if !slices.Contains(learned, d) {
			t.Fatalf("the active model injects the decisions: %v", learned)
		}
	}
	if b := apitest.Strs(note["baseline"]); !slices.Equal(b, baseline) {
		t.Fatalf("the note's baseline is the baseline's choice: %v vs %v", b, baseline)
	}

	// Sessions scored since show the opposite: the moving NDCG drops below
	// the baseline's and the baseline order is back.
	plantSessions(t, e, "drift", 8, true)
	if ps, err = e.App.Predictor.Train(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !ps.Moving.Drift || ps.Active || ps.Moving.Sessions != 8 || !strings.Contains(ps.Reason, "drift") {
		t.Fatalf("drift: %+v", ps)
	}
	after, note := startIDs(t, e, "drifted")
	if note == nil || note["active"] != false || !slices.Equal(after, baseline) {
		t.Fatalf("after the drift the baseline order is back: %v (note %v), baseline %v", after, note, baseline)
	}
}

// Real hooks write the ranker's training data: each memory offered (at
// session start and with each prompt, injected or only a candidate) with
// its features, and its relevance once the session is scored.
func TestPredictorTrainingDataFromHooks(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Hooks.DedupPrompts = 0 })
	e.MustID(t, "Staging redis listens on port 6380 with TLS", "project", projA)
	e.MustID(t, "The office plants are watered on Fridays", "project", projA)
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-train", projA
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	hook("session-start", map[string]any{"source": "startup"})
	// Remembered after the start: the prompts offer it.
	e.MustID(t, "Staging postgres listens on port 5433 behind pgbouncer", "project", projA)
	e.MustID(t, "Staging postgres keeps its WAL on the second disk", "project", projA)
	if p := hook("user-prompt-submit", map[string]any{"prompt": "which port does staging postgres listen on?"}); p.Num("memoryCount") == 0 {
		t.Fatalf("prompt injected nothing: %s", p)
	}
	hook("user-prompt-submit", map[string]any{"prompt": "pgbouncer in front of staging postgres drops connections"})
	hook("session-end", map[string]any{"transcript": "User: staging postgres behind pgbouncer on 5433 works"})
	sessions, err := storage.ScoredSessions(t.Context(), e.DB.Reader(), "", "9999", 10)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("scored sessions: %v %v", sessions, err)
	}
	sources := map[string]int{}
	relevant := 0
	for _, o := range sessions[0].Offers {
		if len(o.Features) != len(ranker.FeatureNames) {
			t.Fatalf("features of %s: %v", o.MemoryID, o.Features)
		}
		sources[o.Source]++
		if o.Relevance > 0 {
			relevant++
		}
		if o.Source == ranker.SourcePrompt && o.Group != 1 {
			t.Fatalf("a prompt offer's group is its prompt: %+v", o)
		}
	}
	if sources[ranker.SourceSessionStart] == 0 || sources[ranker.SourcePrompt] == 0 || relevant == 0 {
		t.Fatalf("offers by source %v, relevant %d", sources, relevant)
	}
}
