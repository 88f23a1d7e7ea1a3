package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// A session_score job: the model's score, confidence, counts, reasoning
// and per-memory relevance (8-character ids resolved) replace the
// heuristic score session end wrote.
func TestModelScoresASession(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	port := e.MustID(t, "Staging postgres listens on 5433 behind pgbouncer", "project", projA)
	plants := e.MustID(t, "The office plants are watered on Fridays", "project", projA)
	hook := func(ev string, body map[string]any) *apitest.Resp {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-7", projA
		return e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	hook("session-start", map[string]any{"source": "startup"})
	hook("session-end", map[string]any{"transcript": "User: connect to staging postgres\nAssistant: using port 5433 via pgbouncer"})
	heuristic, err := storage.GetSessionScore(ctx, e.RO, "s-7")
	if err != nil || heuristic.Method != "heuristic" {
		t.Fatalf("heuristic score first: %+v %v", heuristic, err)
	}

	short := port[len(port)-8:]
	answer := fmt.Sprintf("<think>the port was used</think>```json\n{\"score\": 1.4, \"confidence\": 0.8, \"memories_used\": 1, \"novel_context_count\": 2, "+
		"\"reasoning\": \"the port memory answered the connection question\", \"per_memory\": [{\"id\": %q, \"relevance\": 0.9}, {\"id\": \"zzzzzzzz\", \"relevance\": 1}, {\"id\": %q, \"relevance\": -2}]}\n```", short, plants[len(plants)-8:])
	var prompts []string
	srv := ollamaHints(t, answer, &prompts)
	model, _ := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "qwen2.5:3b"})
	p := e.App.Pipeline
	if !p.WantsModelScore(model) || p.WantsModelScore(llm.NewHeuristic()) {
		t.Fatal("model scoring is for models")
	}
	if err := p.EnqueueSessionScore(ctx, "s-7"); err != nil {
		t.Fatal(err)
	}
	job, err := e.App.Jobs.Lease(ctx, "w", jobs.SessionScore)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := p.ProcessScoreJob(ctx, job, model)
	if err != nil || res.Status != "completed" || res.Resolved != 2 {
		t.Fatalf("score job: %+v %v", res, err)
	}
	if !strings.Contains(prompts[0], "["+short+"] Staging postgres") || !strings.Contains(prompts[0], "via pgbouncer") {
		t.Fatalf("prompt: %s", prompts[0])
	}
	sc, err := storage.GetSessionScore(ctx, e.RO, "s-7")
	if err != nil || sc.Method != "ollama/qwen2.5:3b" || sc.Score != 1 || sc.Confidence != 0.8 || sc.MemoriesUsed != 1 || sc.NovelContextCount != 2 || sc.MemoriesRecalled != 2 {
		t.Fatalf("stored score: %+v %v", sc, err)
	}
	mems, _ := storage.SessionMemories(ctx, e.RO, "s-7")
	for _, m := range mems {
		want := map[string]float64{port: 0.9, plants: 0}[m.MemoryID]
		if m.Relevance == nil || *m.Relevance != want {
			t.Fatalf("relevance of %s: %v, want %v", m.MemoryID, m.Relevance, want)
		}
	}
}

func TestParseSessionScoreRefusesWhatIsNotAScore(t *testing.T) {
	for _, out := range []string{"", "no json here", `{"reasoning": "x"}`, "```json\n{\"score\": \n```"} {
		if _, _, err := pipeline.ParseSessionScore(out, nil); err == nil {
			t.Errorf("%q accepted", out)
		}
	}
}

func FuzzParseSessionScore(f *testing.F) {
	for _, s := range []string{`{"score":0.5,"per_memory":[{"id":"abcdefgh","relevance":2}]}`, "<think>x</think>{\"score\":-1}", "```{\"score\":1e400}```", `{"score":0.1,"memories_used":1e30}`} {
		f.Add(s)
	}
	injected := []*storage.SessionMemory{{MemoryID: "01a20b3d-b026-7525-83a7-774dabcdefgh", WasInjected: true}}
	f.Fuzz(func(t *testing.T, out string) {
		sc, rel, err := pipeline.ParseSessionScore(out, injected)
		if err != nil {
			return
		}
		if sc.Score < 0 || sc.Score > 1 || sc.Confidence < 0 || sc.Confidence > 1 || sc.MemoriesUsed > 1 || sc.NovelContextCount < 0 {
			t.Fatalf("%+v", sc)
		}
		for _, r := range rel {
			if r < 0 || r > 1 {
				t.Fatalf("relevance %v", r)
			}
		}
	})
}

// A model's score that rewrites a session's relevance moves the aspect
// weights with it: the aspect of a memory the heuristic found used and
// the model did not gives its raise back, and the aspect of a memory only
// the model found used gains one. Without the revision the heuristic's
// raise would stand and the model's verdict would change no weight.
func TestModelScoreRevisesAspectFeedback(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, apitest.NoEmbed)
	port := e.MustID(t, "The staging database port is 5433.", "project", projA)
	owner := e.MustID(t, "The billing service is owned by the payments team.", "project", projA)
	weight := func(id string) float64 {
		t.Helper()
		var w float64
		if err := e.RO.QueryRowContext(ctx, `SELECT a.weight FROM entity_aspects a JOIN entity_attributes x ON x.aspect_id = a.id
			WHERE x.memory_id = ? AND x.status = 'live'`, id).Scan(&w); err != nil {
			t.Fatalf("aspect of %s: %v", id, err)
		}
		return w
	}
	w0port, w0owner := weight(port), weight(owner)
	hook := func(ev string, body map[string]any) {
		body["harness"], body["session_id"], body["cwd"] = "claude-code", "s-8", projA
		e.Post(t, "/api/hooks/"+ev, body).Want(t, 200)
	}
	hook("session-start", map[string]any{"source": "startup"})
	hook("session-end", map[string]any{"transcript": "User: which port does the staging database listen on?\nAssistant: staging database port 5433"})
	if w := weight(port); w <= w0port {
		t.Fatalf("the heuristic found the port memory used: its aspect weight %v, was %v", w, w0port)
	}
	if w := weight(owner); w != w0owner {
		t.Fatalf("the owner memory was not used: weight %v, was %v", w, w0owner)
	}

	answer := fmt.Sprintf(`{"score": 0.5, "confidence": 0.7, "memories_used": 1, "reasoning": "the owner answered", "per_memory": [{"id": %q, "relevance": 0}, {"id": %q, "relevance": 0.9}]}`,
		port[len(port)-8:], owner[len(owner)-8:])
	var prompts []string
	srv := ollamaHints(t, answer, &prompts)
	model, _ := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "qwen2.5:3b"})
	p := e.App.Pipeline
	if err := p.EnqueueSessionScore(ctx, "s-8"); err != nil {
		t.Fatal(err)
	}
	job, err := e.App.Jobs.Lease(ctx, "w", jobs.SessionScore)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	if res, err := p.ProcessScoreJob(ctx, job, model); err != nil || res.Status != "completed" {
		t.Fatalf("score job: %+v %v", res, err)
	}
	if w := weight(port); w != w0port {
		t.Fatalf("the model found the port memory unused: weight %v, want it back at %v", w, w0port)
	}
	if w := weight(owner); w <= w0owner {
		t.Fatalf("the model found the owner memory used: weight %v, was %v", w, w0owner)
	}
}
