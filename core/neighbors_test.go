package core

import (
	"math"
	"testing"
)

func TestNeighborLift(t *testing.T) {
	mk := func(id, prev string, rel float64) *candidate {
		return &candidate{id: id, prevID: prev, rel: rel, mem: &Memory{ID: id}}
	}
	for _, tc := range []struct {
		name  string
		cands []*candidate
		w     float64
		want  map[string]float64
	}{
		{"an answer after a strong question is lifted halfway",
			[]*candidate{mk("q", "", 0.8), mk("a", "q", 0.4)}, 0.5, map[string]float64{"q": 0, "a": 0.2}},
		{"a question before a strong answer is lifted too",
			[]*candidate{mk("q", "", 0.2), mk("a", "q", 0.6)}, 0.5, map[string]float64{"q": 0.2, "a": 0}},
		{"the better of both neighbours",
			[]*candidate{mk("p", "", 0.5), mk("m", "p", 0.1), mk("n", "m", 0.9)}, 0.25, map[string]float64{"p": 0, "m": 0.2, "n": 0}},
		{"a neighbour that is not a candidate lifts nothing",
			[]*candidate{mk("a", "gone", 0.3)}, 0.5, map[string]float64{"a": 0}},
		{"weight 0 is off",
			[]*candidate{mk("q", "", 0.8), mk("a", "q", 0.4)}, 0, map[string]float64{"q": 0, "a": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands := map[string]*candidate{}
			for _, c := range tc.cands {
				cands[c.id] = c
			}
			neighborLift(cands, tc.w)
			for id, want := range tc.want {
				if got := cands[id].neighbor; math.Abs(got-want) > 1e-12 {
					t.Errorf("lift of %s = %v, want %v", id, got, want)
				}
			}
		})
	}
}
