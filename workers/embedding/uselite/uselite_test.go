package uselite

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// checkVector fails unless v is a finite, unit-length Dimensions-vector.
func checkVector(tb testing.TB, what string, v []float32) {
	tb.Helper()
	if len(v) != Dimensions {
		tb.Fatalf("%s: %d dimensions, want %d", what, len(v), Dimensions)
	}
	var ss float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			tb.Fatalf("%s: non-finite component %v", what, x)
		}
		ss += float64(x) * float64(x)
	}
	if math.Abs(ss-1) > 1e-4 {
		tb.Fatalf("%s: squared norm %v, want 1", what, ss)
	}
}

func TestEmbedEdgeCases(t *testing.T) {
	m := loadTestModel(t)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 40_000) // ~1 MB
	texts := []string{
		"",
		" ",
		"\t\n\r",
		"\x00\x00\x00",
		"\xff\xfe\xfd invalid utf-8 \xc3\x28",
		strings.Repeat("x", 1<<20),   // 1 MB without a space
		strings.Repeat("東", 100_000), // one long unknown run
		long,
		"\u0301\u0301 leading combining marks",
		"\ufdfa", // NFKC expands this one character to 18
	}
	vecs, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		checkVector(t, texts[i][:min(len(texts[i]), 20)], v)
		if n := len(m.Tokenize(texts[i])); n > MaxTokens {
			t.Errorf("text %d: %d tokens", i, n)
		}
	}
	// The 1 MB text only differs from its first 8 KiB beyond token 128.
	if got, want := m.Tokenize(long), m.Tokenize(long[:5000]); !slices.Equal(got, want) {
		t.Errorf("tokens of a long text depend on text past the cap")
	}
	// No input at all.
	if v, err := m.Embed(nil); err != nil || len(v) != 0 {
		t.Errorf("Embed(nil) = %d vectors, %v", len(v), err)
	}
	var nilModel *Model
	if _, err := nilModel.Embed([]string{"x"}); err == nil {
		t.Error("Embed on a nil Model: no error")
	}
}

// TestModelFilesSmall keeps every embedded weight file under the
// repository's 5 MiB limit per file.
func TestModelFilesSmall(t *testing.T) {
	entries, err := modelFS.ReadDir(modelDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() >= 5<<20 {
			t.Errorf("%s is %d bytes, over 5 MiB", e.Name(), info.Size())
		}
	}
}

// TestFreshModelEmptyTexts embeds only empty texts with a model whose
// buffers have never been used (the batch has more texts than tokens).
func TestFreshModelEmptyTexts(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := m.Embed([]string{"", "", ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		checkVector(t, "empty", v)
		if !slices.Equal(v, vecs[0]) {
			t.Error("empty texts got different vectors")
		}
	}
}

// TestBatchIndependence checks that a text's vector does not depend on the
// other texts of the batch or on how the batch is split into chunks.
func TestBatchIndependence(t *testing.T) {
	m := loadTestModel(t)
	texts := benchBatch(40) // > chunkTokens tokens in total: several chunks
	texts = append(texts, "", strings.Repeat("long text ", 100), "we deploy on Fridays")
	batch, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 13, 39, 40, 41, 42} {
		text := texts[i]
		one, _ := m.Embed([]string{text})
		if c := cosine(one[0], batch[i]); c < 0.99999 {
			t.Errorf("text %d: cosine single vs batch %.7f", i, c)
		}
	}
}

func TestConcurrentEmbed(t *testing.T) {
	m := loadTestModel(t)
	texts := []string{"we deploy on Fridays", "when do we ship?", "AWS_PROFILE=prod", ""}
	want, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 {
				k := (g + i) % len(texts)
				got, err := m.Embed(texts[k:])
				if err != nil {
					t.Error(err)
					return
				}
				for j := range got {
					if !slices.Equal(got[j], want[k+j]) {
						t.Errorf("goroutine %d: vector of %q differs", g, texts[k+j])
					}
				}
				m.Tokenize(texts[k])
			}
		})
	}
	wg.Wait()
}

func TestDeterministic(t *testing.T) {
	m := loadTestModel(t)
	a, _ := m.Embed([]string{"recall the deployment notes"})
	b, _ := m.Embed([]string{"recall the deployment notes"})
	if !slices.Equal(a[0], b[0]) {
		t.Error("same text, different vectors")
	}
}

// Background embedding that yields the other cores (busy reports true
// throughout, so one goroutine does every chunk) gives the same vectors,
// in order, as Embed.
func TestEmbedBackgroundYielding(t *testing.T) {
	m := loadTestModel(t)
	texts := benchBatch(40) // several chunks
	want, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64 // one call per goroutine but the first
	got, err := m.EmbedBackground(texts, func() bool { asked.Add(1); return true })
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() == 0 && runtime.GOMAXPROCS(0) > 1 {
		t.Fatal("the extra goroutines never asked whether the foreground is busy")
	}
	for i := range want {
		if c := cosine(got[i], want[i]); c < 0.99999 {
			t.Fatalf("text %d: cosine background vs Embed %.7f", i, c)
		}
	}
}
