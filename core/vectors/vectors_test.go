package vectors_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/core/vectors"
	"github.com/cairnmem/cairn/storage"
)

// wordEmbedder puts each text on one axis per animal it names: texts
// naming the same animal are identical in meaning, others orthogonal.
type wordEmbedder struct {
	mu   sync.Mutex
	fail error
}

var _ vectors.Embedder = (*wordEmbedder)(nil)

var animals = []string{"cat", "dog", "fish"}

func (w *wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return nil, w.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(animals)+1)
		for _, word := range strings.Fields(strings.ToLower(t)) {
			if j := slices.Index(animals, word); j >= 0 {
				v[j]++
			}
		}
		if slices.Max(v) == 0 {
			v[len(animals)] = 1
		}
		out[i] = v
	}
	return out, nil
}

func (w *wordEmbedder) Model() string   { return "words-4" }
func (w *wordEmbedder) Dimensions() int { return len(animals) + 1 }

func (w *wordEmbedder) setFail(err error) {
	w.mu.Lock()
	w.fail = err
	w.mu.Unlock()
}

type fixture struct {
	ap    *app.App
	emb   *wordEmbedder
	clock *apitest.Clock
	ids   map[string]string // animal → memory id
}

// newFixture is a store with one embedded memory per animal.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "v.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	f := &fixture{emb: &wordEmbedder{}, clock: apitest.NewClock(apitest.ClockStart), ids: map[string]string{}}
	f.ap = app.New(db, cfg, app.Options{Now: f.clock.Now, Embedder: f.emb})
	for _, a := range animals {
		res, err := f.ap.Service.Remember(context.Background(), core.RememberInput{Content: "the " + a + " sleeps by the door"}, core.Actor{Name: "test"})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[a] = res.Memory.ID
	}
	apitest.EmbedPending(t, f.ap.Vectors)
	return f
}

func hitIDs(hits []vector.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

// Search is recall's vector leg: the nearest memories, and the exact
// similarity of any other memory the index holds.
func TestSearchAndSimilarity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	q, err := f.ap.Vectors.Search(ctx, "cat", 1, &storage.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(q.Hits); !slices.Equal(got, []string{f.ids["cat"]}) || q.Hits[0].Score < 0.99 {
		t.Fatalf("hits = %v %+v", got, q.Hits)
	}
	if sim, ok := q.Similarity(f.ids["dog"]); !ok || sim > 0.01 {
		t.Fatalf("similarity to another memory = %v %v", sim, ok)
	}
	if _, ok := q.Similarity("no-such-memory"); ok {
		t.Fatal("similarity of a memory without a vector")
	}
	// Filters apply to the leg.
	q, err = f.ap.Vectors.Search(ctx, "cat", 3, &storage.MemoryFilter{Project: "elsewhere"})
	if err != nil || len(q.Hits) != 0 {
		t.Fatalf("filtered search: %v %v", q, err)
	}
	// A memory dropped from the index is no longer found.
	f.ap.Vectors.Drop(f.ids["cat"])
	q, _ = f.ap.Vectors.Search(ctx, "cat", 3, &storage.MemoryFilter{})
	if slices.Contains(hitIDs(q.Hits), f.ids["cat"]) {
		t.Fatal("a dropped memory is still found")
	}
}

// A failing provider costs the leg its answer, with the reason; for the
// backoff after it, searches fail at once without calling it, then try
// again.
func TestSearchAfterAProviderFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.emb.setFail(errors.New("connection refused"))
	if _, err := f.ap.Vectors.Search(ctx, "dog", 3, &storage.MemoryFilter{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("search with the provider down: %v", err)
	}
	if err := f.ap.Vectors.LastError(); err == nil || f.ap.Vectors.ProviderHealthy() {
		t.Fatalf("provider state after a failure: %v healthy=%v", err, f.ap.Vectors.ProviderHealthy())
	}
	f.emb.setFail(nil)
	f.clock.Advance(5 * time.Second)
	_, err := f.ap.Vectors.Search(ctx, "fish", 3, &storage.MemoryFilter{})
	if err == nil || err.Error() != "the embedding provider failed 5s ago (connection refused); retrying after 30s" {
		t.Fatalf("search within the backoff: %v", err)
	}
	f.clock.Advance(30 * time.Second)
	q, err := f.ap.Vectors.Search(ctx, "fish", 1, &storage.MemoryFilter{})
	if err != nil || !slices.Equal(hitIDs(q.Hits), []string{f.ids["fish"]}) {
		t.Fatalf("search after the backoff: %v %v", q, err)
	}
	if f.ap.Vectors.LastError() != nil {
		t.Fatal("a successful call leaves the error")
	}
}

// Similar finds the memories nearest to one memory; a memory without a
// vector is not ok.
func TestSimilar(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	hits, ok, err := f.ap.Vectors.Similar(ctx, f.ids["dog"], 2, &storage.MemoryFilter{})
	if err != nil || !ok || len(hits) != 2 || hits[0].ID != f.ids["dog"] {
		t.Fatalf("similar: %+v %v %v", hits, ok, err)
	}
	if _, ok, err := f.ap.Vectors.Similar(ctx, "no-such-memory", 2, &storage.MemoryFilter{}); ok || err != nil {
		t.Fatalf("similar to a memory without a vector: %v %v", ok, err)
	}
}

// Without an embedder, vectors are off: nothing is pending, nothing is
// searched, and the status says so.
func TestVectorsOff(t *testing.T) {
	t.Parallel()
	ap := apitest.NewApp(t, nil)
	ctx := context.Background()
	if _, err := ap.Service.Remember(ctx, core.RememberInput{Content: "the cat sleeps"}, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	if n, err := ap.Vectors.CountPendingEmbeddings(ctx); n != 0 || err != nil {
		t.Fatalf("pending without an embedder: %d %v", n, err)
	}
	if _, err := ap.Vectors.Search(ctx, "cat", 3, &storage.MemoryFilter{}); err == nil {
		t.Fatal("a search without an embedder")
	}
	st, err := ap.Vectors.EmbeddingStatus(ctx)
	if err != nil || st.Provider != "none" || st.Coverage["pending"] != 1 {
		t.Fatalf("status: %+v %v", st, err)
	}
	rows, total, err := ap.Vectors.Embeddings(ctx, 10, 0, false)
	if err != nil || total != 0 || rows == nil || len(rows) != 0 {
		t.Fatalf("embeddings: %v %d %v", rows, total, err)
	}
}
