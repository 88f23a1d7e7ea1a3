package apitest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/vectors"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

// Embedder is the built-in model seen through vectors.Embedder: the real
// model runs in the tests that use it.
type Embedder struct {
	m    *uselite.Model
	fail error // when set, every call fails (a provider that is down)
	mu   sync.Mutex
}

var (
	useOnce  sync.Once
	useModel *uselite.Model
	useErr   error
)

// Builtin returns the built-in embedding model, loaded once per process.
func Builtin(t testing.TB) *Embedder {
	t.Helper()
	useOnce.Do(func() { useModel, useErr = uselite.Load() })
	if useErr != nil {
		t.Fatal(useErr)
	}
	return &Embedder{m: useModel}
}

// Embed embeds texts with the built-in model, or fails as SetFail asked.
func (u *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	u.mu.Lock()
	fail := u.fail
	u.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	return u.m.Embed(texts)
}

// Model names the built-in model.
func (u *Embedder) Model() string { return uselite.ModelName }

// Dimensions is the built-in model's vector size.
func (u *Embedder) Dimensions() int { return uselite.Dimensions }

// SetFail makes every later call fail with err (nil: succeed again).
func (u *Embedder) SetFail(err error) {
	u.mu.Lock()
	u.fail = err
	u.mu.Unlock()
}

// NewApp opens a fresh store with the default configuration (changed by
// mods) and builds its App with emb.
func NewApp(t testing.TB, emb vectors.Embedder, mods ...func(*config.Config)) *app.App {
	t.Helper()
	cfg := config.DefaultConfig()
	for _, m := range mods {
		m(&cfg)
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "h.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return app.New(db, cfg, app.Options{Embedder: emb})
}

// NewService is NewApp's Service.
func NewService(t testing.TB, emb vectors.Embedder, mods ...func(*config.Config)) *core.Service {
	t.Helper()
	return NewApp(t, emb, mods...).Service
}

// NoFloor turns the vector leg's relevance floor off, for tests of the
// leg's mechanics with pairs the built-in model finds only weakly similar.
func NoFloor(c *config.Config) { c.Search.MinVectorSimilarity = 0 }

// EmbedPending does what the embedding tracker does after writes (they
// only wake it; see Vectors.EmbedSoon): embeds every memory still without a
// vector, failing the test on error.
func EmbedPending(t testing.TB, vec *vectors.Vectors) {
	t.Helper()
	if err := vec.EmbedPending(context.Background(), nil); err != nil {
		t.Fatalf("embed pending memories: %v", err)
	}
}

// Recall recalls without access tracking, failing the test on error.
func Recall(t *testing.T, svc *core.Service, in core.RecallInput) *core.RecallResult {
	t.Helper()
	in.NoTracking = true
	res, err := svc.Recall(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
