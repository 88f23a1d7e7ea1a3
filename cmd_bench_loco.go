package main

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

// defaultLocoFactors are the values recall tunes, with the values tried;
// the first value of each turns it off. Round 2's tuned factors (speaker
// weight, coverage, dampening, session context, hints, graph boost, the
// relevance floor) and the pieces added for issue 32 (the speaker margin,
// the session neighbour lift, coverage weighed by IDF).
var defaultLocoFactors = []string{
	"search.speaker_weight=0,0.15,0.3",
	"search.speaker_margin=1,0.2,0",
	"search.coverage_weight=0,0.25,0.5",
	"search.coverage_idf=false,true",
	"search.neighbor_weight=0,0.1,0.2,0.3",
	"search.dampening=false,true",
	"search.session_context=false,true",
	"hints.enabled=false,true",
	"graph.boost_weight=0,0.1",
	"search.min_vector_similarity=0,-1",
}

// factorFlags collects repeated --factor flags (section.key=v1,v2,…).
type factorFlags []string

func (f *factorFlags) String() string     { return strings.Join(*f, " ") }
func (f *factorFlags) Set(v string) error { *f = append(*f, v); return nil }

// parseFactors reads factors (section.key=v1,v2,…; the first value turns
// the factor off) and finds which value of each the base configuration
// (the defaults with sets) already has.
func parseFactors(specs, sets []string) ([]bench.Factor, []string, error) {
	base, err := configWithSets(sets)
	if err != nil {
		return nil, nil, err
	}
	var factors []bench.Factor
	var baseValues []string
	for _, spec := range specs {
		key, list, ok := strings.Cut(spec, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, nil, usageError{fmt.Sprintf("--factor %q: want section.key=value,value,…", spec)}
		}
		fac := bench.Factor{Key: key}
		bv := ""
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			c := base
			if err := c.Set(key, v); err != nil {
				return nil, nil, usageError{fmt.Sprintf("--factor %q: %v", spec, err)}
			}
			if err := c.Validate(); err != nil {
				return nil, nil, usageError{fmt.Sprintf("--factor %q: %v", spec, err)}
			}
			if bv == "" && reflect.DeepEqual(c, base) {
				bv = v
			}
			fac.Values = append(fac.Values, v)
		}
		if len(fac.Values) < 2 {
			return nil, nil, usageError{fmt.Sprintf("--factor %q: give at least two values", spec)}
		}
		factors, baseValues = append(factors, fac), append(baseValues, bv)
	}
	return factors, baseValues, nil
}

// benchLoco runs `cairn bench locomo --loco`: every factor tuned on all
// conversations but one and scored on that one, in turn.
func benchLoco(ctx context.Context, data string, specs, sets []string, binary string, rounds, k, clients int, drain time.Duration, keep, asJSON bool, stdout, stderr io.Writer) error {
	if len(specs) == 0 {
		specs = defaultLocoFactors
	}
	factors, base, err := parseFactors(specs, sets)
	if err != nil {
		return err
	}
	samples, ev, err := bench.LoadLocomo(data)
	if err != nil {
		return err
	}
	if len(samples) < 2 {
		return usageError{fmt.Sprintf("--loco needs at least two conversations (%s has %d)", data, len(samples))}
	}
	fmt.Fprintf(stderr, "bench: loco: %d conversations, %d factors, evidence ids: %d repaired, %d dropped, %d questions skipped\n",
		len(samples), len(factors), ev.Repaired, ev.Dropped, ev.Skipped)
	l := bench.NewLoco(bench.LocoOptions{Binary: binary, Set: sets, Factors: factors, Base: base, Rounds: rounds,
		K: k, Clients: 2, Ingest: clients, Drain: drain, Keep: keep}, samples, stderr)
	defer l.Close()
	rep, err := l.Run(ctx, data)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(stdout, rep)
	}
	printLocoReport(stdout, rep)
	return nil
}

