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
	bench.PrintLocoReport(stdout, rep)
	return nil
}
