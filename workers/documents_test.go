package workers_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/documents"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
)

// The document worker runs with the LLM pipeline disabled (documents need
// no model) and ingests a queued document on its own.
func TestDocumentWorkerRunsWithPipelineDisabled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	cfg.Documents.WorkerInterval = config.Duration(10 * time.Millisecond)
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "t.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := core.NewService(db, cfg, core.ServiceOptions{})
	done := make(chan error, 1)
	go func() { done <- workers.RunDocuments(ctx, svc, nil) }()
	res, err := documents.For(svc).CreateDocument(ctx, documents.DocumentInput{SourceType: "text", Content: "The on-call rota changes every Monday.", Title: "Rota"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := documents.For(svc).GetDocument(ctx, res.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == storage.DocDone {
			if d.ChunkCount != 1 {
				t.Fatalf("chunk_count = %d", d.ChunkCount)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("document still %q", d.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
}
