package vectors

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
)

// queryEmbedTimeout bounds the query embedding on the hot path: a slow
// provider costs recall its vector leg, not its answer.
const queryEmbedTimeout = 3 * time.Second

// Query is a recall query embedded and searched in the index.
type Query struct {
	// Hits are the nearest live memories matching the filter, best first.
	Hits []vector.Hit
	ix   *vector.Index
	qv   []float32
}

// Similarity is the query's cosine similarity to memory id, if the index
// holds a vector for it (recall's exact similarity for the memories only
// the keyword leg found).
func (q *Query) Similarity(id string) (float32, bool) {
	v, ok := q.ix.Vector(id)
	if !ok {
		return 0, false
	}
	return vector.Dot(q.qv, v), true
}

// Search is recall's vector leg: it embeds text (through the query cache,
// within queryEmbedTimeout) and returns the k live memories nearest to it
// that match f. It fails, saying why, when the provider failed less than
// the backoff ago, the index cannot be loaded or the embedding fails:
// recall then answers without its vector leg.
func (v *Vectors) Search(ctx context.Context, text string, k int, f *storage.MemoryFilter) (*Query, error) {
	if pe := v.lastErr.Load(); pe != nil && v.now().Sub(pe.at) <= providerBackoff {
		return nil, fmt.Errorf("the embedding provider failed %s ago (%v); retrying after %s",
			v.now().Sub(pe.at).Round(time.Second), pe.err, providerBackoff)
	}
	ix, err := v.index(ctx)
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	qv, err := v.queryVector(qctx, text)
	cancel()
	if err != nil {
		return nil, err
	}
	v.maybeCalibrate(ix)
	return &Query{Hits: ix.Search(qv, k, f), ix: ix, qv: qv}, nil
}

// Similar returns the k live memories matching f nearest to memory id (id
// itself among them). ok is false when the index holds no vector for id.
func (v *Vectors) Similar(ctx context.Context, id string, k int, f *storage.MemoryFilter) (hits []vector.Hit, ok bool, err error) {
	ix, err := v.index(ctx)
	if err != nil {
		return nil, false, err
	}
	q, ok := ix.Vector(id)
	if !ok {
		return nil, false, nil
	}
	return ix.Search(q, k, f), true, nil
}
