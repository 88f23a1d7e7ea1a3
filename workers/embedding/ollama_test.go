package embedding

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// ollamaEmbedHandler speaks POST /api/embed like Ollama does, with dim-long
// vectors, checking the request.
func ollamaEmbedHandler(t *testing.T, model string, dim int) func(http.ResponseWriter, *http.Request, call) {
	return func(w http.ResponseWriter, r *http.Request, c call) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
			writeRaw(w, http.StatusNotFound, "text/plain", "404 page not found")
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("ollama request has Authorization %q", a)
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		strictDecode(t, c.Body, &req)
		if req.Model != model {
			t.Errorf("model %q, want %q", req.Model, model)
		}
		embs := make([][]float64, len(req.Input))
		for i, s := range req.Input {
			embs[i] = fakeVec(s, dim)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"model":             req.Model,
			"embeddings":        embs,
			"total_duration":    14143917,
			"load_duration":     1019500,
			"prompt_eval_count": 8 * len(req.Input),
		})
	}
}

func newTestOllama(t *testing.T, cfg config.EmbeddingConfig) *Ollama {
	t.Helper()
	o, err := NewOllama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOllamaEmbedBatches(t *testing.T) {
	srv, rec := serve(t, ollamaEmbedHandler(t, "nomic-embed-text", 768))
	o := newTestOllama(t, testConfig("ollama", srv.URL+"/")) // trailing slash is fine
	if d := o.Dimensions(); d != 0 {
		t.Fatalf("Dimensions before any answer = %d, want 0", d)
	}
	texts := numberedTexts(40)
	got, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts, 768)
	calls := rec.list()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	for i, want := range []int{16, 16, 8} {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		strictDecode(t, calls[i].Body, &req)
		if len(req.Input) != want || req.Input[0] != texts[16*i] {
			t.Errorf("call %d: %d texts starting %q, want %d starting %q", i, len(req.Input), req.Input[0], want, texts[16*i])
		}
	}
	if d := o.Dimensions(); d != 768 {
		t.Errorf("Dimensions after an answer = %d, want 768", d)
	}
	if got, err := o.Embed(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}
	if n := len(rec.list()); n != 3 {
		t.Errorf("Embed(nil) made a request")
	}
}

func TestOllamaBasePath(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeJSON(w, 200, map[string]any{"model": "m", "embeddings": [][]float64{{1, 2}}})
	})
	o := newTestOllama(t, testConfig("ollama", srv.URL+"/proxy/ollama/"))
	if _, err := o.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if calls := rec.list(); len(calls) != 1 || calls[0].Path != "/proxy/ollama/api/embed" {
		t.Errorf("calls %+v", calls)
	}
}

func TestOllamaLegacyFallback(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		switch r.URL.Path {
		case "/api/embeddings":
			if r.Method != http.MethodPost {
				t.Errorf("method %s", r.Method)
			}
			var req struct {
				Model  string `json:"model"`
				Prompt string `json:"prompt"`
			}
			strictDecode(t, c.Body, &req)
			if req.Model != "all-minilm" {
				t.Errorf("model %q", req.Model)
			}
			writeJSON(w, 200, map[string]any{"embedding": fakeVec(req.Prompt, 384)})
		default: // an Ollama from before /api/embed
			writeRaw(w, http.StatusNotFound, "text/plain", "404 page not found")
		}
	})
	cfg := testConfig("ollama", srv.URL)
	cfg.Model = "all-minilm"
	cfg.BatchSize = 2
	o := newTestOllama(t, cfg)
	texts := numberedTexts(3)
	got, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts, 384)
	if n, m := rec.count("/api/embed"), rec.count("/api/embeddings"); n != 1 || m != 3 {
		t.Errorf("/api/embed %d calls, /api/embeddings %d; want 1 and 3", n, m)
	}
	// The fallback is remembered.
	if _, err := o.Embed(context.Background(), texts[:1]); err != nil {
		t.Fatal(err)
	}
	if n := rec.count("/api/embed"); n != 1 {
		t.Errorf("/api/embed tried again after the fallback (%d calls)", n)
	}
	if o.Dimensions() != 384 {
		t.Errorf("Dimensions %d", o.Dimensions())
	}
}

