package uselite

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testModel loads the embedded model once for all tests.
var testModel = sync.OnceValues(Load)

func loadTestModel(tb testing.TB) *Model {
	tb.Helper()
	m, err := testModel()
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return m
}

// refCase is one entry of testdata/reference.json (see gen_reference.js).
type refCase struct {
	Text    string    `json:"text"`
	Repeat  int       `json:"repeat"`
	NTokens int       `json:"n_tokens"`
	IDs     []int     `json:"ids"`
	Vec     []float32 `json:"vec"`
}

func (c refCase) input() string {
	if c.Repeat > 0 {
		return strings.Repeat(c.Text, c.Repeat)
	}
	return c.Text
}

func loadReference(tb testing.TB) []refCase {
	tb.Helper()
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		tb.Fatal(err)
	}
	var ref struct {
		MaxTokens int       `json:"max_tokens"`
		Cases     []refCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		tb.Fatal(err)
	}
	if ref.MaxTokens != MaxTokens || len(ref.Cases) < 20 {
		tb.Fatalf("unexpected reference file: max_tokens %d, %d cases", ref.MaxTokens, len(ref.Cases))
	}
	return ref.Cases
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestTokenizeMatchesJS(t *testing.T) {
	m := loadTestModel(t)
	for _, c := range loadReference(t) {
		got := m.Tokenize(c.input())
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Tokenize(%.60q): got %v, want %v", c.input(), got, c.IDs)
		}
	}
}

func TestEmbedMatchesJS(t *testing.T) {
	m := loadTestModel(t)
	var texts []string
	var want [][]float32
	for _, c := range loadReference(t) {
		if c.Vec != nil {
			texts = append(texts, c.input())
			want = append(want, c.Vec)
		}
	}
	if len(texts) < 10 {
		t.Fatalf("only %d reference vectors", len(texts))
	}
	// Embed the texts one by one and as a batch: both must match.
	batch, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	minCos, maxDiff := 1.0, 0.0
	for i, text := range texts {
		single, err := m.Embed([]string{text})
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range [][]float32{single[0], batch[i]} {
			if len(got) != Dimensions {
				t.Fatalf("%q: %d dimensions", text, len(got))
			}
			cos := cosine(got, want[i])
			minCos = min(minCos, cos)
			for j := range got {
				maxDiff = max(maxDiff, math.Abs(float64(got[j]-want[i][j])))
			}
			if cos < 0.995 {
				t.Errorf("%.60q: cosine to the JS vector %.6f < 0.995", text, cos)
			}
		}
	}
	t.Logf("vs JS reference (%d texts): min cosine %.6f, max |diff| %.3g", len(texts), minCos, maxDiff)
}
