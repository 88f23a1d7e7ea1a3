package rerank

import (
	"math"
	"testing"
)

// FuzzParseScores and FuzzParseLLMScores: a reranker's answer is outside
// input. Parsing never panics, and what it accepts is one finite score per
// document.
func FuzzParseScores(f *testing.F) {
	for _, s := range []string{
		`{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}`,
		`[{"index":0,"score":1}]`, `{"data":[{"index":0,"score":-3}]}`, `{"results":[{"index":-1}]}`, `null`, `[`,
	} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		if n < 0 || n > 200 {
			return
		}
		checkScores(t, n, func() ([]float64, error) { return parseScores(raw, n) })
	})
}

func FuzzParseLLMScores(f *testing.F) {
	for _, s := range []string{`{"scores":[1,2]}`, "Scores: [3, 9] because", `[1e999, 2]`, `{"scores":"x"}`, "[[1]]"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, out string, n int) {
		if n < 0 || n > 200 {
			return
		}
		checkScores(t, n, func() ([]float64, error) { return parseLLMScores(out, n) })
	})
}

func checkScores(t *testing.T, n int, parse func() ([]float64, error)) {
	s, err := parse()
	if err != nil {
		return
	}
	if len(s) != n {
		t.Fatalf("%d scores for %d documents", len(s), n)
	}
	for _, x := range s {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("score %v", x)
		}
	}
}
