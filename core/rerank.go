package core

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/config"
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

// modelRerank is recall's reranking by a model (reranker.enabled) and how
// often it failed.
type modelRerank struct {
	model    Reranker // nil: no model reranking
	cfg      config.RerankerConfig
	log      *slog.Logger
	failures atomic.Int64 // rerankings that failed or timed out
}

// apply hands the best reranker.top_n candidates of ranked (sorted best
// first) to the reranking model and orders them by its scores; the rest
// keep their order after them. On a timeout or any error the order is
// ranked's own, with no second attempt. The model's score is each
// reranked hit's ModelRerank part in explain.
func (r *modelRerank) apply(ctx context.Context, query string, ranked []*candidate) []*candidate {
	if r.model == nil || len(ranked) < 2 {
		return ranked
	}
	n := min(len(ranked), max(r.cfg.TopN, 1))
	docs := make([]string, n)
	for i, c := range ranked[:n] {
		docs[i] = text.Truncate(c.mem.Content, rerankDocChars)
	}
	rctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout.D())
	defer cancel()
	start := time.Now()
	scores, err := r.model.Rerank(rctx, query, docs)
	if err == nil && len(scores) != n {
		err = fmt.Errorf("the reranker gave %d scores for %d documents", len(scores), n)
	}
	if err != nil {
		r.failures.Add(1)
		r.log.Debug("rerank skipped: recall keeps its order", "reranker", r.model.Name(), "err", err, "took", time.Since(start))
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
func (s *Service) RerankFailures() int64 { return s.rerank.failures.Load() }
