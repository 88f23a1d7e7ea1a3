package bench

import (
	"context"
	"math"
	"reflect"
	"testing"
)

// fakeEval scores a setting by a table: each setting key gives the R@10
// of every question of each sample.
func fakeEval(table map[string]map[string]float64, calls *int) Evaluator {
	return func(_ context.Context, s Setting) (Answers, error) {
		*calls++
		factors := []Factor{{Key: "a"}, {Key: "b"}}
		row := table[s.Key(factors)]
		var out Answers
		for _, sm := range []string{"c1", "c2", "c3"} {
			out = append(out, Answer{Sample: sm, Category: 1, Scores: Scores{R10: row[sm]}},
				Answer{Sample: sm, Category: 5, Scores: Scores{R10: 1}}) // adversarial: never counts in tuning
		}
		return out, nil
	}
}

func TestTune(t *testing.T) {
	factors := []Factor{{Key: "a", Values: []string{"0", "1", "2"}}, {Key: "b", Values: []string{"off", "on"}}}
	base := []string{"1", "off"} // the base configuration has a=1, b=off
	table := map[string]map[string]float64{
		"":         {"c1": 0.5, "c2": 0.5, "c3": 0.5},
		"a=0":      {"c1": 0.4, "c2": 0.4, "c3": 0.9},
		"a=2":      {"c1": 0.6, "c2": 0.6, "c3": 0.1},
		"b=on":     {"c1": 0.5, "c2": 0.5, "c3": 0.5}, // no gain: b stays at the base
		"a=2 b=on": {"c1": 0.7, "c2": 0.7, "c3": 0.1},
		"a=0 b=on": {"c1": 0.4, "c2": 0.4, "c3": 0.9},
	}
	for _, tc := range []struct {
		name   string
		only   []int
		rounds int
		train  func(Answer) bool
		want   Setting
	}{
		{"c3 held out: a=2 wins on c1, c2, then b=on", nil, 1, Out("c3"), Setting{{0, "2"}, {1, "on"}}},
		{"c1 held out: a=0 wins on c2, c3 (0.65 against 0.35)", nil, 1, Out("c1"), Setting{{0, "0"}}},
		{"only b: no strict gain, the base stays", []int{1}, 1, Out("c3"), Setting{}},
		{"only a", []int{0}, 1, In("c1", "c2"), Setting{{0, "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			got, err := Tune(context.Background(), factors, base, tc.only, tc.rounds, tc.train, fakeEval(table, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("Tune = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSettingSets(t *testing.T) {
	factors := []Factor{{Key: "search.b"}, {Key: "search.a"}}
	s := Setting{}.With(0, "1").With(1, "x").With(0, "2")
	if got, want := s.Key(factors), "search.a=x search.b=2"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	if s.With(1, "").Key(factors) != "search.b=2" {
		t.Errorf("With(f, \"\") should drop the factor: %v", s.With(1, ""))
	}
	if s.Value(1) != "x" || (Setting{}).Value(0) != "" {
		t.Errorf("Value")
	}
}

func TestSpreadAndWins(t *testing.T) {
	s := SpreadOf([]float64{70, 74, 72})
	if s.Mean != 72 || s.Min != 70 || s.Max != 74 || math.Abs(s.SD-math.Sqrt(8.0/3)) > 1e-9 {
		t.Errorf("SpreadOf = %+v", s)
	}
	if (SpreadOf(nil) != Spread{}) {
		t.Errorf("SpreadOf(nil)")
	}
	for _, tc := range []struct {
		a, b         []float64
		wins, losses int
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{0, 2, 2, 5, 4}, 3, 1},
		{[]float64{1, 1}, []float64{1, 1}, 0, 0},
	} {
		w, l := Wins(tc.a, tc.b)
		if w != tc.wins || l != tc.losses {
			t.Errorf("Wins(%v, %v) = %d, %d; want %d, %d", tc.a, tc.b, w, l, tc.wins, tc.losses)
		}
	}
}

func TestIngestSet(t *testing.T) {
	for kv, want := range map[string]bool{
		"search.session_context=false": true,
		"hints.enabled=true":           true,
		"embedding.provider=none":      true,
		"pipeline.enabled=false":       true,
		"graph.enabled=false":          true,
		"graph.boost_weight=0":         false,
		"search.speaker_weight=0.3":    false,
		"search.session_contextual=1":  false,
	} {
		if got := ingestSet(kv); got != want {
			t.Errorf("ingestSet(%q) = %v, want %v", kv, got, want)
		}
	}
}

func TestFiguresOf(t *testing.T) {
	a := Answers{
		{Sample: "x", Category: 1, Scores: Scores{R10: 1, MRR: 0.5}},
		{Sample: "x", Category: 4, Scores: Scores{R10: 0.5, MRR: 1}},
		{Sample: "x", Category: 5, Scores: Scores{R10: 0}},
		{Sample: "y", Category: 1, Scores: Scores{R10: 0}},
	}
	got := figuresOf(a, In("x"))
	want := FoldFigures{R10: 75, MRR: 0.75, R10All: 50, Adversarial: 0}
	if got != want {
		t.Errorf("figuresOf = %+v, want %+v", got, want)
	}
}

func TestGeneralizes(t *testing.T) {
	for _, tc := range []struct {
		wins, n int
		want    bool
	}{
		{4, 5, true}, {5, 5, true}, {3, 5, false}, {2, 2, true}, {1, 2, false}, {0, 0, false},
	} {
		if got := generalizes(tc.wins, tc.n); got != tc.want {
			t.Errorf("generalizes(%d, %d) = %v, want %v", tc.wins, tc.n, got, tc.want)
		}
	}
}
