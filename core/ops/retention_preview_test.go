package ops_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The dry run counts what the sweep then removes: vectors, and the
// entities and relations left without a link, not only links and rows.
func TestRetentionPreviewMatchesTheSweep(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	a := e.MustID(t, "The zebrafish billing service stores invoices in PostgreSQL.")
	b := e.MustID(t, "The quokka deploy pipeline publishes images nightly.")
	e.Persist(t, a, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "zebrafish billing", Relationship: "uses", Target: "invoice store", Confidence: 0.9},
	}})
	for _, h := range []any{hashOf(t, e, a), hashOf(t, e, b), "no-such-hash"} {
		exec(t, e, `INSERT INTO embeddings (content_hash, model, dimensions, vector) VALUES (?, 'm', 1, x'0000803f')`, h)
	}
	forget(t, e, a)
	e.Clock.Advance(400 * day)

	preview, err := e.App.Ops.RetentionPreview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	swept := sweep(t, e)
	if preview.Embeddings != swept.Embeddings || preview.GraphEntities != swept.GraphEntities ||
		preview.GraphRelations != swept.GraphRelations || preview.Tombstones != swept.Tombstones || preview.GraphLinks != swept.GraphLinks {
		t.Fatalf("dry run %+v\nsweep   %+v", preview, swept)
	}
	if swept.Embeddings != 2 || swept.GraphEntities == 0 || swept.GraphRelations == 0 {
		t.Fatalf("the case tests nothing: %+v", swept)
	}
}