func TestOllamaModelNotFound(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": `model "nomic-embed-text" not found, try pulling it first`})
	})
	o := newTestOllama(t, testConfig("ollama", srv.URL))
	_, err := o.Embed(context.Background(), []string{"x"})
	wantErr(t, err, "ollama at "+srv.URL+"/api/embed", "HTTP 404", `model "nomic-embed-text" not found`, "ollama pull nomic-embed-text")
	if e := asError(t, err); e.StatusCode != 404 {
		t.Errorf("StatusCode %d", e.StatusCode)
	}
	if n := rec.count("/api/embeddings"); n != 0 {
		t.Errorf("a JSON 404 (missing model) fell back to the legacy endpoint")
	}
}

// errorCases are failures shared by both providers' tests: handler answers
// badly, the error must contain every part.
type errorCase struct {
	name    string
	dims    int // cfg.Dimensions
	timeout time.Duration
	handler func(w http.ResponseWriter, r *http.Request, c call)
	texts   int
	maxBody int64
	parts   []string
	is      error
}

func TestOllamaErrors(t *testing.T) {
	ok := func(vecs ...[]float64) func(http.ResponseWriter, *http.Request, call) {
		return func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 200, map[string]any{"model": "nomic-embed-text", "embeddings": vecs})
		}
	}
	cases := []errorCase{
		{name: "500 with error body", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 500, map[string]string{"error": "llama runner process has terminated: signal: killed"})
		}, parts: []string{"HTTP 500 Internal Server Error", "llama runner process has terminated"}},
		{name: "500 with text body", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 502, "text/html", "<html>\n<h1>Bad Gateway</h1></html>")
		}, parts: []string{"HTTP 502 Bad Gateway", "<h1>Bad Gateway</h1>"}},
		{name: "malformed JSON", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"model":"nomic-embed-text","embeddings":[[0.1,0.2`)
		}, parts: []string{"malformed JSON answer"}},
		{name: "NaN literal", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"embeddings":[[0.1,NaN]]}`)
		}, parts: []string{"malformed JSON", "NaN"}},
		{name: "overflow to Inf", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"embeddings":[[0.1,1e39,0.3]]}`)
		}, parts: []string{"vector for text 0 has a non-finite value", "position 1"}},
		{name: "wrong vector count", texts: 2, handler: ok([]float64{1, 2, 3}), parts: []string{"answer has 1 vectors for 2 texts"}},
		{name: "no embeddings field", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 200, map[string]any{"model": "nomic-embed-text"})
		}, parts: []string{"answer has 0 vectors for 1 texts"}},
		{name: "wrong dimension", dims: 768, handler: ok(make([]float64, 512)),
			parts: []string{"vector for text 0 has 512 dimensions, expected 768 (from embedding.dimensions)"}},
		{name: "ragged answer", texts: 2, handler: ok([]float64{1, 2, 3}, []float64{1, 2}),
			parts: []string{"vector for text 1 has 2 dimensions, expected 3"}},
		{name: "empty vector", handler: ok([]float64{}), parts: []string{"empty vector for text 0"}},
		{name: "timeout", timeout: 150 * time.Millisecond, handler: func(w http.ResponseWriter, r *http.Request, c call) { hang(r) },
			parts: []string{"no answer within 150ms (embedding.timeout)"}, is: context.DeadlineExceeded},
		{name: "too large", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"embeddings":[[`+strings.Repeat("0.1,", 500)+`0.1]]}`)
		}, maxBody: 1024, parts: []string{"answer larger than 1024 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.handler)
			cfg := testConfig("ollama", srv.URL)
			cfg.Dimensions = tc.dims
			if tc.timeout > 0 {
				cfg.Timeout = config.Duration(tc.timeout)
			}
			o := newTestOllama(t, cfg)
			if tc.maxBody > 0 {
				o.r.MaxBody = tc.maxBody
			}
			start := time.Now()
			_, err := o.Embed(context.Background(), numberedTexts(max(tc.texts, 1)))
			t.Log(err)
			wantErr(t, err, append([]string{"ollama at " + srv.URL + "/api/embed: "}, tc.parts...)...)
			asError(t, err)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			if o.Dimensions() != tc.dims {
				t.Errorf("Dimensions %d after a failed answer, want %d", o.Dimensions(), tc.dims)
			}
		})
	}
}

