package rerank_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/llm"
	"github.com/cairnmem/cairn/workers/rerank"
)

// jinaServer speaks the /rerank form of Jina, Cohere and llama.cpp's
// server: it scores a document by how many of the query's words it holds,
// and answers best first, as they do.
func jinaServer(t *testing.T, key string, calls *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"detail":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" || req.TopN != len(req.Documents) {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var res []result
		for i, d := range req.Documents {
			n := 0
			for _, w := range strings.Fields(strings.ToLower(req.Query)) {
				if strings.Contains(strings.ToLower(d), w) {
					n++
				}
			}
			res = append(res, result{i, float64(n) / 10})
		}
		for i := range res { // best first, as the services answer
			for j := i + 1; j < len(res); j++ {
				if res[j].Score > res[i].Score {
					res[i], res[j] = res[j], res[i]
				}
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "results": res, "usage": map[string]int{"total_tokens": 10}})
	}))
}

func TestHTTPRerankerReadsEachForm(t *testing.T) {
	ctx := context.Background()
	srv := jinaServer(t, "k-123", nil)
	defer srv.Close()
	r := rerank.NewHTTP(srv.URL+"/v1/rerank", "bge-reranker-v2-m3", "k-123")
	got, err := r.Rerank(ctx, "postgres port", []string{"lunch at noon", "postgres runs on port 5433", "postgres is the database"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[0 0.2 0.1]" {
		t.Fatalf("scores by document, in order: %v", got)
	}
	if _, err := rerank.NewHTTP(srv.URL, "", "wrong").Rerank(ctx, "q", []string{"a"}); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("a refused key: %v", err)
	}

	// text-embeddings-inference answers a bare array with "score".
	tei := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"index":1,"score":0.9},{"index":0,"score":0.1}]`)
	}))
	defer tei.Close()
	got, err = rerank.NewHTTP(tei.URL, "", "").Rerank(ctx, "q", []string{"a", "b"})
	if err != nil || fmt.Sprint(got) != "[0.1 0.9]" {
		t.Fatalf("TEI form: %v %v", got, err)
	}

	for name, body := range map[string]string{
		"a document unscored":   `{"results":[{"index":0,"relevance_score":0.5}]}`,
		"an index out of range": `{"results":[{"index":0,"relevance_score":0.5},{"index":7,"relevance_score":0.1}]}`,
		"scored twice":          `{"results":[{"index":0,"relevance_score":0.5},{"index":0,"relevance_score":0.1}]}`,
		"not JSON":              `<html>busy</html>`,
		"huge":                  `{"results":[` + strings.Repeat(" ", 2<<20) + `]}`,
	} {
		bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		if _, err := rerank.NewHTTP(bad.URL, "", "").Rerank(ctx, "q", []string{"a", "b"}); err == nil {
			t.Errorf("%s: accepted", name)
		}
		bad.Close()
	}
}

// The LLM reranker through a real provider's wire format (Ollama's
// /api/generate).
func TestLLMRerankerPromptsAndParses(t *testing.T) {
	var prompt string
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
			Format string `json:"format"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		prompt = req.Prompt
		if r.URL.Path != "/api/generate" || req.Format != "json" {
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "qwen2.5:3b", "response": `{"scores": [2, 9]}`, "done": true})
	}))
	defer ollama.Close()
	m, err := llm.New("ollama", llm.Config{BaseURL: ollama.URL, Model: "qwen2.5:3b"})
	if err != nil {
		t.Fatal(err)
	}
	r := rerank.NewLLM(m)
	got, err := r.Rerank(context.Background(), "which port", []string{"lunch at noon", "postgres on 5433"})
	if err != nil || fmt.Sprint(got) != "[2 9]" {
		t.Fatalf("%v %v", got, err)
	}
	if !strings.Contains(prompt, "Query: which port") || !strings.Contains(prompt, "[1] postgres on 5433") {
		t.Fatalf("prompt: %s", prompt)
	}
}

func TestNewChecksItsSettings(t *testing.T) {
	cfg := config.DefaultConfig()
	if r, err := rerank.New(cfg); r != nil || err != nil {
		t.Fatalf("off by default: %v %v", r, err)
	}
	cfg.Reranker.Enabled = true
	if _, err := rerank.New(cfg); err == nil || !strings.Contains(err.Error(), "reranker.url") {
		t.Fatalf("no URL: %v", err)
	}
	cfg.Reranker.URL = "ftp://x"
	if _, err := rerank.New(cfg); err == nil || !strings.Contains(err.Error(), "reranker.url") {
		t.Fatalf("bad URL: %v", err)
	}
	cfg.Reranker.Provider = "llm"
	cfg.PipelineV2.Provider = "heuristic"
	if _, err := rerank.New(cfg); err == nil || !strings.Contains(err.Error(), "heuristic") {
		t.Fatalf("llm with the heuristic: %v", err)
	}
}

// Recall with a reranker: the model orders the best candidates (explain
// shows its score); a reranker that fails or is too slow leaves recall's
// order as it was.
func TestRecallWithTheModelReranker(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	srv := jinaServer(t, "", &calls)
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
	}))
	defer slow.Close()

	newSvc := func(url string) *core.Service {
		cfg := config.DefaultConfig()
		cfg.Reranker.Enabled, cfg.Reranker.URL, cfg.Reranker.Timeout = true, url, config.Duration(200*time.Millisecond)
		db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "r.db"), NoBackup: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		rr, err := rerank.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		svc := core.NewService(db, cfg, core.ServiceOptions{Reranker: rr})
		for _, c := range []string{
			"the staging database is postgres",
			"postgres staging listens on port 5433, the staging port",
			"the office kettle is in the staging room",
		} {
			if _, err := svc.Remember(ctx, core.RememberInput{Content: c}, core.Actor{Name: "t", Type: core.ActorOperator}); err != nil {
				t.Fatal(err)
			}
		}
		return svc
	}
	order := func(res *core.RecallResult) string {
		var out []string
		for _, h := range res.Results {
			out = append(out, strings.Fields(h.Content)[0]+"/"+strings.Fields(h.Content)[1])
		}
		return strings.Join(out, " ")
	}

	svc := newSvc(srv.URL)
	res, err := svc.Recall(ctx, core.RecallInput{Query: "staging postgres port", Limit: 10, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || !strings.HasPrefix(order(res), "postgres/staging") || res.Results[0].Explain.Model != 0.3 {
		t.Fatalf("reranked: %s %+v", order(res), res.Results[0].Explain)
	}

	slowSvc := newSvc(slow.URL)
	plain := newSvc("http://127.0.0.1:1/rerank")
	for _, s := range []*core.Service{slowSvc, plain} {
		res, err := s.Recall(ctx, core.RecallInput{Query: "staging postgres port", Limit: 10, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Results[0].Explain.Model != 0 || s.RerankFailures() != 1 {
			t.Fatalf("a failed reranking keeps recall's order: %+v failures=%d", res.Results[0].Explain, s.RerankFailures())
		}
	}
}
