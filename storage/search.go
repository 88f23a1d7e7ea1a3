package storage

import "context"

// Full-text search over memories_fts, an external-content FTS5 index of
// memories.content keyed by memories.rid.

// FTSHit is a memory matching a full-text query.
type FTSHit struct {
	Memory *Memory
	// BM25 is FTS5's raw score: negative, lower is better.
	BM25 float64
}

// SearchFTSRanked returns up to limit memories passing f among the inner
// best matches of the FTS5 expression match, best first. Ranking inside
// FTS5 and joining only the best rows is several times faster than
// SearchFTS at 100k memories, but a filter that drops many of the inner
// rows leaves fewer than limit hits although more exist.
func SearchFTSRanked(ctx context.Context, q Querier, match string, f MemoryFilter, inner, limit int) ([]FTSHit, error) {
	where, args := f.Where()
	query := `SELECT ` + memoryColumns + `, f.s FROM (
		SELECT rowid, bm25(memories_fts) AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT ?
	) f JOIN memories m ON m.rid = f.rowid WHERE ` + where + ` ORDER BY f.s LIMIT ?`
	return searchFTS(ctx, q, query, append(append([]any{match, inner}, args...), limit)...)
}

// SearchFTS returns the best limit memories passing f that match the FTS5
// expression match, ranking over the join (exact).
func SearchFTS(ctx context.Context, q Querier, match string, f MemoryFilter, limit int) ([]FTSHit, error) {
	where, args := f.Where()
	query := `SELECT ` + memoryColumns + `, bm25(memories_fts) AS s
		FROM memories_fts JOIN memories m ON m.rid = memories_fts.rowid
		WHERE memories_fts MATCH ? AND ` + where + `
		ORDER BY s LIMIT ?`
	return searchFTS(ctx, q, query, append(append([]any{match}, args...), limit)...)
}

func searchFTS(ctx context.Context, q Querier, query string, args ...any) ([]FTSHit, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []FTSHit{}
	for rows.Next() {
		var h FTSHit
		m, err := ScanMemory(extraScanner{rows, []any{&h.BM25}})
		if err != nil {
			return nil, err
		}
		h.Memory = m
		out = append(out, h)
	}
	return out, rows.Err()
}
