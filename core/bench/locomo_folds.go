package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// The leave-one-conversation-out run (`cairn bench locomo --loco`). The
// turns are remembered once per ingest configuration (a store: a kept
// server home, its workers drained); every setting that only changes
// ranking is then measured by a server of its own started on that home,
// so a sweep of many settings costs one ingest and one pass of questions
// per setting.

// IngestKeys are the configuration keys (or key prefixes, ending in ".")
// that change what is written, not only how it is ranked: a setting with
// one of them needs a store of its own.
var IngestKeys = []string{"search.session_context", "hints.", "pipeline.", "pipeline_v2.", "embedding.", "graph.enabled", "memory.chunk"}

// ingestSet reports whether the override section.key=value is read when
// memories are written.
func ingestSet(kv string) bool {
	key, _, _ := strings.Cut(kv, "=")
	for _, p := range IngestKeys {
		if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
			return true
		}
	}
	return false
}

// LocoOptions configure a leave-one-conversation-out run.
type LocoOptions struct {
	Binary string
	// Set are the overrides of every server (the base configuration).
	Set     []string
	Factors []Factor
	// Base[f] is the value of factor f equal to the base configuration
	// ("" when none is).
	Base    []string
	Rounds  int
	K       int
	Clients int // concurrent callers asking the questions
	// Ingest is how many callers remember the turns.
	Ingest int
	Drain  time.Duration
	Keep   bool
}

// store is one ingest: a kept home folder with the turns remembered and
// the background work drained.
type store struct {
	home string
	in   *Ingested
}

// Loco runs the folds.
type Loco struct {
	o        LocoOptions
	samples  []Sample
	progress io.Writer
	stores   map[string]*store
	answers  map[string]Answers // by setting key (and mode)
	// Servers and their time, for the report.
	Servers int
	Elapsed time.Duration
}

// NewLoco prepares a run over samples.
func NewLoco(o LocoOptions, samples []Sample, progress io.Writer) *Loco {
	return &Loco{o: o, samples: samples, progress: progress, stores: map[string]*store{}, answers: map[string]Answers{}}
}

// Close removes the stores' home folders unless they are kept.
func (l *Loco) Close() {
	for _, st := range l.stores {
		if l.o.Keep {
			fmt.Fprintf(l.progress, "bench: loco: store kept in %s\n", st.home)
			continue
		}
		os.RemoveAll(st.home)
	}
}

// store returns the store for the ingest-time overrides sets, remembering
// the turns on a new server the first time.
func (l *Loco) store(ctx context.Context, sets []string) (*store, error) {
	key := strings.Join(sets, " ")
	if st, ok := l.stores[key]; ok {
		return st, nil
	}
	t0 := time.Now()
	all := append(append([]string{}, l.o.Set...), sets...)
	fmt.Fprintf(l.progress, "bench: loco: ingest %s\n", orBase(key))
	srv, err := StartServer(ctx, ServerOptions{Name: "ingest", Binary: l.o.Binary, Set: all, Keep: true})
	if err != nil {
		return nil, err
	}
	st := &store{home: srv.Home()}
	l.stores[key] = st
	defer srv.Stop()
	if _, err := srv.Drain(ctx, l.o.Drain, io.Discard); err != nil {
		return nil, err
	}
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	if st.in, err = IngestAPI(ctx, srv.Client, l.samples, l.o.Ingest, l.progress); err != nil {
		return nil, err
	}
	if _, err := srv.Drain(ctx, l.o.Drain, l.progress); err != nil {
		return nil, err
	}
	if err := srv.Stop(); err != nil {
		return nil, err
	}
	fmt.Fprintf(l.progress, "bench: loco: ingest done in %s\n", time.Since(t0).Round(time.Second))
	return st, nil
}

func orBase(key string) string {
	if key == "" {
		return "(base)"
	}
	return key
}

