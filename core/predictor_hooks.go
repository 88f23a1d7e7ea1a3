package core

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// How the hooks use the learned ranker (core/predictor.go): the features
// of each candidate, the model's order when it is active, and, whenever a
// model exists, what it and the baseline would each inject.

// RankerNote says, in a hook's answer, what the learned ranker did: Active
// when its order was used; Model and Baseline the memories each order
// would inject. Present only when predictor.enabled and a model exists.
type RankerNote struct {
	Active   bool     `json:"active"`
	Model    []string `json:"model"`
	Baseline []string `json:"baseline"`
}

// offerCandidates is how many candidates past the injected ones a session
// records (with their features) at session start: what the ranker could
// have chosen instead.
const offerCandidates = 20

func daysSince(ts string, now time.Time) (float64, bool) {
	t, err := storage.ParseTime(ts)
	if err != nil {
		return 0, false
	}
	return max(0, now.Sub(t).Hours()/24), true
}

func typeFeatures(x []float64, typ string) {
	switch typ {
	case "decision", "constraint", "preference", "rule":
		x[fDurable] = 1
	case "session_summary":
		x[fSummary] = 1
	}
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// startFeatures are a session-start candidate's features at baseline rank.
func startFeatures(c *startCandidate, rank int, now time.Time) []float64 {
	x := make([]float64, numFeatures)
	x[fBias] = 1
	x[fDecay], x[fScore], x[fImportance] = c.m.Score, c.m.Score, c.m.Importance
	if d, ok := daysSince(c.m.CreatedAt, now); ok {
		x[fRecency] = math.Exp(-d / 30)
	}
	if d, ok := daysSince(c.lastAccess, now); ok && c.lastAccess != "" {
		x[fAccess] = math.Exp(-d / 7)
	}
	typeFeatures(x, c.m.Type)
	x[fSameProject], x[fPinned] = b01(c.sameProj), b01(c.m.Pinned)
	x[fRank] = 1 / float64(1+rank)
	return x
}

// promptFeatures are a prompt candidate's features at baseline rank: the
// parts of its recall score, and share, how much of the prompt it holds.
func promptFeatures(hit *RecallHit, share float64, rank int, sameProj bool, now time.Time) []float64 {
	x := make([]float64, numFeatures)
	x[fBias] = 1
	if e := hit.Explain; e != nil {
		x[fKeyword], x[fCoverage], x[fVector], x[fGraph], x[fDecay] = e.Keyword, e.Coverage, e.Vector, e.Graph, e.Decay
	}
	x[fImportance], x[fScore], x[fShare] = hit.Importance, hit.Score, share
	if d, ok := daysSince(hit.CreatedAt, now); ok {
		x[fRecency] = math.Exp(-d / 30)
	}
	typeFeatures(x, hit.Type)
	x[fSameProject], x[fPinned] = b01(sameProj), b01(hit.Pinned)
	x[fRank] = 1 / float64(1+rank)
	return x
}

// learnedOrder is the model's order of candidates (given in baseline
// order, with their features) and whether it is to be used; nil when the
// ranker is off or has no model for source.
func (s *Hooks) learnedOrder(ctx context.Context, source string, feats [][]float64) ([]int, bool) {
	if !s.svc.cfg.Predictor.Enabled || len(feats) == 0 {
		return nil, false
	}
	st := s.svc.loadPredictor(ctx)
	if st == nil || st.Models[source] == nil {
		return nil, false
	}
	active, _ := s.svc.predictorActive(st)
	return st.Models[source].order(feats), active
}

// learnedPick returns the order the hook picks from: the learned
// ranker's (adjusted by adjust when given) when it is active, else the
// baseline's; and, whenever a model exists, what each order would inject.
func (s *Hooks) learnedPick(ctx context.Context, source string, feats [][]float64, pick func([]int) []int,
	idOf func(int) string, adjust func([]int) []int) ([]int, *RankerNote) {
	final := identity(len(feats))
	order, active := s.learnedOrder(ctx, source, feats)
	if order == nil {
		return final, nil
	}
	if adjust != nil {
		order = adjust(order)
	}
	note := &RankerNote{Active: active, Model: idsAt(pick(order), idOf), Baseline: idsAt(pick(final), idOf)}
	if active {
		final = order
	}
	return final, note
}

// identity is 0..n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// pinnedFirst keeps pinned candidates first in order (they are always
// injected), the rest in order's order.
func pinnedFirst(order []int, pinned func(i int) bool) []int {
	out := slices.Clone(order)
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case pinned(a) == pinned(b):
			return 0
		case pinned(a):
			return -1
		}
		return 1
	})
	return out
}

// idsAt maps candidate indexes to memory ids.
func idsAt(idx []int, id func(i int) string) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = id(i)
	}
	return out
}

// offersOf are the rows session_memories records for candidates: each
// in final order with its rank there and baseline features; the injected
// ones and, of the rest, the first extra.
func offersOf(final []int, injected map[int]bool, extra int, group int, feats [][]float64, id func(i int) string, score func(i int) float64) []*storage.SessionMemory {
	var out []*storage.SessionMemory
	for rank, i := range final {
		if !injected[i] {
			if extra <= 0 {
				continue
			}
			extra--
		}
		out = append(out, &storage.SessionMemory{MemoryID: id(i), Rank: rank, Score: score(i), WasInjected: injected[i],
			Group: group, Features: feats[i]})
	}
	return out
}
