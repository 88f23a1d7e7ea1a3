package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
)

// ollamaHints speaks Ollama's /api/generate: it answers a prospective
// index prompt with the questions given.
func ollamaHints(t *testing.T, answer string, prompts *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if prompts != nil {
			*prompts = append(*prompts, req.Prompt)
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "qwen2.5:3b", "response": answer, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A prospective_index job: the model's questions replace the memory's
// heuristic hints, and a question worded unlike the memory finds it.
func TestModelHintsReplaceHeuristicOnes(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Hints.Enabled = true })
	id := e.MustID(t, "The staging database listens on port 5433 behind pgbouncer")
	if n := e.Count(t, `SELECT count(*) FROM memory_hints WHERE memory_id = ? AND source = 'heuristic'`, id); n == 0 {
		t.Fatal("no heuristic hints to replace")
	}
	var prompts []string
	srv := ollamaHints(t, "```json\n{\"questions\": [\"Which port does the QA database accept connections on?\", \"which port does the QA database accept connections on?\", \"   \", \"Is there a connection pooler in front of the pre-production DB?\"]}\n```", &prompts)
	model, err := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "qwen2.5:3b"})
	if err != nil {
		t.Fatal(err)
	}
	p := e.App.Pipeline
	if !p.WantsModelHints(model) || p.WantsModelHints(llm.NewHeuristic()) {
		t.Fatal("model hints are for models, not the heuristic")
	}
	if err := p.EnqueueHints(ctx, id); err != nil {
		t.Fatal(err)
	}
	job, err := e.App.Jobs.Lease(ctx, "w", jobs.ProspectiveIndex)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := p.ProcessHintsJob(ctx, job, model)
	if err != nil || res.Status != "completed" || len(res.Hints) != 2 {
		t.Fatalf("hints job: %+v %v", res, err)
	}
	if len(prompts) != 1 || !strings.Contains(prompts[0], "pgbouncer") || !strings.Contains(prompts[0], "up to 5") {
		t.Fatalf("prompt: %v", prompts)
	}
	hints, sources, err := storage.MemoryHints(ctx, e.RO, id)
	if err != nil || len(hints) != 2 || sources[0] != "ollama/qwen2.5:3b" {
		t.Fatalf("hints %v from %v: %v", hints, sources, err)
	}
	r := e.Post(t, "/api/memory/recall", map[string]any{"query": "connection pooler pre-production", "mode": "keyword"}).Want(t, 200)
	if !strings.Contains(r.String(), id) {
		t.Fatalf("a question worded unlike the memory finds it through its hints: %s", r)
	}
	if st := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE id = ? AND status = 'completed'`, job.ID); st != 1 {
		t.Fatal("job not completed")
	}

	// Editing the memory drops the model's hints (they were for the old
	// text); the heuristic writes new ones.
	e.Patch(t, id, map[string]any{"content": "Staging postgres moved to port 6432", "reason": "moved"}).Want(t, 200)
	if _, sources, _ := storage.MemoryHints(ctx, e.RO, id); len(sources) == 0 || sources[0] != "heuristic" {
		t.Fatalf("hints after an edit: %v", sources)
	}
}

// A model that answers nothing usable leaves the heuristic hints.
func TestModelHintsEmptyAnswerKeepsHeuristic(t *testing.T) {
	ctx := context.Background()
	e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Hints.Enabled = true })
	id := e.MustID(t, "The release train leaves every second Tuesday; we deploy after the build")
	srv := ollamaHints(t, `{"questions": []}`, nil)
	model, _ := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "m"})
	p := e.App.Pipeline
	p.EnqueueHints(ctx, id)
	job, _ := e.App.Jobs.Lease(ctx, "w", jobs.ProspectiveIndex)
	res, err := p.ProcessHintsJob(ctx, job, model)
	if err != nil || res.Status != "empty" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, sources, _ := storage.MemoryHints(ctx, e.RO, id); len(sources) == 0 || sources[0] != "heuristic" {
		t.Fatalf("heuristic hints gone: %v", sources)
	}
}

func FuzzParseHints(f *testing.F) {
	for _, s := range []string{`{"questions":["a?","b?"]}`, "```json\n[\"x?\"]\n```", "1. what?\n2) why?", "<think>hm</think>{\"hints\":[1,\"ok?\"]}", "\xff\xfe?"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, out string, max int) {
		if max < 1 || max > 20 {
			return
		}
		hs := pipeline.ParseHints(out, max)
		if len(hs) > max {
			t.Fatalf("%d hints, max %d", len(hs), max)
		}
		for _, h := range hs {
			if h == "" || strings.ContainsAny(h, "\n\r") || len([]rune(h)) > 200 || !json.Valid([]byte(`"`+strings.ReplaceAll(strings.ReplaceAll(h, `\`, `\\`), `"`, `\"`)+`"`)) {
				t.Fatalf("hint %q", h)
			}
		}
	})
}

// The benchmark's scripted model (core/bench) answers the real
// prospective-indexing prompt, sent by the real OpenAI-compatible provider,
// with its script: the oracle script with the questions whose evidence the
// memory is, the echo script with one question restating it; anything
// else (extraction) with nothing to do.
func TestScriptedModelAnswersTheHintsPrompt(t *testing.T) {
	ctx := context.Background()
	turn := bench.Turn{DiaID: "D1:1", Speaker: "Maria", Text: "I volunteer at the homeless shelter on Fridays."}
	samples := []bench.Sample{{ID: "conv-x", Turns: []bench.Turn{turn},
		Questions: []bench.Question{{Question: "Where does Maria volunteer?", Evidence: []string{"D1:1"}, Category: 4}}}}
	for script, want := range map[string]string{
		"oracle": "Where does Maria volunteer?",
		"echo":   "What about Maria: I volunteer at the homeless shelter on Fridays?",
	} {
		t.Run(script, func(t *testing.T) {
			sc, err := bench.StartScriptedLLM(script, samples)
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			e := apitest.NewEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Hints.Enabled = true })
			id := e.MustID(t, bench.Content(turn))
			model, err := llm.New("openai", llm.Config{BaseURL: sc.URL, Model: "scripted", APIKey: "scripted"})
			if err != nil {
				t.Fatal(err)
			}
			p := e.App.Pipeline
			if err := p.EnqueueHints(ctx, id); err != nil {
				t.Fatal(err)
			}
			job, err := e.App.Jobs.Lease(ctx, "w", jobs.ProspectiveIndex)
			if err != nil || job == nil {
				t.Fatalf("lease: %v %v", job, err)
			}
			res, err := p.ProcessHintsJob(ctx, job, model)
			if err != nil || res.Status != "completed" || len(res.Hints) != 1 || res.Hints[0] != want {
				t.Fatalf("hints job: %+v %v", res, err)
			}
			out, err := model.Generate(ctx, "Extract the facts of this conversation.", extract.GenerateOptions{JSON: true})
			if err != nil || !strings.Contains(out, `"facts": []`) {
				t.Fatalf("another prompt: %q %v", out, err)
			}
		})
	}
}
