package core

import (
	"context"
	"fmt"
	"math"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// KeywordHit is one full-text match.
type KeywordHit struct {
	Memory *Memory
	// BM25 is FTS5's raw score: negative, lower is better.
	BM25 float64
	// Score maps |BM25| into [0,1) with |s|/(1+|s|), so a better match
	// scores higher (seed 000's 1/(1+|s|) runs the other way).
	Score float64
}

// KeywordSearch runs a sanitized full-text query over live memories that
// match f, best first.
func (s *Service) KeywordSearch(ctx context.Context, query string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	match := text.SanitizeFTSQuery(query)
	if match == "" || limit <= 0 {
		return []KeywordHit{}, nil
	}
	return s.keywordMatch(ctx, match, f, limit)
}

func (s *Service) keywordMatch(ctx context.Context, match string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	where, args := f.Where()
	// Rank inside FTS5 first and join only the best rows: joining every
	// matching row before sorting cost several times more at 100k
	// memories. The inner limit leaves room for rows the filter drops;
	// when it drops too many (or there are few matches), rank over the
	// join instead, which is exact.
	fast := `SELECT ` + storage.MemoryColumns + `, f.s FROM (
		SELECT rowid, bm25(memories_fts) AS s FROM memories_fts WHERE memories_fts MATCH ? ORDER BY s LIMIT ?
	) f JOIN memories m ON m.rid = f.rowid WHERE ` + where + ` ORDER BY f.s LIMIT ?`
	// A filter (a project, a type) keeps a share of the matches: widen the
	// inner ranking once before falling back to the exact join.
	for _, inner := range []int{4*limit + 64, 32*limit + 512} {
		out, err := s.scanKeyword(ctx, fast, append(append([]any{match, inner}, args...), limit)...)
		if err != nil || len(out) >= limit {
			return out, err
		}
	}
	full := `SELECT ` + storage.MemoryColumns + `, bm25(memories_fts) AS s
		FROM memories_fts JOIN memories m ON m.rid = memories_fts.rowid
		WHERE memories_fts MATCH ? AND ` + where + `
		ORDER BY s LIMIT ?`
	return s.scanKeyword(ctx, full, append(append([]any{match}, args...), limit)...)
}

func (s *Service) scanKeyword(ctx context.Context, query string, args ...any) ([]KeywordHit, error) {
	rows, err := s.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	out := []KeywordHit{}
	for rows.Next() {
		var bm float64
		m, err := storage.ScanMemory(bm25Scanner{rows, &bm})
		if err != nil {
			return nil, err
		}
		a := math.Abs(bm)
		out = append(out, KeywordHit{Memory: viewOf(m), BM25: bm, Score: a / (1 + a)})
	}
	return out, rows.Err()
}

// bm25Scanner appends the bm25 column to a ScanMemory scan.
type bm25Scanner struct {
	rows interface{ Scan(...any) error }
	bm   *float64
}

func (b bm25Scanner) Scan(dest ...any) error { return b.rows.Scan(append(dest, b.bm)...) }
