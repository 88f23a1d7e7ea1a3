package evolution_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/bench"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// replayMonth states a month of a developer's facts: each fact's values in
// turn (keyed or not), facts stated again, chatter between, a day apart.
// It returns, per fact, the rank of its current value and the best rank of
// a superseded one (0: absent) in the project's recall.
func replayMonth(t *testing.T, keyed bool, mods ...func(*config.Config)) (e *apitest.Env, currentFirst, staleInTop3 int) {
	e = newEnv(t, mods...)
	const project = "/home/dev/atlas"
	rem := func(content, key string) {
		in := core.RememberInput{Content: content, Project: project}
		if keyed {
			in.Key = key
		}
		remember(t, e, in)
	}
	for round := 0; round < 3; round++ {
		for i, f := range bench.MonthFacts {
			if round < len(f.Values) {
				rem(f.Values[round], f.Key)
			} else {
				rem(f.Values[len(f.Values)-1], f.Key) // stated again
			}
			rem(bench.MonthChatter[(i+round)%len(bench.MonthChatter)]+fmt.Sprintf(" (day %d)", round*12+i), "")
			e.Clock.Advance(24 * time.Hour)
		}
	}
	for _, f := range bench.MonthFacts {
		res := recall(t, e, core.RecallInput{Query: f.Query, Limit: 10, Filter: storage.MemoryFilter{Project: project}})
		cur := f.Values[len(f.Values)-1]
		rankCur, rankStale := 0, 0
		for i, content := range contents(res) {
			if content == cur && rankCur == 0 {
				rankCur = i + 1
			}
			for _, old := range f.Values[:len(f.Values)-1] {
				if content == old && rankStale == 0 {
					rankStale = i + 1
				}
			}
		}
		if rankCur == 1 {
			currentFirst++
		}
		if rankStale > 0 && rankStale <= 3 {
			staleInTop3++
		}
		if len(mods) == 0 && (rankCur != 1 || rankStale != 0) {
			t.Errorf("%s: current value at rank %d, a superseded one at rank %d\n%s", f.Key, rankCur, rankStale, strings.Join(contents(res), "\n"))
		}
	}
	return e, currentFirst, staleInTop3
}

// The developer's month (core/bench/month.go): every changed fact's current
// value is recalled first and no superseded value is in the top 3, and
// nothing is lost (each superseded memory stays reachable from its
// successor). Stated with keys, the keys supersede; stated as the same
// plain sentences, the attributes the linker reads do (attributes.go), and
// the chatter between loses nothing.
func TestDevelopersMonth(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		e, first, stale := replayMonth(t, keyed)
		t.Logf("keyed %v: current value first for %d of %d, a superseded value in the top 3 for %d", keyed, first, len(bench.MonthFacts), stale)
		if first != len(bench.MonthFacts) || stale != 0 {
			t.Fatalf("keyed %v: %d of %d first, %d stale in the top 3", keyed, first, len(bench.MonthFacts), stale)
		}
		want := 0
		for _, f := range bench.MonthFacts {
			want += len(f.Values) - 1
		}
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1 AND superseded_by IN (SELECT id FROM memories)`); n != want {
			t.Fatalf("keyed %v: %d memories superseded, want one per replaced value (%d)", keyed, n, want)
		}
		if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1 AND superseded_by IS NULL`); n != 0 {
			t.Fatalf("keyed %v: %d memories lost without a successor", keyed, n)
		}
	}
}

// The month again, as plain sentences with supersession off, measures
// evidence (confidence × reinforcement × staleness) alone: the current
// values, restated and fresher, rise above the values they replaced.
// Measured: 3 of 12 current values first without it (weight 0), 4 at
// 0.25, 5 at the default 0.5 and 9 at 1; the replaced values stay in the
// top 3 at every weight (only supersession removes them).
func TestDevelopersMonthEvidence(t *testing.T) {
	first := map[float64]int{}
	for _, w := range []float64{0, config.DefaultMemoryEvidenceWeight} {
		_, f, stale := replayMonth(t, false, func(c *config.Config) { c.Memory.SupersedeAttributes = false; c.Memory.EvidenceWeight = w })
		t.Logf("evidence weight %.2f: current value first for %d of %d, a replaced value in the top 3 for %d", w, f, len(bench.MonthFacts), stale)
		first[w] = f
	}
	if first[config.DefaultMemoryEvidenceWeight] < 5 || first[config.DefaultMemoryEvidenceWeight] <= first[0] {
		t.Fatalf("evidence did not lift the current values: %v", first)
	}
}
