package documents_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A document row written before URLs were checked keeps a password or a
// token in its source_url and error: the store's next open removes them,
// and such a document is never fetched with a redacted URL.
func TestDocumentStoredURLCredentialsRemoved(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	const gh = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	url := "https://admin:hunter2pw@docs.example.com/page?access_token=" + gh
	e.Exec(t, `INSERT INTO documents (id, source_type, source_url, status, error, created_at, updated_at)
		VALUES ('d1', 'url', ?, 'failed', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
		url, "Get \""+url+"\": dial tcp: connection refused")
	e.Exec(t, `INSERT INTO documents (id, source_type, content, status, created_at, updated_at)
		VALUES ('d2', 'text', 'plain text', 'done', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
	n, err := e.App.Documents.RedactStoredURLs(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("redact stored URLs: %d %v", n, err)
	}
	d := e.Get(t, "/api/documents/d1").Want(t, 200)
	for _, s := range []string{d.Str("source_url") + d.Str("url"), d.Str("error"), string(d.Raw)} {
		if strings.Contains(s, "hunter2pw") || strings.Contains(s, gh) {
			t.Fatalf("a credential is still stored: %s", d)
		}
	}
	if !strings.Contains(string(d.Raw), "docs.example.com/page") {
		t.Fatalf("the URL lost more than its credentials: %s", d)
	}
	// A clean store: nothing to change, twice.
	if n, err := e.App.Documents.RedactStoredURLs(context.Background()); err != nil || n != 0 {
		t.Fatalf("second pass: %d %v", n, err)
	}
}

// A fetched page is bounded in chunks (documents.max_chunks): a longer one
// fails with a message saying so, and writes no memory.
func TestDocumentFetchedPageBoundedInChunks(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, allowPrivate, apitest.NoPipeline, func(c *config.Config) {
		c.Documents.MaxChunks, c.Documents.ChunkSize, c.Documents.ChunkOverlap = 3, 200, 0
	})
	srv := page(t, map[string]http.HandlerFunc{"/long": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(docText(3000, "long")))
	}})
	id := createDoc(t, e, map[string]any{"source_type": "url", "url": srv.URL + "/long"})
	runDocJobs(t, e)
	d := e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "failed" || !strings.Contains(d.Str("error"), "documents.max_chunks") {
		t.Fatalf("a page over the chunk bound: %s", d)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("the refused page wrote %d memories", n)
	}
}

// countingEmbedder counts the texts it is asked to embed.
type countingEmbedder struct {
	*apitest.Embedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// A document repeating itself (boilerplate, a pasted paragraph) embeds
// each distinct chunk once.
func TestDocumentRepeatedChunksEmbeddedOnce(t *testing.T) {
	t.Parallel()
	emb := &countingEmbedder{Embedder: apitest.Builtin(t)}
	ap := apitest.NewApp(t, emb, func(c *config.Config) { c.Documents.ChunkSize, c.Documents.ChunkOverlap = 200, 0 })
	ctx := context.Background()
	para := strings.Repeat("The same boilerplate paragraph about cookies and consent. ", 4)
	created, err := ap.Documents.CreateDocument(ctx, documents.DocumentInput{SourceType: "text",
		Content: strings.Repeat(para+"\n\n", 12)})
	if err != nil {
		t.Fatal(err)
	}
	job, err := ap.Jobs.Lease(ctx, "t", documents.JobDocumentIngest)
	if err != nil || job == nil || job.DocumentID != created.ID {
		t.Fatalf("lease: %v %v", job, err)
	}
	before := emb.texts.Load()
	res, err := ap.Documents.ProcessDocumentJob(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	if got := emb.texts.Load() - before; res.Chunks < 4 || got > 2 {
		t.Fatalf("%d chunks, %d texts embedded: repeated chunks were embedded again", res.Chunks, got)
	}
}
