package core_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A recall whose caller gives up while the query is being embedded (a
// hook whose agent stopped waiting for it) says nothing of the provider:
// the next recall still uses vectors. It used to mark the provider failed
// for 30 s, so every hook after one that timed out went keyword-only.
func TestCanceledRecallDoesNotMarkTheProviderFailed(t *testing.T) {
	var hold atomic.Bool
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if hold.Load() { // answer only once the caller has gone
			arrived <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range req.Input {
			v := make([]float32, 32)
			for j := range v {
				v[j] = float32((len(text)+j*7)%11) - 5
			}
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	ap := providerService(t, srv.URL, 32, 5*time.Second)
	svc := ap.Service
	if _, err := svc.Remember(context.Background(), core.RememberInput{Content: "redis listens on 6380"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	apitest.EmbedPending(t, ap.Vectors)

	// As the HTTP server cancels a request whose client went away: while
	// the query's embedding is in flight.
	hold.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	svc.Recall(ctx, core.RecallInput{Query: "which port does redis use", NoTracking: true}) // its answer does not matter
	select {
	case <-ctx.Done():
	default:
		t.Fatal("the recall never asked the provider")
	}
	hold.Store(false)

	if !ap.Vectors.ProviderHealthy() {
		t.Fatal("a recall its caller canceled marked the provider failed")
	}
	if out := apitest.Recall(t, svc, core.RecallInput{Query: "where does redis listen"}); out.Method != core.ModeHybrid {
		t.Fatalf("the next recall ran %s (warnings %v), want hybrid", out.Method, out.Warnings)
	}
}
