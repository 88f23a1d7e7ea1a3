package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/core/vectors"
)

// The relevance floor of the vector leg (search.min_vector_similarity): a
// hit that shares no content word with the query is a result only if its
// cosine similarity is above what the model gives unrelated text. The floor
// is measured here, per model: every question of a LoCoMo file against its
// own evidence turns (related pairs) and against turns of the other
// conversations (unrelated pairs: other people, other lives).

// Dist summarizes a set of cosine similarities.
type Dist struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Above is the share of xs (sorted) at or above v.
func above(xs []float64, v float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i, _ := slices.BinarySearch(xs, v)
	return float64(len(xs)-i) / float64(len(xs))
}

func distOf(xs []float64) Dist {
	slices.Sort(xs)
	q := func(p float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		return math.Round(xs[min(len(xs)-1, int(p*float64(len(xs))))]*1000) / 1000
	}
	return Dist{N: len(xs), P50: q(0.5), P90: q(0.9), P95: q(0.95), P99: q(0.99), P999: q(0.999), Max: q(1)}
}

// FloorReport is the calibration of one embedding model.
type FloorReport struct {
	Model     string `json:"model"`
	Related   Dist   `json:"related"`
	Unrelated Dist   `json:"unrelated"`
	// Suggested is the floor: the unrelated pairs' 99th percentile.
	Suggested float64 `json:"suggested_floor"`
	// RelatedAbove is the share of related pairs at or above the floor
	// (the evidence the vector leg alone still finds); UnrelatedAbove the
	// share of unrelated pairs that still pass.
	RelatedAbove   float64 `json:"related_above"`
	UnrelatedAbove float64 `json:"unrelated_above"`
}

// CalibrateFloor embeds every turn and every question (as recall embeds
// it, core.VectorQuery) with emb and measures both distributions; each
// question meets perQuestion turns of other conversations, drawn with a
// fixed seed so runs are comparable. It needs at least two conversations.
func CalibrateFloor(ctx context.Context, emb vectors.Embedder, samples []Sample, perQuestion int) (*FloorReport, error) {
	if len(samples) < 2 {
		return nil, fmt.Errorf("floor calibration needs at least two conversations, the file has %d", len(samples))
	}
	type turnRef struct{ sample, turn int }
	var texts []string
	var refs []turnRef
	turnIdx := map[[2]int]int{}
	for si, s := range samples {
		for ti, t := range s.Turns {
			turnIdx[[2]int{si, ti}] = len(texts)
			refs = append(refs, turnRef{si, ti})
			texts = append(texts, Content(t))
		}
	}
	turnVecs, err := embedAll(ctx, emb, texts)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var related, unrelated []float64
	for si, s := range samples {
		var qs []string
		for _, q := range s.Questions {
			qs = append(qs, core.VectorQuery(q.Question))
		}
		qv, err := embedAll(ctx, emb, qs)
		if err != nil {
			return nil, err
		}
		dia := map[string]int{}
		for ti, t := range s.Turns {
			dia[t.DiaID] = ti
		}
		for qi, q := range s.Questions {
			for _, ev := range q.Evidence {
				if ti, ok := dia[ev]; ok {
					related = append(related, float64(vector.Dot(qv[qi], turnVecs[turnIdx[[2]int{si, ti}]])))
				}
			}
			for n := 0; n < perQuestion; {
				r := refs[rng.IntN(len(refs))]
				if r.sample == si {
					continue
				}
				unrelated = append(unrelated, float64(vector.Dot(qv[qi], turnVecs[turnIdx[[2]int{r.sample, r.turn}]])))
				n++
			}
		}
	}
	rep := &FloorReport{Model: emb.Model(), Related: distOf(related), Unrelated: distOf(unrelated)}
	rep.Suggested = rep.Unrelated.P99
	rep.RelatedAbove = math.Round(1000*above(related, rep.Suggested)) / 1000
	rep.UnrelatedAbove = math.Round(1000*above(unrelated, rep.Suggested)) / 1000
	return rep, nil
}

// embedAll embeds texts in batches and normalizes the vectors.
func embedAll(ctx context.Context, emb vectors.Embedder, texts []string) ([][]float32, error) {
	const batch = 64
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		vs, err := emb.Embed(ctx, texts[start:min(start+batch, len(texts))])
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		for _, v := range vs {
			vector.Normalize(v)
			out = append(out, v)
		}
	}
	return out, nil
}
