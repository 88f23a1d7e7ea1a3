package core

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cairnmem/cairn/core/keyword"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// KeywordHit is one full-text match.
type KeywordHit struct {
	Memory *Memory
	// BM25 is FTS5's raw score: negative, lower is better.
	BM25 float64
	// Score maps |BM25| into [0,1) with |s|/(1+|s|), so a better match
	// scores higher (docs/design/search.md, "BM25 normalization").
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

// keywordMaxInner bounds how many of the index's best documents a
// filtered search reads before it ranks over the filter's join instead.
const keywordMaxInner = 8192

func (s *Service) keywordMatch(ctx context.Context, match string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	// The in-memory index (keyindex.go) ranks as FTS5 does and stops
	// early; the rows of its best documents are then read with the
	// filter. A filter that drops many of them widens the search, and
	// past keywordMaxInner the exact join over FTS5 answers. A read-only
	// store (the hook shim answering without a server) searches FTS5: one
	// query costs less than building the index, and no commit of another
	// process would keep it current.
	if s.db.Postgres() {
		return keywordIndexOnly(ctx, s, match, f, limit)
	}
	if terms, ok := keyword.Query(matchPhrases(match)); ok && s.cfg.Search.KeywordIndex && !s.db.ReadOnly() {
		if ix, err := s.keyword.current(ctx); err != nil {
			s.log.Warn("keyword index unavailable; searching FTS5", "err", err)
		} else if ix != nil {
			for inner := limit + 16; inner <= keywordMaxInner; inner *= 8 {
				hits, more := ix.Search(terms, inner)
				out, err := s.indexHits(ctx, hits, f, limit)
				if err != nil || len(out) >= limit || !more {
					return out, err
				}
			}
			return keywordHits(storage.SearchFTS(ctx, s.db.Reader(), match, f, limit))
		}
	}
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

// keywordIndexOnly is the keyword leg on PostgreSQL, which has no FTS5:
// the in-memory index alone (followed by every server's commits through
// the change feed), widened while a filter drops its best documents, up
// to keywordMaxInner. While the index is first built it finds nothing:
// the vector leg answers meanwhile.
func keywordIndexOnly(ctx context.Context, s *Service, match string, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	terms, ok := keyword.Query(matchPhrases(match))
	if !ok {
		return []KeywordHit{}, nil
	}
	ix, err := s.keyword.current(ctx)
	if err != nil || ix == nil {
		return []KeywordHit{}, err
	}
	var out []KeywordHit
	for inner := limit + 16; inner <= keywordMaxInner; inner *= 8 {
		hits, more := ix.Search(terms, inner)
		if out, err = s.indexHits(ctx, hits, f, limit); err != nil || len(out) >= limit || !more {
			break
		}
	}
	return out, err
}

// matchPhrases splits a SanitizeFTSQuery expression ("a" OR "b") back
// into its terms.
func matchPhrases(match string) []string {
	parts := strings.Split(match, " OR ")
	for i, p := range parts {
		parts[i] = strings.Trim(p, `"`)
	}
	return parts
}

// indexHits reads the rows of the index's hits that pass f, in rank
// order, at most limit.
func (s *Service) indexHits(ctx context.Context, hits []keyword.Hit, f storage.MemoryFilter, limit int) ([]KeywordHit, error) {
	if len(hits) == 0 {
		return []KeywordHit{}, nil
	}
	rids := make([]int64, len(hits))
	for i, h := range hits {
		rids[i] = int64(h.ID)
	}
	rows, err := storage.MemoriesByRID(ctx, s.db.Reader(), rids, f)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	out := make([]KeywordHit, 0, min(limit, len(rows)))
	for _, h := range hits {
		m, ok := rows[int64(h.ID)]
		if !ok {
			continue
		}
		out = append(out, keywordHit(m, h.BM25))
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

func keywordHit(m *storage.Memory, bm25 float64) KeywordHit {
	a := math.Abs(bm25)
	return KeywordHit{Memory: ViewOf(m), BM25: bm25, Score: a / (1 + a)}
}

// keywordHits scores storage's full-text hits.
func keywordHits(hits []storage.FTSHit, err error) ([]KeywordHit, error) {
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	out := make([]KeywordHit, 0, len(hits))
	for _, h := range hits {
		out = append(out, keywordHit(h.Memory, h.BM25))
	}
	return out, nil
}
