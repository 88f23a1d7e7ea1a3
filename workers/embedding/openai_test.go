package embedding

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

const testKey = "sk-proj-test0123456789abcdef"

type openAIEmbedding struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float64 `json:"embedding"`
}

// openAIHandler speaks POST {prefix}/embeddings like OpenAI does, answering
// the vectors in a shuffled order, and checks the request (key "" means no
// Authorization header is expected).
func openAIHandler(t *testing.T, prefix, key, model string, dim int) func(http.ResponseWriter, *http.Request, call) {
	return func(w http.ResponseWriter, r *http.Request, c call) {
		if r.Method != http.MethodPost || r.URL.Path != prefix+"/embeddings" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Invalid URL (" + r.Method + " " + r.URL.Path + ")", "type": "invalid_request_error"}})
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		auth, hasAuth := r.Header["Authorization"]
		if key == "" && hasAuth {
			t.Errorf("Authorization %q sent without a key", auth)
		}
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("Authorization %q, want Bearer key", r.Header.Get("Authorization"))
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		strictDecode(t, c.Body, &req)
		if req.Model != model {
			t.Errorf("model %q, want %q", req.Model, model)
		}
		data := make([]openAIEmbedding, len(req.Input))
		for i, s := range req.Input {
			data[i] = openAIEmbedding{Object: "embedding", Index: i, Embedding: fakeVec(s, dim)}
		}
		rand.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
		writeJSON(w, 200, map[string]any{
			"object": "list",
			"data":   data,
			"model":  req.Model,
			"usage":  map[string]int{"prompt_tokens": 9 * len(req.Input), "total_tokens": 9 * len(req.Input)},
		})
	}
}

func newTestOpenAI(t *testing.T, cfg config.EmbeddingConfig) *OpenAI {
	t.Helper()
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOpenAIEmbedBatches(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv, rec := serve(t, openAIHandler(t, "/v1", testKey, "text-embedding-3-small", 1536))
	cfg := testConfig("openai", srv.URL+"/v1")
	cfg.APIKey = testKey
	o := newTestOpenAI(t, cfg)
	if o.Dimensions() != 0 {
		t.Fatalf("Dimensions %d before any answer", o.Dimensions())
	}
	texts := numberedTexts(40)
	got, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts, 1536)
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
			t.Errorf("call %d: %d texts starting %q", i, len(req.Input), req.Input[0])
		}
	}
	if o.Dimensions() != 1536 {
		t.Errorf("Dimensions %d after an answer", o.Dimensions())
	}
	if err := o.Check(context.Background()); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestOpenAIKeyFromEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	srv, _ := serve(t, openAIHandler(t, "/v1", testKey, "nomic-embed-text-v1.5", 768))
	cfg := testConfig("openai", srv.URL+"/v1")
	cfg.Model = "nomic-embed-text-v1.5"
	if _, err := newTestOpenAI(t, cfg).Embed(context.Background(), []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
}

// A local server (llama.cpp, LM Studio, vLLM) needs no key, and none is sent.
func TestOpenAILocalWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv, _ := serve(t, openAIHandler(t, "/v1", "", "text-embedding-3-small", 384))
	o := newTestOpenAI(t, testConfig("openai", srv.URL+"/v1"))
	texts := numberedTexts(5)
	got, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts, 384)
}

// Some servers leave out "index"; the answer is then taken in order.
func TestOpenAINoIndex(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		writeRaw(w, 200, "application/json", `{"object":"list","data":[{"embedding":[1,2]},{"embedding":[3,4]}],"model":"m"}`)
	})
	got, err := newTestOpenAI(t, testConfig("openai", srv.URL)).Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0][0] != 1 || got[1][0] != 3 {
		t.Errorf("got %v", got)
	}
}

