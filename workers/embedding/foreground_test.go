package embedding

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// gateModel holds every background call until released, telling which
// state of the foreground it saw.
type gateModel struct {
	fakeModel
	entered chan string
	gate    chan struct{}
}

func (g *gateModel) EmbedBackground(texts []string, busy func() bool) ([][]float32, error) {
	if busy != nil {
		g.entered <- map[bool]string{true: "busy", false: "free"}[busy()]
		<-g.gate
	}
	return g.fakeModel.EmbedBackground(texts, busy)
}

func (g *gateModel) Embed(texts []string) ([][]float32, error) { return g.EmbedBackground(texts, nil) }

// Background embedding (the tracker's batches) tells the built-in model
// when a foreground request is in flight, so the model keeps to one core;
// and a recall's query embedding runs while a background batch is still
// in the model, instead of queueing behind it.
func TestBuiltinBackgroundYieldsToForeground(t *testing.T) {
	ctx := context.Background()
	g := &gateModel{entered: make(chan string, 1), gate: make(chan struct{})}
	b := newBuiltin(16, func() (textEmbedder, error) { return g, nil })
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "t.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ap := app.New(db, config.DefaultConfig(), app.Options{Embedder: b})
	svc := ap.Service
	var lines []transfer.ImportLine
	for i := range 3 {
		lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{
			Content: fmt.Sprintf("memory %d", i+1), Importance: 0.5, Confidence: 1}})
	}
	if _, err := ap.Transfer.Import(ctx, lines, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	if err := ap.Vectors.WarmVectors(ctx); err != nil {
		t.Fatal(err)
	}

	end := svc.Foreground().Enter() // a request in flight
	done := make(chan error, 1)
	go func() { _, err := ap.Vectors.EmbedBatch(ctx, 8); done <- err }()
	select {
	case got := <-g.entered:
		if got != "busy" {
			t.Fatalf("background batch during a request saw the foreground %q, want busy", got)
		}
	case err := <-done:
		t.Fatalf("the background batch ran as foreground work (no probe): %v", err)
	}
	// The background batch is inside the model: a recall still embeds its
	// query (vector mode: it fails without the query vector).
	res, err := svc.Recall(ctx, core.RecallInput{Query: "memory 2", Mode: core.ModeVector, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("recall while a background batch runs: %v", res.Warnings)
	}
	end()
	close(g.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, _ := ap.Vectors.CountPendingEmbeddings(ctx); n != 0 {
		t.Fatalf("%d memories left without a vector", n)
	}
}