// Answers measures every question under the overrides sets in recall mode
// mode (a server on the store of sets' ingest-time overrides), once.
func (l *Loco) Answers(ctx context.Context, sets []string, mode string) (Answers, error) {
	key := strings.Join(sets, " ") + "|" + mode
	if a, ok := l.answers[key]; ok {
		return a, nil
	}
	var ingest []string
	for _, kv := range sets {
		if ingestSet(kv) {
			ingest = append(ingest, kv)
		}
	}
	st, err := l.store(ctx, ingest)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	srv, err := StartServer(ctx, ServerOptions{Name: "loco", Binary: l.o.Binary, Home: st.home, Set: append(append([]string{}, l.o.Set...), sets...)})
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	if err := srv.WaitEmbedderReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	if _, err := srv.Drain(ctx, l.o.Drain, io.Discard); err != nil {
		return nil, err
	}
	a, err := AskEach(ctx, srv.Client, st.in, mode, l.o.K, l.o.Clients)
	if err != nil {
		return nil, err
	}
	if err := srv.Stop(); err != nil {
		return nil, err
	}
	l.Servers++
	r, _, _ := a.Mean(Scored(func(Answer) bool { return true }))
	fmt.Fprintf(l.progress, "bench: loco: %-60s R@10 %.1f (%s)\n", orBase(strings.Join(sets, " "))+" "+modeName(mode), 100*r, time.Since(t0).Round(100*time.Millisecond))
	l.answers[key] = a
	return a, nil
}

// eval is Answers for a setting of the factors, in the default mode.
func (l *Loco) eval(ctx context.Context, s Setting) (Answers, error) {
	return l.Answers(ctx, s.Sets(l.o.Factors), "")
}

// BM25Sets is plain BM25 through cairn: the FTS5 index (Porter stemming,
// stopwords dropped from the question), keyword recall, no session
// context, neighbour lift, coverage, speaker factor, dampening, graph,
// evidence or score floor; no embedder and no pipeline.
var BM25Sets = []string{"embedding.provider=none", "graph.boost_weight=0", "hints.enabled=false", "memory.evidence_weight=0",
	"pipeline.enabled=false", "search.coverage_weight=0", "search.dampening=false", "search.min_score=0",
	"search.neighbor_weight=0", "search.session_context=false", "search.speaker_weight=0"}

// FoldFigures are one configuration's figures on one held-out
// conversation (percentages; MRR as a fraction).
type FoldFigures struct {
	R10         float64 `json:"r_at_10"` // codes 1-4
	MRR         float64 `json:"mrr"`     // codes 1-4
	R10All      float64 `json:"r_at_10_all"`
	Adversarial float64 `json:"r_at_10_adversarial"`
}

func figuresOf(a Answers, keep func(Answer) bool) FoldFigures {
	r, m, _ := a.Mean(Scored(keep))
	all, _, _ := a.Mean(keep)
	adv, _, _ := a.Mean(func(x Answer) bool { return x.Category == 5 && keep(x) })
	pct := func(v float64) float64 { return math.Round(1000*v) / 10 }
	return FoldFigures{R10: pct(r), MRR: math.Round(1000*m) / 1000, R10All: pct(all), Adversarial: pct(adv)}
}

// Fold is one held-out conversation.
type Fold struct {
	Sample    string      `json:"held_out"`
	Questions int         `json:"questions"` // codes 1-4
	Chosen    []string    `json:"chosen"`    // the overrides tuned on the other conversations
	Tuned     FoldFigures `json:"tuned"`
	Base      FoldFigures `json:"base"`
	BM25      FoldFigures `json:"bm25"`
}

// FactorFold is one factor on one held-out conversation: the value tuned
// on the others (the rest at the base) and the held-out figures with it,
// with the factor off, and at the base value.
type FactorFold struct {
	Chosen string      `json:"chosen"`
	Tuned  FoldFigures `json:"tuned"`
	Off    FoldFigures `json:"off"`
	Base   FoldFigures `json:"base"`
}

// FactorReport says whether tuning a factor generalizes: per fold, and the
// folds where the tuned factor beat the factor off (and lost to it), on
// R@10 of codes 1-4 (the rule), of all codes and of the adversarial
// questions (code 5).
type FactorReport struct {
	Key       string       `json:"key"`
	Values    []string     `json:"values"`
	Base      string       `json:"base"`
	Folds     []FactorFold `json:"folds"`
	Wins      int          `json:"wins_vs_off"`
	Losses    int          `json:"losses_vs_off"`
	WinsAll   int          `json:"wins_vs_off_all_codes"`
	LossesAll int          `json:"losses_vs_off_all_codes"`
	WinsAdv   int          `json:"wins_vs_off_adversarial"`
	LossesAdv int          `json:"losses_vs_off_adversarial"`
	BaseWins  int          `json:"base_wins_vs_off"`
	BaseLoss  int          `json:"base_losses_vs_off"`
	// Generalizes: tuned beats off on R@10 (codes 1-4) on at least
	// AdoptShare of the folds (four of five).
	Generalizes bool   `json:"generalizes"`
	InSample    string `json:"in_sample_choice"`
	// ByValue are the held-out figures of each value tried, fixed (the
	// rest at the base): no value is tuned, so every fold is held out.
	ByValue []ValueFigures `json:"by_value"`
}

