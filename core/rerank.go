package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cairnmem/cairn/core/text"
)

// Reranker is a reranking model: it scores each document's relevance to
// the query (higher is more relevant; one score per document, in order).
type Reranker interface {
	Name() string
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// rerankDocChars bounds each document sent to the reranker.
const rerankDocChars = 2000

// modelRerank hands the best reranker.top_n candidates of ranked (sorted
// best first) to the reranking model and orders them by its scores; the
// rest keep their order after them. On a timeout or any error the order
// is ranked's own, with no second attempt. The model's score is
// each reranked hit's ModelRerank part in explain.
func (s *Service) modelRerank(ctx context.Context, query string, ranked []*candidate) []*candidate {
	if s.reranker == nil || len(ranked) < 2 {
		return ranked
	}
	n := min(len(ranked), max(s.cfg.Reranker.TopN, 1))
	docs := make([]string, n)
	for i, c := range ranked[:n] {
		docs[i] = text.Truncate(c.mem.Content, rerankDocChars)
	}
	rctx, cancel := context.WithTimeout(ctx, s.cfg.Reranker.Timeout.D())
	defer cancel()
	start := time.Now()
	scores, err := s.reranker.Rerank(rctx, query, docs)
	if err == nil && len(scores) != n {
		err = fmt.Errorf("the reranker gave %d scores for %d documents", len(scores), n)
	}
	if err != nil {
		s.rerankFailures.Add(1)
		s.log.Debug("rerank skipped: recall keeps its order", "reranker", s.reranker.Name(), "err", err, "took", time.Since(start))
		return ranked
	}
	head := slices.Clone(ranked[:n])
	for i, c := range head {
		c.model, c.reranked = scores[i], true
	}
	slices.SortStableFunc(head, func(a, b *candidate) int {
		switch {
		case a.model > b.model:
			return -1
		case a.model < b.model:
			return 1
		}
		return 0
	})
	return append(head, ranked[n:]...)
}

// RerankFailures counts rerankings that timed out or failed (recall kept
// its own order).
func (s *Service) RerankFailures() int64 { return s.rerankFailures.Load() }