func TestOpenAIErrors(t *testing.T) {
	answer := func(data ...openAIEmbedding) func(http.ResponseWriter, *http.Request, call) {
		return func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": "text-embedding-3-small"})
		}
	}
	emb := func(i int, v ...float64) openAIEmbedding {
		return openAIEmbedding{Object: "embedding", Index: i, Embedding: v}
	}
	cases := []errorCase{
		{name: "401 echoing the key", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 401, map[string]any{"error": map[string]any{
				"message": "Incorrect API key provided: " + testKey + ". You can find your API key at https://platform.openai.com/account/api-keys.",
				"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
		}, parts: []string{"HTTP 401 Unauthorized", "Incorrect API key provided: [redacted]", "[invalid_request_error]", "check embedding.api_key or OPENAI_API_KEY"}},
		{name: "404 model", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "The model `text-embedding-4` does not exist", "type": "invalid_request_error"}})
		}, parts: []string{"HTTP 404", "does not exist", "check embedding.base_url and embedding.model"}},
		{name: "429", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 429, map[string]any{"error": map[string]any{"message": "You exceeded your current quota", "type": "insufficient_quota"}})
		}, parts: []string{"HTTP 429 Too Many Requests", "exceeded your current quota", "rate limited"}},
		{name: "vLLM style 400", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 400, map[string]any{"object": "error", "message": "This model's maximum context length is 512 tokens", "type": "BadRequestError", "code": 400})
		}, parts: []string{"HTTP 400 Bad Request", "maximum context length is 512 tokens"}},
		{name: "llama.cpp style 500", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeJSON(w, 500, map[string]any{"error": map[string]any{"code": 500, "message": "input is too large to process", "type": "server_error"}})
		}, parts: []string{"HTTP 500", "input is too large to process [server_error]"}},
		{name: "malformed JSON", handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"object":"list","data":[{"index":0,"embedding":"AAAA"}]}`)
		}, parts: []string{"malformed JSON answer"}},
		{name: "wrong vector count", texts: 3, handler: answer(emb(0, 1, 2), emb(1, 1, 2)), parts: []string{"answer has 2 vectors for 3 texts"}},
		{name: "index twice", texts: 2, handler: answer(emb(0, 1, 2), emb(0, 1, 2)), parts: []string{"answer has index 0 twice"}},
		{name: "index out of range", texts: 2, handler: answer(emb(0, 1, 2), emb(2, 1, 2)), parts: []string{"answer has index 2 for 2 texts"}},
		{name: "some without index", texts: 2, handler: func(w http.ResponseWriter, r *http.Request, c call) {
			writeRaw(w, 200, "application/json", `{"data":[{"index":0,"embedding":[1]},{"embedding":[2]}]}`)
		}, parts: []string{"1 of 2 vectors in the answer have no index"}},
		{name: "wrong dimension", dims: 1536, handler: answer(emb(0, make([]float64, 3072)...)),
			parts: []string{"vector for text 0 has 3072 dimensions, expected 1536 (from embedding.dimensions)"}},
		{name: "overflow", texts: 2, handler: answer(emb(1, 1, -1e300), emb(0, 1, 2)),
			parts: []string{"vector for text 1 has a non-finite value (-1e+300, too large for float32) at position 1"}},
		{name: "timeout", timeout: 150 * time.Millisecond, handler: func(w http.ResponseWriter, r *http.Request, c call) { hang(r) },
			parts: []string{"no answer within 150ms"}, is: context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.handler)
			cfg := testConfig("openai", srv.URL+"/v1")
			cfg.APIKey = testKey
			cfg.Dimensions = tc.dims
			if tc.timeout > 0 {
				cfg.Timeout = config.Duration(tc.timeout)
			}
			o := newTestOpenAI(t, cfg)
			start := time.Now()
			_, err := o.Embed(context.Background(), numberedTexts(max(tc.texts, 1)))
			t.Log(err)
			wantErr(t, err, append([]string{"openai at " + srv.URL + "/v1/embeddings: "}, tc.parts...)...)
			asError(t, err)
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestOpenAINotReachable(t *testing.T) {
	base := deadURL(t) + "/v1"
	cfg := testConfig("openai", base)
	cfg.APIKey = testKey
	o := newTestOpenAI(t, cfg)
	err := o.Check(context.Background())
	wantErr(t, err, "openai at "+base+"/embeddings: not reachable: ")
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the API key: %v", err)
	}
}

func TestOpenAICancelBetweenBatches(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner := openAIHandler(t, "", "", "text-embedding-3-small", 8)
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request, c call) {
		inner(w, r, c)
		cancel() // the caller gives up while the first batch is answered
	})
	t.Setenv("OPENAI_API_KEY", "")
	cfg := testConfig("openai", srv.URL)
	cfg.BatchSize = 2
	_, err := newTestOpenAI(t, cfg).Embed(ctx, numberedTexts(5))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if n := len(rec.list()); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}
}