// ValueFigures are a factor's figures at one fixed value, per held-out
// conversation, and their mean.
type ValueFigures struct {
	Value string        `json:"value"`
	Folds []FoldFigures `json:"folds"`
	Mean  FoldFigures   `json:"mean"`
}

// AdoptShare is the share of held-out folds a factor must win to be
// adopted (issue 32: four of five).
const AdoptShare = 0.8

// generalizes reports whether wins of n folds reach AdoptShare.
func generalizes(wins, n int) bool {
	return n > 0 && float64(wins) >= AdoptShare*float64(n)-1e-9
}

// LocoReport is every figure of a leave-one-conversation-out run.
type LocoReport struct {
	Data   string   `json:"data"`
	K      int      `json:"k"`
	Set    []string `json:"set,omitempty"`
	Rounds int      `json:"rounds"`
	Folds  []Fold   `json:"folds"`
	// Summary spreads the held-out figures over the folds: R@10 (codes
	// 1-4), MRR and all-codes R@10 of the tuned configuration, the base
	// and BM25 ("tuned_r_at_10", "bm25_mrr", "base_r_at_10_all", …).
	Summary map[string]Spread `json:"summary"`
	// Pooled held-out answers by category (each question once, under its
	// fold's tuned configuration), the base's and BM25's.
	PooledTuned []Row `json:"pooled_tuned"`
	PooledBase  []Row `json:"pooled_base"`
	PooledBM25  []Row `json:"pooled_bm25"`
	// InSample is the configuration tuned on every conversation and
	// scored on them (the figure LOCO replaces as the headline).
	InSampleChosen []string       `json:"in_sample_chosen"`
	InSample       []Row          `json:"in_sample"`
	InSampleBase   []Row          `json:"in_sample_base"`
	Factors        []FactorReport `json:"factors"`
	Servers        int            `json:"servers"`
	Stores         int            `json:"stores"`
	ElapsedS       float64        `json:"elapsed_s"`
}

