package sqlite

import (
	"context"
	"strings"
)

// memories_fts is an external-content FTS5 index over memories.content and
// the content of each memory's predecessor in its session (the view
// memories_fts_source), kept by triggers on insert, hard delete and content
// update. Soft deletes leave it alone, so it holds one document per
// memories row, live or deleted; memories_fts_docsize holds one row per
// document.

const countFTSDocumentsQuery = `SELECT count(*) FROM memories_fts_docsize`

// CountFTSDocuments counts the documents the full-text index holds.
func CountFTSDocuments(ctx context.Context, q Querier) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, countFTSDocumentsQuery).Scan(&n)
	return n, err
}

const ftsIntegrityCheckQuery = `INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)`

// CheckFTSIntegrity runs FTS5's integrity-check, which also compares the
// index with the content table; it fails when they differ. It is an
// INSERT command, so it needs a write transaction (and changes nothing);
// it reads the whole index.
func CheckFTSIntegrity(ctx context.Context, tx *Tx) error {
	_, err := tx.ExecContext(ctx, ftsIntegrityCheckQuery)
	return err
}

const rebuildFTSQuery = `INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')`

// RebuildFTS rebuilds the full-text index from the memories table.
func RebuildFTS(ctx context.Context, tx *Tx) error {
	_, err := tx.ExecContext(ctx, rebuildFTSQuery)
	return err
}

// TermDocCounts returns, for each term, how many memories contain it in
// their own content (stemmed as the index stems; the context column does
// not count). Terms hold only letters, digits and marks (text.QueryTerms),
// so each is quoted as is.
func TermDocCounts(ctx context.Context, q Querier, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	for _, t := range terms {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, `content : "`+strings.ReplaceAll(t, `"`, `""`)+`"`).Scan(&n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, nil
}

const pageStatsQuery = `SELECT page_count, page_size, freelist_count FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()`

// PageStats returns the database file's page count, page size and free
// pages.
func PageStats(ctx context.Context, q Querier) (pages, size, free int64, err error) {
	err = q.QueryRowContext(ctx, pageStatsQuery).Scan(&pages, &size, &free)
	return
}
