package hooks

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/storage"
)

// How the hooks use the learned ranker (core/ranker): the features
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
		x[ranker.FDurable] = 1
	case "session_summary":
		x[ranker.FSummary] = 1
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
	x := make([]float64, ranker.NumFeatures)
	x[ranker.FBias] = 1
	x[ranker.FDecay], x[ranker.FScore], x[ranker.FImportance] = c.m.Score, c.m.Score, c.m.Importance
	if d, ok := daysSince(c.m.CreatedAt, now); ok {
		x[ranker.FRecency] = math.Exp(-d / 30)
	}
	if d, ok := daysSince(c.lastAccess, now); ok && c.lastAccess != "" {
		x[ranker.FAccess] = math.Exp(-d / 7)
	}
	typeFeatures(x, c.m.Type)
	x[ranker.FSameProject], x[ranker.FPinned] = b01(c.sameProj), b01(c.m.Pinned)
	x[ranker.FRank] = 1 / float64(1+rank)
	return x
}

// promptFeatures are a prompt candidate's features at baseline rank: the
// parts of its recall score, and share, how much of the prompt it holds.
func promptFeatures(hit *core.RecallHit, share float64, rank int, sameProj bool, now time.Time) []float64 {
	x := make([]float64, ranker.NumFeatures)
	x[ranker.FBias] = 1
	if e := hit.Explain; e != nil {
		x[ranker.FKeyword], x[ranker.FCoverage], x[ranker.FVector], x[ranker.FGraph], x[ranker.FDecay] = e.Keyword, e.Coverage, e.Vector, e.Graph, e.Decay
	}
	x[ranker.FImportance], x[ranker.FScore], x[ranker.FShare] = hit.Importance, hit.Score, share
	if d, ok := daysSince(hit.CreatedAt, now); ok {
		x[ranker.FRecency] = math.Exp(-d / 30)
	}
	typeFeatures(x, hit.Type)
	x[ranker.FSameProject], x[ranker.FPinned] = b01(sameProj), b01(hit.Pinned)
	x[ranker.FRank] = 1 / float64(1+rank)
	return x
}

// learnedPick returns the order the hook picks from: the learned
// ranker's (adjusted by adjust when given) when it is active, else the
// baseline's; and, whenever a model exists, what each order would inject.
func (hk *Hooks) learnedPick(ctx context.Context, source string, feats [][]float64, pick func([]int) []int,
	idOf func(int) string, adjust func([]int) []int) ([]int, *RankerNote) {
	final := identity(len(feats))
	order, active := hk.predictor.Order(ctx, source, feats)
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
