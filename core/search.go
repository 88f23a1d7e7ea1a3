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
	// Rank inside FTS5 first and join only the best rows: joining every
	// matching row before sorting cost several times more at 100k
	// memories. The inner limit leaves room for rows the filter drops;
	// when it drops too many (or there are few matches), rank over the
	// join instead, which is exact.
	r := s.db.Reader()
	// A filter (a project, a type) keeps a share of the matches: widen the
	// inner ranking once before falling back to the exact join.
	for _, inner := range []int{4*limit + 64, 32*limit + 512} {
		out, err := keywordHits(storage.SearchFTSRanked(ctx, r, match, f, inner, limit))
		if err != nil || len(out) >= limit {
			return out, err
		}
	}
	return keywordHits(storage.SearchFTS(ctx, r, match, f, limit))
}

// keywordHits scores storage's full-text hits.
func keywordHits(hits []storage.FTSHit, err error) ([]KeywordHit, error) {
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	out := make([]KeywordHit, 0, len(hits))
	for _, h := range hits {
		a := math.Abs(h.BM25)
		out = append(out, KeywordHit{Memory: viewOf(h.Memory), BM25: h.BM25, Score: a / (1 + a)})
	}
	return out, nil
}