func TestOllamaDimensionChangesBetweenAnswers(t *testing.T) {
	dim := 4
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeJSON(w, 200, map[string]any{"embeddings": [][]float64{fakeVec("x", dim)}})
	})
	o := newTestOllama(t, testConfig("ollama", srv.URL))
	if _, err := o.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	dim = 5 // the model was swapped behind our back
	_, err := o.Embed(context.Background(), []string{"b"})
	wantErr(t, err, "has 5 dimensions, expected 4 (from earlier answers)")
	if o.Dimensions() != 4 {
		t.Errorf("Dimensions %d", o.Dimensions())
	}
}

func TestOllamaNotReachable(t *testing.T) {
	base := deadURL(t)
	o := newTestOllama(t, testConfig("ollama", base))
	_, err := o.Embed(context.Background(), []string{"x"})
	wantErr(t, err, "ollama at "+base+"/api/embed: not reachable: ", "refused")
	if e := asError(t, err); e.StatusCode != 0 {
		t.Errorf("StatusCode %d", e.StatusCode)
	}
	wantErr(t, o.Check(context.Background()), "ollama at "+base+"/api/tags: not reachable")
}

func TestOllamaCancel(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request, c call) { hang(r) })
	o := newTestOllama(t, testConfig("ollama", srv.URL))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := o.Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled before: %v", err)
	}
	if n := len(rec.list()); n != 0 {
		t.Errorf("a canceled Embed made %d requests", n)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = o.Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled during: %v", err)
	}
	wantErr(t, err, "ollama at", "request abandoned")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

func TestOllamaCheck(t *testing.T) {
	tags := func(names ...string) func(http.ResponseWriter, *http.Request, call) {
		return func(w http.ResponseWriter, r *http.Request, c call) {
			if r.Method != http.MethodGet || r.URL.Path != "/api/tags" {
				t.Errorf("%s %s", r.Method, r.URL.Path)
			}
			var models []map[string]any
			for _, n := range names {
				models = append(models, map[string]any{"name": n, "model": n, "size": 274302450,
					"digest":  "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f",
					"details": map[string]any{"format": "gguf", "family": "nomic-bert"}})
			}
			writeJSON(w, 200, map[string]any{"models": models})
		}
	}
	srv, rec := serve(t, tags("llama3.2:latest", "nomic-embed-text:latest"))
	o := newTestOllama(t, testConfig("ollama", srv.URL))
	if err := o.Check(context.Background()); err != nil {
		t.Errorf("Check: %v", err)
	}
	if n := len(rec.list()); n != 1 {
		t.Errorf("Check made %d requests", n)
	}

	srv, _ = serve(t, tags("llama3.2:latest"))
	o = newTestOllama(t, testConfig("ollama", srv.URL))
	wantErr(t, o.Check(context.Background()), `model "nomic-embed-text" is not available`, "ollama pull nomic-embed-text")

	// An explicit tag must match exactly.
	srv, _ = serve(t, tags("nomic-embed-text:latest"))
	cfg := testConfig("ollama", srv.URL)
	cfg.Model = "nomic-embed-text:v1.5"
	o = newTestOllama(t, cfg)
	wantErr(t, o.Check(context.Background()), `"nomic-embed-text:v1.5" is not available`)

	// A server without /api/tags is checked with a one-text embed.
	srv, rec = serve(t, ollamaEmbedHandler(t, "nomic-embed-text", 8))
	o = newTestOllama(t, testConfig("ollama", srv.URL))
	if err := o.Check(context.Background()); err != nil {
		t.Errorf("Check without /api/tags: %v", err)
	}
	if n := rec.count("/api/embed"); n != 1 {
		t.Errorf("%d embeds", n)
	}
}

func TestModelMatches(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"nomic-embed-text:latest", "nomic-embed-text", true},
		{"nomic-embed-text:latest", "nomic-embed-text:latest", true},
		{"nomic-embed-text:v1.5", "nomic-embed-text", false},
		{"nomic-embed-text:latest", "nomic-embed-text:v1.5", false},
		{"hf.co/org/model:latest", "hf.co/org/model", true},
		{"localhost:5000/model:latest", "localhost:5000/model", true},
		{"", "", false},
	} {
		if got := modelMatches(tc.name, tc.want); got != tc.ok {
			t.Errorf("modelMatches(%q, %q) = %v", tc.name, tc.want, got)
		}
	}
}
