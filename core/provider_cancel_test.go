package core_test

import (
	"context"
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
	srv := openAIServer(t, 32, 300*time.Millisecond)
	svc := providerService(t, srv.URL, 32, 5*time.Second)
	if _, err := svc.Remember(context.Background(), core.RememberInput{Content: "redis listens on 6380"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	apitest.EmbedPending(t, svc)

	// As the HTTP server cancels a request whose client went away.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	svc.Recall(ctx, core.RecallInput{Query: "which port does redis use", NoTracking: true}) // its answer does not matter

	if !svc.Vectors().ProviderHealthy() {
		t.Fatal("a recall its caller canceled marked the provider failed")
	}
	if out := apitest.Recall(t, svc, core.RecallInput{Query: "where does redis listen"}); out.Method != core.ModeHybrid {
		t.Fatalf("the next recall ran %s (warnings %v), want hybrid", out.Method, out.Warnings)
	}
}
