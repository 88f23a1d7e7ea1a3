package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// Float32 vectors rewritten smaller leave their pages mostly empty: the
// compaction after a conversion gives the space back, and the store keeps
// working (reads, writes, the rows to convert are gone from the index).
func TestCompactAfterConversionShrinksTheFile(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	const n, dim = 400, 512
	write(t, db, func(ctx context.Context, tx *sqlite.Tx) error {
		for i := range n {
			hash := fmt.Sprintf("h%04d", i)
			if err := storage.UpsertEmbedding(ctx, tx, hash, "m1", dim, make([]byte, 4*dim)); err != nil {
				return err
			}
		}
		return nil
	})
	old, err := storage.LegacyEmbeddings(ctx, db.Reader(), 2*n)
	if err != nil || len(old) != n {
		t.Fatalf("float32 rows = %d, %v", len(old), err)
	}
	write(t, db, func(ctx context.Context, tx *sqlite.Tx) error {
		for _, e := range old {
			if err := storage.RewriteLegacyEmbedding(ctx, tx, e.ID, make([]byte, dim+4)); err != nil {
				return err
			}
		}
		return nil
	})
	if left, err := storage.LegacyEmbeddings(ctx, db.Reader(), 2*n); err != nil || len(left) != 0 {
		t.Fatalf("float32 rows after the rewrite = %d, %v", len(left), err)
	}
	before, after, err := db.CompactAfterConversion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before*2/3 {
		t.Fatalf("file %d → %d bytes: not compacted", before, after)
	}
	addMemory(t, db, "a", "after the compaction", nil)
	if blob, err := storage.EmbeddingVector(ctx, db.Reader(), "h0001", "m1"); err != nil || len(blob) != dim+4 {
		t.Fatalf("vector after the compaction: %d bytes, %v", len(blob), err)
	}
}