// Run tunes and scores every fold, the factors one by one, and the
// in-sample figure.
func (l *Loco) Run(ctx context.Context, data string) (*LocoReport, error) {
	t0 := time.Now()
	o := l.o
	rep := &LocoReport{Data: data, K: o.K, Set: o.Set, Rounds: max(1, o.Rounds), Summary: map[string]Spread{}}
	bm25, err := l.Answers(ctx, BM25Sets, "keyword")
	if err != nil {
		return nil, err
	}
	base, err := l.eval(ctx, Setting{})
	if err != nil {
		return nil, err
	}
	all := func(Answer) bool { return true }
	var pooled Answers
	var tR, bR, mR, tM, bM, mM, tA, bA, mA []float64
	for _, sm := range l.samples {
		held := In(sm.ID)
		s, err := Tune(ctx, o.Factors, o.Base, nil, o.Rounds, Out(sm.ID), l.eval)
		if err != nil {
			return nil, err
		}
		a, err := l.eval(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, x := range a {
			if held(x) {
				pooled = append(pooled, x)
			}
		}
		_, _, n := a.Mean(Scored(held))
		f := Fold{Sample: sm.ID, Questions: n, Chosen: s.Sets(o.Factors), Tuned: figuresOf(a, held), Base: figuresOf(base, held), BM25: figuresOf(bm25, held)}
		rep.Folds = append(rep.Folds, f)
		tR, bR, mR = append(tR, f.Tuned.R10), append(bR, f.Base.R10), append(mR, f.BM25.R10)
		tM, bM, mM = append(tM, f.Tuned.MRR), append(bM, f.Base.MRR), append(mM, f.BM25.MRR)
		tA, bA, mA = append(tA, f.Tuned.R10All), append(bA, f.Base.R10All), append(mA, f.BM25.R10All)
	}
	rep.Summary["tuned_r_at_10"], rep.Summary["base_r_at_10"], rep.Summary["bm25_r_at_10"] = SpreadOf(tR), SpreadOf(bR), SpreadOf(mR)
	rep.Summary["tuned_mrr"], rep.Summary["base_mrr"], rep.Summary["bm25_mrr"] = SpreadOf(tM), SpreadOf(bM), SpreadOf(mM)
	rep.Summary["tuned_r_at_10_all"], rep.Summary["base_r_at_10_all"], rep.Summary["bm25_r_at_10_all"] = SpreadOf(tA), SpreadOf(bA), SpreadOf(mA)
	rep.PooledTuned, rep.PooledBase, rep.PooledBM25 = pooled.Agg(all).Rows(), base.Agg(all).Rows(), bm25.Agg(all).Rows()

	in, err := Tune(ctx, o.Factors, o.Base, nil, o.Rounds, all, l.eval)
	if err != nil {
		return nil, err
	}
	ina, err := l.eval(ctx, in)
	if err != nil {
		return nil, err
	}
	rep.InSampleChosen, rep.InSample, rep.InSampleBase = in.Sets(o.Factors), ina.Agg(all).Rows(), base.Agg(all).Rows()

	for f, fac := range o.Factors {
		fr := FactorReport{Key: fac.Key, Values: fac.Values, Base: o.Base[f]}
		off, err := l.eval(ctx, Setting{}.With(f, offValue(fac, o.Base[f])))
		if err != nil {
			return nil, err
		}
		var tuned, offs, bases, tunedAll, offsAll, tunedAdv, offsAdv []float64
		for _, sm := range l.samples {
			s, err := Tune(ctx, o.Factors, o.Base, []int{f}, 1, Out(sm.ID), l.eval)
			if err != nil {
				return nil, err
			}
			a, err := l.eval(ctx, s)
			if err != nil {
				return nil, err
			}
			held := In(sm.ID)
			ff := FactorFold{Chosen: valueOr(s.Value(f), o.Base[f]), Tuned: figuresOf(a, held), Off: figuresOf(off, held), Base: figuresOf(base, held)}
			fr.Folds = append(fr.Folds, ff)
			tuned, offs, bases = append(tuned, ff.Tuned.R10), append(offs, ff.Off.R10), append(bases, ff.Base.R10)
			tunedAll, offsAll = append(tunedAll, ff.Tuned.R10All), append(offsAll, ff.Off.R10All)
			tunedAdv, offsAdv = append(tunedAdv, ff.Tuned.Adversarial), append(offsAdv, ff.Off.Adversarial)
		}
		fr.Wins, fr.Losses = Wins(tuned, offs)
		fr.WinsAll, fr.LossesAll = Wins(tunedAll, offsAll)
		fr.WinsAdv, fr.LossesAdv = Wins(tunedAdv, offsAdv)
		fr.BaseWins, fr.BaseLoss = Wins(bases, offs)
		fr.Generalizes = generalizes(fr.Wins, len(fr.Folds))
		s, err := Tune(ctx, o.Factors, o.Base, []int{f}, 1, all, l.eval)
		if err != nil {
			return nil, err
		}
		fr.InSample = valueOr(s.Value(f), o.Base[f])
		for _, v := range fac.Values {
			set := v
			if v == o.Base[f] {
				set = ""
			}
			a, err := l.eval(ctx, Setting{}.With(f, set))
			if err != nil {
				return nil, err
			}
			vf := ValueFigures{Value: v}
			for _, sm := range l.samples {
				ff := figuresOf(a, In(sm.ID))
				vf.Folds = append(vf.Folds, ff)
				vf.Mean.R10 += ff.R10 / float64(len(l.samples))
				vf.Mean.MRR += ff.MRR / float64(len(l.samples))
				vf.Mean.R10All += ff.R10All / float64(len(l.samples))
				vf.Mean.Adversarial += ff.Adversarial / float64(len(l.samples))
			}
			fr.ByValue = append(fr.ByValue, vf)
		}
		rep.Factors = append(rep.Factors, fr)
	}
	rep.Servers, rep.Stores = l.Servers, len(l.stores)
	rep.ElapsedS = math.Round(time.Since(t0).Seconds())
	return rep, nil
}

// offValue is the setting value that turns factor fac off: its first
// value ("" when that is the base's).
func offValue(fac Factor, base string) string {
	if fac.Values[0] == base {
		return ""
	}
	return fac.Values[0]
}

func valueOr(v, base string) string {
	if v == "" {
		if base == "" {
			return "(base)"
		}
		return base
	}
	return v
}
