package workers_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/transfer"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"github.com/cairnmem/cairn/workers/embedding"
)

// trackerApp is the App of a fresh store with the built-in model.
func trackerApp(t *testing.T) *app.App {
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
	return app.New(db, cfg, app.Options{Embedder: emb})
}

// importLines imports lines into ap's store as cairn import does.
func importLines(ctx context.Context, ap *app.App, lines []transfer.ImportLine) (*transfer.ImportResult, error) {
	return ap.Transfer.Import(ctx, lines, core.Actor{})
}

// The tracker embeds memories that arrived without a vector (an import
// does not embed) until none is left, with the real built-in model.
func TestEmbeddingTrackerCatchesUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ap := trackerApp(t)
	svc := ap.Service
	var lines []transfer.ImportLine
	for i := 0; i < 40; i++ {
		lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{
			Content: fmt.Sprintf("imported note %d about the deploy schedule", i), Importance: 0.5, Confidence: 1}})
	}
	if _, err := importLines(ctx, ap, lines); err != nil {
		t.Fatal(err)
	}
	if n, _ := ap.Vectors.CountPendingEmbeddings(ctx); n != 40 {
		t.Fatalf("pending before = %d", n)
	}
	tr := &workers.EmbeddingTracker{Svc: svc, Vectors: ap.Vectors, Interval: 20 * time.Millisecond, Batch: 16,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := ap.Vectors.CountPendingEmbeddings(ctx)
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
	ap := trackerApp(t)
	svc := ap.Service
	tr := &workers.EmbeddingTracker{Svc: svc, Vectors: ap.Vectors, Interval: time.Hour, Batch: 16, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()

	// A request in flight: the tracker waits for it (at most a second).
	end := svc.Foreground().Enter()
	res, err := svc.Remember(ctx, core.RememberInput{Content: "the staging database moved to port 5433"}, core.Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded || res.EmbeddingState != "pending" {
		t.Fatalf("remember answered embedded=%v state=%q, want pending", res.Embedded, res.EmbeddingState)
	}
	time.Sleep(100 * time.Millisecond)
	if n, _ := ap.Vectors.CountPendingEmbeddings(ctx); n != 1 {
		t.Fatalf("embedded while a foreground request was in flight (pending %d)", n)
	}
	end()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := ap.Vectors.CountPendingEmbeddings(ctx)
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

// Idle means idle: once the backlog is embedded the tracker issues no
// query, however short its interval (it used to rescan the whole store at
// every interval), until a write wakes it; that wake-up costs one query.
func TestEmbeddingTrackerIdleIssuesNoQuery(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ap := trackerApp(t)
	svc := ap.Service
	vec := ap.Vectors
	if _, err := importLines(ctx, ap, []transfer.ImportLine{{Line: 1, Memory: core.Memory{
		Content: "the nightly backup runs at 02:00", Importance: 0.5, Confidence: 1}}}); err != nil {
		t.Fatal(err)
	}
	const tick = 2 * time.Millisecond
	tr := &workers.EmbeddingTracker{Svc: svc, Vectors: ap.Vectors, Interval: tick, Batch: 16, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	waitScans := func(want int64) {
		t.Helper()
		for vec.PendingScans() < want {
			time.Sleep(tick)
		}
	}
	waitScans(1) // the start-up scan finds and embeds the imported memory
	for {
		n, err := vec.CountPendingEmbeddings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(tick)
	}
	quiet := func(what string) {
		t.Helper()
		before := vec.PendingScans()
		for range 100 { // 100 intervals
			time.Sleep(tick)
			if got := vec.PendingScans(); got != before {
				t.Fatalf("%s: the tracker queried the store %d times with nothing to do", what, got-before)
			}
		}
	}
	quiet("idle")
	before := vec.PendingScans()
	vec.EmbedSoon()
	waitScans(before + 1)
	quiet("after one wake-up")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A store from before migration 0011 holds float32 vectors: the tracker
// rewrites them as int8 codes at start, and search finds the same memory
// before and after.
func TestEmbeddingTrackerConvertsFloat32Vectors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ap := trackerApp(t)
	svc := ap.Service
	vec := ap.Vectors
	texts := []string{"the staging database listens on port 5433", "we deploy on Fridays after the review",
		"rotate the API token every week", "the cache server runs out of memory at night"}
	var lines []transfer.ImportLine
	for i, s := range texts {
		lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{Content: s, Importance: 0.5, Confidence: 1}})
	}
	if _, err := importLines(ctx, ap, lines); err != nil {
		t.Fatal(err)
	}
	// Embed them and store the vectors the old way: float32 BLOBs.
	pend, err := storage.PendingEmbeddings(ctx, svc.DB().Reader(), vec.Embedder().Model(), 10)
	if err != nil || len(pend) != len(texts) {
		t.Fatalf("pending = %d, %v", len(pend), err)
	}
	for _, p := range pend {
		v, err := vec.Embed(ctx, []string{p.Content})
		if err != nil {
			t.Fatal(err)
		}
		blob := make([]byte, 0, 4*len(v[0]))
		for _, x := range v[0] {
			blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(x))
		}
		err = svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			if err := storage.UpsertEmbedding(ctx, tx, p.ContentHash, vec.Embedder().Model(), len(v[0]), blob); err != nil {
				return err
			}
			_, err := storage.SetEmbeddingModel(ctx, tx, p.ID, p.ContentHash, vec.Embedder().Model())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	top := func() string {
		t.Helper()
		res, err := svc.Recall(ctx, core.RecallInput{Query: "which port does the staging postgres use", Mode: core.ModeVector, NoTracking: true})
		if err != nil || len(res.Results) == 0 {
			t.Fatalf("vector recall: %v %+v", err, res)
		}
		return res.Results[0].Content
	}
	if got := top(); got != texts[0] {
		t.Fatalf("top hit on float32 vectors = %q", got)
	}
	if old, err := storage.LegacyEmbeddings(ctx, svc.DB().Reader(), 100); err != nil || len(old) != len(texts) {
		t.Fatalf("float32 rows before = %d, %v", len(old), err)
	}
	tr := &workers.EmbeddingTracker{Svc: svc, Vectors: ap.Vectors, Interval: time.Hour, Batch: 16, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	for vec.PendingScans() == 0 { // conversion comes before the first scan
		time.Sleep(time.Millisecond)
	}
	if old, err := storage.LegacyEmbeddings(ctx, svc.DB().Reader(), 100); err != nil || len(old) != 0 {
		t.Fatalf("float32 rows after = %d, %v", len(old), err)
	}
	blob, err := storage.EmbeddingVector(ctx, svc.DB().Reader(), pend[0].ContentHash, vec.Embedder().Model())
	if err != nil || len(blob) != 4+512 {
		t.Fatalf("converted blob = %d bytes, %v; want 516", len(blob), err)
	}
	svc = app.New(svc.DB(), config.DefaultConfig(), app.Options{Embedder: vec.Embedder()}).Service // a fresh index, loaded from the converted rows
	if got := top(); got != texts[0] {
		t.Fatalf("top hit on int8 vectors = %q", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
