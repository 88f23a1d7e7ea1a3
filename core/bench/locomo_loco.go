package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/storage"
)

// Leave-one-conversation-out. Every value tuned on LoCoMo is chosen on all
// conversations but one and scored on that one, each conversation held
// out in turn: the mean over the held-out folds says what a tuned value
// is worth on a conversation nobody tuned on, which the in-sample figure
// (tuned and scored on the same conversations) overstates.

// Answer is one question's result under one configuration.
type Answer struct {
	Sample   string
	Category int
	Scores   Scores
}

// Answers are every question's results under one configuration, in the
// order of the samples and their questions.
type Answers []Answer

// Headline reports whether a category counts in the headline (codes 1-4).
func Headline(category int) bool { return category >= 1 && category <= 4 }

// Mean is the mean R@10 (as a fraction) and MRR of the answers that keep
// selects; n is how many it selected.
func (a Answers) Mean(keep func(Answer) bool) (r10, mrr float64, n int) {
	for _, x := range a {
		if keep(x) {
			r10 += x.Scores.R10
			mrr += x.Scores.MRR
			n++
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	return r10 / float64(n), mrr / float64(n), n
}

// Agg aggregates the answers that keep selects by category.
func (a Answers) Agg(keep func(Answer) bool) *Agg {
	agg := NewAgg()
	for _, x := range a {
		if keep(x) {
			agg.Add(x.Category, x.Scores)
		}
	}
	return agg
}

// In selects the answers of the given samples; Out those of the others.
func In(samples ...string) func(Answer) bool {
	return func(x Answer) bool { return slices.Contains(samples, x.Sample) }
}

// Out selects the answers of every sample but the given ones.
func Out(samples ...string) func(Answer) bool {
	return func(x Answer) bool { return !slices.Contains(samples, x.Sample) }
}

// Scored selects the headline answers (codes 1-4) that keep selects.
func Scored(keep func(Answer) bool) func(Answer) bool {
	return func(x Answer) bool { return Headline(x.Category) && keep(x) }
}

// Factor is one tuned value: a configuration key and the values tried.
// The first value turns the factor off (0, false, …): a factor is kept
// only when tuning it beats that on held-out conversations.
type Factor struct {
	Key    string
	Values []string
}

// Level is a factor at one of its values.
type Level struct {
	Factor int
	Value  string
}

// Setting is a configuration: the base with some factors at other values,
// keyed by the sorted overrides that differ from the base.
type Setting []Level

// Key is the setting's identity: its overrides, sorted, as section.key=value.
func (s Setting) Key(factors []Factor) string {
	return strings.Join(s.Sets(factors), " ")
}

// Sets are the setting's overrides as --set arguments, sorted.
func (s Setting) Sets(factors []Factor) []string {
	out := make([]string, 0, len(s))
	for _, l := range s {
		out = append(out, factors[l.Factor].Key+"="+l.Value)
	}
	sort.Strings(out)
	return out
}

// With returns s with factor f at value v (v "" leaves f at the base).
func (s Setting) With(f int, v string) Setting {
	out := make(Setting, 0, len(s)+1)
	for _, l := range s {
		if l.Factor != f {
			out = append(out, l)
		}
	}
	if v != "" {
		out = append(out, Level{f, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Factor < out[j].Factor })
	return out
}

// Value is the value of factor f in s, or "" (the base's).
func (s Setting) Value(f int) string {
	for _, l := range s {
		if l.Factor == f {
			return l.Value
		}
	}
	return ""
}

// Evaluator answers every question under a setting (the caller measures
// each setting once and caches it).
type Evaluator func(ctx context.Context, s Setting) (Answers, error)

// Tune chooses, for each factor of only (every factor when only is nil)
// in turn, the value whose answers score the best mean R@10 (codes 1-4) on
// the questions train selects, the other factors at what was chosen so
// far (coordinate ascent from the base, rounds passes over the factors).
// base[f] is the value equal to the base configuration's ("" when none of
// the values is), which wins ties: a factor moves only for a strict gain
// on the training questions.
func Tune(ctx context.Context, factors []Factor, base []string, only []int, rounds int, train func(Answer) bool, eval Evaluator) (Setting, error) {
	cur := Setting{}
	score := func(s Setting) (float64, error) {
		a, err := eval(ctx, s)
		if err != nil {
			return 0, err
		}
		r, _, _ := a.Mean(Scored(train))
		return r, nil
	}
	best, err := score(cur)
	if err != nil {
		return nil, err
	}
	for range max(1, rounds) {
		moved := false
		for f, fac := range factors {
			if only != nil && !slices.Contains(only, f) {
				continue
			}
			for _, v := range fac.Values {
				if v == base[f] {
					v = ""
				}
				if v == cur.Value(f) {
					continue
				}
				cand := cur.With(f, v)
				r, err := score(cand)
				if err != nil {
					return nil, err
				}
				if r > best+1e-12 {
					best, cur, moved = r, cand, true
				}
			}
		}
		if !moved {
			break
		}
	}
	return cur, nil
}

// Spread summarises per-fold figures: their mean, standard deviation
// (population), least and greatest.
type Spread struct {
	Mean, SD, Min, Max float64
}

// SpreadOf summarises xs.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	for _, x := range xs {
		s.SD += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(s.SD / float64(len(xs)))
	return s
}

// Wins counts the folds where a beats b by more than a rounding error, and
// where b beats a.
func Wins(a, b []float64) (wins, losses int) {
	for i := range a {
		switch {
		case a[i] > b[i]+1e-9:
			wins++
		case b[i] > a[i]+1e-9:
			losses++
		}
	}
	return wins, losses
}

// AskEach asks every question of in's samples through POST
// /api/memory/recall (k memories, within the question's conversation) from
// clients concurrent callers and returns each question's scores.
func AskEach(ctx context.Context, cl *client.Remote, in *Ingested, mode string, k, clients int) (Answers, error) {
	type job struct {
		sample string
		q      Question
	}
	var jobs []job
	for _, sm := range in.Samples {
		for _, q := range sm.Questions {
			jobs = append(jobs, job{sm.ID, q})
		}
	}
	out := make(Answers, len(jobs))
	clients = max(1, min(clients, len(jobs)))
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; i < len(jobs); i += clients {
				j := jobs[i]
				res, err := cl.Recall(ctx, core.RecallInput{Query: j.q.Question, Limit: k, Mode: mode,
					Filter: storage.MemoryFilter{Project: j.sample}, NoTracking: true})
				if err != nil {
					errs[c] = fmt.Errorf("%s recall %q: %w", modeName(mode), j.q.Question, err)
					return
				}
				out[i] = Answer{Sample: j.sample, Category: j.q.Category, Scores: ScoreRanking(in.rank(j.sample, res.Results), j.q.Evidence, k)}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
