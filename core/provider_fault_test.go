package core_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding"
)

// openAIServer speaks the OpenAI embeddings API, answering vectors of dim
// dimensions after delay.
func openAIServer(t *testing.T, dim int, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: "test-embed"}
		for i, text := range req.Input {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32((len(text)+j*7+i)%11) - 5
			}
			out.Data = append(out.Data, item{"embedding", i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func providerService(t *testing.T, base string, dims int, timeout time.Duration) *app.App {
	t.Helper()
	cfg := config.DefaultConfig()
	cfg.Embedding = config.EmbeddingConfig{Provider: "openai", BaseURL: base, Model: "test-embed", Dimensions: dims,
		Timeout: config.Duration(timeout), BatchSize: 16, TrackerInterval: config.Duration(time.Second), TrackerBatch: 8}
	emb, err := embedding.New(cfg.Embedding)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "p.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return app.New(db, cfg, app.Options{Embedder: emb})
}

func TestRecallWithAProviderOfTheWrongDimension(t *testing.T) {
	srv := openAIServer(t, 64, 0)
	ap := providerService(t, srv.URL, 32, 5*time.Second) // configured for 32, serves 64
	svc := ap.Service
	res, err := svc.Remember(context.Background(), core.RememberInput{Content: "postgres runs on port 5433"}, core.Actor{})
	if err != nil || res.Embedded {
		t.Fatalf("remember: %v embedded=%v", err, res != nil && res.Embedded)
	}
	out := apitest.Recall(t, svc, core.RecallInput{Query: "postgres port"})
	if out.Method != core.ModeKeyword || len(out.Results) != 1 || len(out.Warnings) == 0 {
		t.Fatalf("recall: %+v", out)
	}
	if !strings.Contains(out.Warnings[0], "dimension") {
		t.Fatalf("warning does not explain: %q", out.Warnings[0])
	}
	st, _ := ap.Vectors.EmbeddingStatus(context.Background())
	if st.Available || st.Error == "" || st.Coverage["pending"] != 1 {
		t.Fatalf("status: %+v", st)
	}
}

func TestRecallWithASlowProvider(t *testing.T) {
	srv := openAIServer(t, 32, 10*time.Second)
	ap := providerService(t, srv.URL, 0, 300*time.Millisecond)
	svc := ap.Service
	if _, err := svc.Remember(context.Background(), core.RememberInput{Content: "redis listens on 6380"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := apitest.Recall(t, svc, core.RecallInput{Query: "redis"})
	if out.Method != core.ModeKeyword || len(out.Results) != 1 {
		t.Fatalf("recall: %+v", out)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a slow provider held recall for %v", took)
	}
}

func TestRecallWithAWorkingRemoteProvider(t *testing.T) {
	srv := openAIServer(t, 32, 0)
	ap := providerService(t, srv.URL, 32, 5*time.Second)
	svc := ap.Service
	res, err := svc.Remember(context.Background(), core.RememberInput{Content: "redis listens on 6380"}, core.Actor{})
	if err != nil || res.Embedded || res.EmbeddingState != "pending" {
		t.Fatalf("remember: %v %+v", err, res)
	}
	apitest.EmbedPending(t, ap.Vectors)
	if out := apitest.Recall(t, svc, core.RecallInput{Query: "redis"}); out.Method != core.ModeHybrid || len(out.Results) != 1 {
		t.Fatalf("recall: %+v", out)
	}
}
