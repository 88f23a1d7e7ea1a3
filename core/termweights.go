package core

import (
	"context"

	"github.com/cairnmem/cairn/core/keyword"
)

// Query-side term weighting. Coverage, the share of a question's words a
// memory holds, counts every word alike, so "What did Caroline do at the
// support group?" is half answered by any turn saying "group". With
// search.coverage_idf, recall's coverage counts each word at its inverse
// document frequency in the keyword index (FTS5's idf, the one BM25 uses),
// so a memory holding the rare words of a question covers more of it
// than one holding its common words. The relevance a hit reports (and the
// prompt gate reads) keeps the plain share.

// termWeights returns the IDF of each query term as the keyword index
// counts it (its Porter stem), or nil (all terms alike) when the index is
// off, not built yet or failing.
func (s *Service) termWeights(ctx context.Context, qterms []string) []float64 {
	if !s.cfg.Search.KeywordIndex || len(qterms) == 0 {
		return nil
	}
	ix, err := s.keyword.current(ctx)
	if err != nil || ix == nil {
		return nil
	}
	toks := make([]string, len(qterms))
	for i, t := range qterms {
		keyword.Tokenize(t, func(tok []byte) {
			if toks[i] == "" {
				toks[i] = string(tok)
			}
		})
	}
	return ix.IDF(toks)
}