// printLocoReport prints the folds, their spread, the pooled categories,
// the in-sample figures and each factor's evidence.
func printLocoReport(w io.Writer, r *bench.LocoReport) {
	fmt.Fprintf(w, "LoCoMo leave-one-conversation-out: each fold tunes on the other conversations, scores the held-out one (k=%d)\n", r.K)
	fmt.Fprintf(w, "R@10 codes 1-4 (MRR) | all codes | adversarial (5)\n")
	fmt.Fprintf(w, "%-10s %4s  %-22s %-22s %-22s  %s\n", "held out", "n", "tuned", "base (defaults)", "BM25", "chosen on the others")
	cell := func(f bench.FoldFigures) string {
		return fmt.Sprintf("%5.1f (%.3f) %5.1f %5.1f", f.R10, f.MRR, f.R10All, f.Adversarial)
	}
	for _, f := range r.Folds {
		fmt.Fprintf(w, "%-10s %4d  %-22s %-22s %-22s  %s\n", f.Sample, f.Questions, cell(f.Tuned), cell(f.Base), cell(f.BM25), orNone(f.Chosen))
	}
	sp := func(name string) string {
		s := r.Summary[name]
		if strings.HasSuffix(name, "mrr") {
			return fmt.Sprintf("%.3f sd %.3f [%.3f, %.3f]", s.Mean, s.SD, s.Min, s.Max)
		}
		return fmt.Sprintf("%5.1f sd %4.1f [%5.1f, %5.1f]", s.Mean, s.SD, s.Min, s.Max)
	}
	fmt.Fprintf(w, "\nmean over the held-out folds (sd, [min, max])\n")
	fmt.Fprintf(w, "%-8s %-28s %-28s %-28s\n", "", "R@10 (1-4)", "MRR (1-4)", "R@10 all codes")
	for _, c := range []string{"tuned", "base", "bm25"} {
		fmt.Fprintf(w, "%-8s %-28s %-28s %-28s\n", c, sp(c+"_r_at_10"), sp(c+"_mrr"), sp(c+"_r_at_10_all"))
	}
	fmt.Fprintf(w, "\nheld-out answers pooled over the folds, R@10 by category (MRR)\n")
	fmt.Fprintf(w, "%-14s", "")
	for _, row := range r.PooledTuned {
		fmt.Fprintf(w, " %14s", row.Key+" "+short(row.Name))
	}
	fmt.Fprintln(w)
	for _, x := range []struct {
		name string
		rows []bench.Row
	}{{"tuned (LOCO)", r.PooledTuned}, {"base", r.PooledBase}, {"BM25", r.PooledBM25}, {"in-sample", r.InSample}} {
		fmt.Fprintf(w, "%-14s", x.name)
		for _, row := range x.rows {
			fmt.Fprintf(w, " %14s", fmt.Sprintf("%.1f (%.1f)", row.R10, row.MRR))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "in-sample: tuned on every conversation and scored on them: %s\n", orNone(r.InSampleChosen))
	fmt.Fprintf(w, "\nfactors: each tuned alone on the other conversations (the rest at the base); folds won against the factor off\n")
	fmt.Fprintf(w, "on R@10 codes 1-4 (the rule: %.0f%% of the folds), all codes and adversarial (5); per fold: chosen value, R@10 (1-4) tuned/off/base, all codes tuned/off, adversarial tuned/off\n", 100*bench.AdoptShare)
	for _, f := range r.Factors {
		verdict := "does not generalize"
		if f.Generalizes {
			verdict = "generalizes"
		}
		var folds []string
		for _, ff := range f.Folds {
			folds = append(folds, fmt.Sprintf("%s: %.1f/%.1f/%.1f all %.1f/%.1f adv %.1f/%.1f", ff.Chosen, ff.Tuned.R10, ff.Off.R10, ff.Base.R10,
				ff.Tuned.R10All, ff.Off.R10All, ff.Tuned.Adversarial, ff.Off.Adversarial))
		}
		fmt.Fprintf(w, "%-30s %s: wins %d (losses %d) on 1-4, %d (%d) all codes, %d (%d) adversarial; base beats off on %d (loses %d); in-sample choice %s\n    %s\n",
			f.Key, verdict, f.Wins, f.Losses, f.WinsAll, f.LossesAll, f.WinsAdv, f.LossesAdv, f.BaseWins, f.BaseLoss, f.InSample, strings.Join(folds, "\n    "))
		for _, vf := range f.ByValue {
			var r, all, adv []string
			for _, ff := range vf.Folds {
				r, all, adv = append(r, fmt.Sprintf("%.1f", ff.R10)), append(all, fmt.Sprintf("%.1f", ff.R10All)), append(adv, fmt.Sprintf("%.1f", ff.Adversarial))
			}
			fmt.Fprintf(w, "    fixed %s: 1-4 %.1f (%s), all %.1f (%s), adversarial %.1f (%s)\n", vf.Value,
				vf.Mean.R10, strings.Join(r, " "), vf.Mean.R10All, strings.Join(all, " "), vf.Mean.Adversarial, strings.Join(adv, " "))
		}
	}
	fmt.Fprintf(w, "\n%d servers over %d stores in %.0f s\n", r.Servers, r.Stores, r.ElapsedS)
}

func orNone(sets []string) string {
	if len(sets) == 0 {
		return "(base)"
	}
	return strings.Join(sets, " ")
}

func short(name string) string {
	if len(name) > 8 {
		return name[:8]
	}
	return name
}
