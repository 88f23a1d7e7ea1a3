package workers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/storage/docstore"

	"github.com/cairnmem/cairn/core/config"

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
	ap := app.New(db, cfg, app.Options{})
	done := make(chan error, 1)
	go func() { done <- workers.RunDocuments(ctx, ap, nil) }()
	res, err := ap.Documents.CreateDocument(ctx, documents.DocumentInput{SourceType: "text", Content: "The on-call rota changes every Monday.", Title: "Rota"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := ap.Documents.GetDocument(ctx, res.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == docstore.DocDone {
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

// Documents that fail (their server answers 500) never hold a good one
// back: a document's failure is recorded on its job and the worker goes
// straight on. The worker polls once an hour here, so it reaches the good
// document only if a failure costs it no wait (before, each failure
// backed the whole worker off: 2 s, 4 s, 8 s, 16 s).
func TestOneFailingDocumentNeverHoldsBackOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusInternalServerError)
	}))
	defer broken.Close()
	cfg := config.DefaultConfig()
	cfg.Documents.AllowPrivateFetch = true // the broken server is on loopback
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "t.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ap := app.New(db, cfg, app.Options{})
	svc, docs := ap.Service, ap.Documents
	var bad []string
	for i := range 4 {
		res, err := docs.CreateDocument(ctx, documents.DocumentInput{SourceType: "url", URL: fmt.Sprintf("%s/doc-%d", broken.URL, i)})
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, res.ID)
	}
	good, err := docs.CreateDocument(ctx, documents.DocumentInput{SourceType: "text", Content: "The on-call rota changes every Monday.", Title: "Rota"})
	if err != nil {
		t.Fatal(err)
	}
	w := &workers.DocumentWorker{Svc: svc, Jobs: ap.Jobs, Docs: docs, Concurrency: 1, Poll: time.Hour}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	for {
		d, err := docs.GetDocument(ctx, good.ID)
		if err != nil {
			t.Fatalf("the good document waited behind the bad ones: %v", err)
		}
		if d.Status == docstore.DocDone {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range bad {
		d, err := docs.GetDocument(ctx, id)
		if err != nil || d.Status == docstore.DocDone {
			t.Fatalf("bad document %s: %+v %v", id, d, err)
		}
	}
	cancel()
	<-done
}
