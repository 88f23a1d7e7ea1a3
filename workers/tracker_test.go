package workers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"github.com/cairnmem/cairn/workers/embedding"
)

// trackerService is a Service on a fresh store with the built-in model.
func trackerService(t *testing.T) *core.Service {
	t.Helper()
	cfg := config.DefaultConfig()
	emb, err := embedding.New(cfg.Embedding)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "t.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return core.NewService(db, cfg, core.ServiceOptions{Embedder: emb})
}

// The tracker embeds memories that arrived without a vector (an import
// does not embed) until none is left, with the real built-in model.
func TestEmbeddingTrackerCatchesUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := trackerService(t)
	var lines []core.ImportLine
	for i := 0; i < 40; i++ {
		lines = append(lines, core.ImportLine{Line: i + 1, Memory: core.Memory{
			Content: fmt.Sprintf("imported note %d about the deploy schedule", i), Importance: 0.5, Confidence: 1}})
	}
	if _, err := svc.Import(ctx, lines, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := svc.Vectors().CountPendingEmbeddings(ctx); n != 40 {
		t.Fatalf("pending before = %d", n)
	}
	tr := &workers.EmbeddingTracker{Svc: svc, Interval: 20 * time.Millisecond, Batch: 16,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := svc.Vectors().CountPendingEmbeddings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tracker left %d memories without a vector", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := svc.Recall(ctx, core.RecallInput{Query: "when do we ship releases", Mode: core.ModeVector, NoTracking: true})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("vector recall after the tracker: %v %+v", err, res)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("tracker stopped with %v", err)
	}
}

// A remember answers before its embedding and wakes the tracker, which
// embeds it without waiting for its next poll (an hour away here); while a
// foreground request is in flight the tracker holds back.
func TestEmbeddingTrackerWakesOnWrite(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := trackerService(t)
	tr := &workers.EmbeddingTracker{Svc: svc, Interval: time.Hour, Batch: 16, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()

	// A request in flight: the tracker waits for it (at most a second).
	end := svc.Foreground()
	res, err := svc.Remember(ctx, core.RememberInput{Content: "the staging database moved to port 5433"}, core.Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded || res.EmbeddingState != "pending" {
		t.Fatalf("remember answered embedded=%v state=%q, want pending", res.Embedded, res.EmbeddingState)
	}
	time.Sleep(100 * time.Millisecond)
	if n, _ := svc.Vectors().CountPendingEmbeddings(ctx); n != 1 {
		t.Fatalf("embedded while a foreground request was in flight (pending %d)", n)
	}
	end()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := svc.Vectors().CountPendingEmbeddings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tracker did not embed the new memory after the wake-up")
		}
		time.Sleep(5 * time.Millisecond)
	}
	out, err := svc.Recall(ctx, core.RecallInput{Query: "which port does staging postgres listen on", Mode: core.ModeVector, NoTracking: true})
	if err != nil || len(out.Results) != 1 || out.Results[0].ID != res.Memory.ID {
		t.Fatalf("vector recall after the wake-up: %+v %v", out, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
