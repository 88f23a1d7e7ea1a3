package engine

import (
	"context"

	"github.com/cairnmem/cairn/storage/dialect"
	"github.com/cairnmem/cairn/storage/seam"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// SQLite-only: the full-text index's bulk merging and upkeep, its
// vocabulary, the file's pages, and the vectors of stores from before
// SQLite's migration 0011. On PostgreSQL each answers ErrNotOnPostgres,
// but for BulkFTSMerge, which runs fn as it is (there is no index to
// merge), and the legacy vectors, of which there are none.

// lite is the SQLite engine's write transaction behind tx, or nil.
func lite(tx seam.Tx) *sqlite.Tx {
	t, _ := tx.(*sqlite.Tx)
	return t
}

// BulkFTSMerge runs fn, a bulk write in tx, with fewer index merges.
func BulkFTSMerge(ctx context.Context, tx seam.Tx, fn func() error) error {
	if t := lite(tx); t != nil {
		return sqlite.BulkFTSMerge(ctx, t, fn)
	}
	return fn()
}

// CountFTSDocuments counts the documents the full-text index holds.
func CountFTSDocuments(ctx context.Context, q seam.Querier) (int64, error) {
	if dialect.Of(q) == dialect.Postgres {
		return 0, ErrNotOnPostgres
	}
	return sqlite.CountFTSDocuments(ctx, q)
}

// CheckFTSIntegrity checks the full-text index against memories.
func CheckFTSIntegrity(ctx context.Context, tx seam.Tx) error {
	if t := lite(tx); t != nil {
		return sqlite.CheckFTSIntegrity(ctx, t)
	}
	return ErrNotOnPostgres
}

// RebuildFTS rebuilds the full-text index from memories.
func RebuildFTS(ctx context.Context, tx seam.Tx) error {
	if t := lite(tx); t != nil {
		return sqlite.RebuildFTS(ctx, t)
	}
	return ErrNotOnPostgres
}

// TermDocCounts returns, for each term, how many memories contain it.
func TermDocCounts(ctx context.Context, q seam.Querier, terms []string) (map[string]int, error) {
	if dialect.Of(q) == dialect.Postgres {
		return nil, ErrNotOnPostgres
	}
	return sqlite.TermDocCounts(ctx, q, terms)
}

// PageStats returns the database file's page count, page size and free pages.
func PageStats(ctx context.Context, q seam.Querier) (pages, size, free int64, err error) {
	if dialect.Of(q) == dialect.Postgres {
		return 0, 0, 0, ErrNotOnPostgres
	}
	return sqlite.PageStats(ctx, q)
}

// LegacyEmbeddings returns up to limit vectors still stored as float32:
// none on PostgreSQL, whose stores never had them.
func LegacyEmbeddings(ctx context.Context, q seam.Querier, limit int) ([]sqlite.LegacyEmbedding, error) {
	if dialect.Of(q) == dialect.Postgres {
		return nil, nil
	}
	return sqlite.LegacyEmbeddings(ctx, q, limit)
}

// RewriteLegacyEmbedding replaces the float32 vector of row id with blob.
func RewriteLegacyEmbedding(ctx context.Context, q seam.Querier, id int64, blob []byte) error {
	if dialect.Of(q) == dialect.Postgres {
		return ErrNotOnPostgres
	}
	return sqlite.RewriteLegacyEmbedding(ctx, q, id, blob)
}
