package vectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
)

// Vectors owns a store's vectors: its embedder, the in-memory vector
// index (loaded lazily), a small cache of query vectors, the provider's
// recent health and the embedding tracker's progress.
type Vectors struct {
	db        *storage.DB
	cfg       config.EmbeddingConfig
	embedder  Embedder // nil: vectors are off
	now       func() time.Time
	log       *slog.Logger
	analytics *analytics.Analytics
	busy      func() bool   // a foreground request is in flight (ForegroundProbe)
	wake      chan struct{} // EmbedSoon → the embedding tracker

	loadMu sync.Mutex
	ix     atomic.Pointer[vector.Index]

	qmu    sync.Mutex
	qcache map[string][]float32
	qorder []string

	lastErr   atomic.Pointer[providerError]
	processed atomic.Int64
	failed    atomic.Int64
	lastCycle atomic.Int64 // unix ms of the last tracker pass
	scans     atomic.Int64 // queries for pending memories (EmbedBatch)

	curMu  sync.Mutex
	cursor storage.PendingCursor // where the newest-first walk of a backlog is

	calibrating atomic.Bool

	// warming is set while a server loads the embedding model and the
	// index in the background (StartWarm): recall does not wait for them.
	warming atomic.Bool
}

// Options are the optional dependencies of Vectors.
type Options struct {
	// Embedder produces the vectors; nil turns vectors off (every method
	// then does nothing, and recall is keyword-only).
	Embedder Embedder
	// Now is the clock of provider health and the tracker's last pass;
	// nil is time.Now.
	Now func() time.Time
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Analytics records each provider call and its failures; nil keeps
	// them in an Analytics of its own.
	Analytics *analytics.Analytics
	// Busy reports whether a foreground request is in flight (or just
	// ended); background embedding hands it to the provider (see
	// ForegroundProbe). Nil never reports busy.
	Busy func() bool
}

// New returns the Vectors of db, configured by the embedding section.
func New(db *storage.DB, cfg config.EmbeddingConfig, opts Options) *Vectors {
	v := &Vectors{db: db, cfg: cfg, embedder: opts.Embedder, now: opts.Now, log: opts.Logger, analytics: opts.Analytics,
		busy: opts.Busy, wake: make(chan struct{}, 1)}
	if v.now == nil {
		v.now = time.Now
	}
	if v.log == nil {
		v.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if v.analytics == nil {
		v.analytics = analytics.NewAnalytics(v.now)
	}
	if v.busy == nil {
		v.busy = func() bool { return false }
	}
	return v
}

type providerError struct {
	err error
	at  time.Time
}

// queryCacheSize bounds the cache of query vectors (search as you type asks
// for the same prefixes again).
const queryCacheSize = 256

// providerBackoff is how long after a provider failure writes skip the
// synchronous embedding and leave it to the tracker.
const providerBackoff = 30 * time.Second

// Embedder returns the configured embedder, or nil when vectors are off.
func (v *Vectors) Embedder() Embedder { return v.embedder }

func (v *Vectors) noteProvider(err error) {
	if err == nil {
		v.lastErr.Store(nil)
		return
	}
	v.lastErr.Store(&providerError{err: err, at: v.now()})
}

// ProviderHealthy reports whether the provider's last call succeeded or
// failed longer ago than the backoff.
func (v *Vectors) ProviderHealthy() bool {
	pe := v.lastErr.Load()
	return pe == nil || v.now().Sub(pe.at) > providerBackoff
}

// LastError returns the embedding provider's last failure, or nil when
// its last call succeeded.
func (v *Vectors) LastError() error {
	if pe := v.lastErr.Load(); pe != nil {
		return pe.err
	}
	return nil
}

// Embed calls the provider outside any transaction, bounded by the
// configured timeout, and returns normalized vectors of one dimension.
func (v *Vectors) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if v.embedder == nil {
		return nil, errors.New("no embedding provider configured")
	}
	ctx, cancel := context.WithTimeout(ctx, v.cfg.Timeout.D())
	defer cancel()
	t0 := time.Now()
	vecs, err := v.embedder.Embed(ctx, texts)
	defer func() { v.noteEmbedCall(time.Since(t0), err) }()
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedding provider returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err == nil {
		want := v.cfg.Dimensions
		for i, vec := range vecs {
			if want == 0 {
				want = len(vec)
			}
			if len(vec) != want {
				err = fmt.Errorf("embedding provider returned a vector of %d dimensions, expected %d", len(vec), want)
				break
			}
			if !vector.Normalize(vec) {
				err = fmt.Errorf("embedding provider returned an unusable vector (zero, NaN or infinite) for text %d", i)
				break
			}
		}
	}
	// A caller that gave up (a hook whose agent stopped waiting, a client
	// gone) says nothing of the provider; a timeout does.
	if !errors.Is(ctx.Err(), context.Canceled) {
		v.noteProvider(err)
	}
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return vecs, nil
}

// queryVector embeds a recall query, through a small cache.
func (v *Vectors) queryVector(ctx context.Context, q string) ([]float32, error) {
	v.qmu.Lock()
	if vec, ok := v.qcache[q]; ok {
		v.qmu.Unlock()
		return vec, nil
	}
	v.qmu.Unlock()
	vecs, err := v.Embed(ctx, []string{q})
	if err != nil {
		return nil, err
	}
	v.qmu.Lock()
	defer v.qmu.Unlock()
	if v.qcache == nil {
		v.qcache = map[string][]float32{}
	}
	if _, ok := v.qcache[q]; !ok {
		if len(v.qorder) >= queryCacheSize {
			delete(v.qcache, v.qorder[0])
			v.qorder = v.qorder[1:]
		}
		v.qorder = append(v.qorder, q)
		v.qcache[q] = vecs[0]
	}
	return vecs[0], nil
}

// index returns the vector index, loading it on first use. The TUI and
// the server warm it in the background (WarmVectors) so the first frame
// never waits for it.
func (v *Vectors) index(ctx context.Context) (*vector.Index, error) {
	if v.embedder == nil {
		return nil, errors.New("no embedding provider configured")
	}
	if ix := v.ix.Load(); ix != nil {
		return ix, nil
	}
	v.loadMu.Lock()
	defer v.loadMu.Unlock()
	if ix := v.ix.Load(); ix != nil {
		return ix, nil
	}
	dim := v.embedder.Dimensions()
	if dim == 0 {
		dim, _ = storage.EmbeddingDimensions(ctx, v.db.Reader(), v.embedder.Model())
	}
	if dim == 0 {
		// Nothing stored yet and the provider does not say: learn it from
		// one embedding.
		probe, err := v.Embed(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, err
		}
		dim = len(probe[0])
	}
	start := time.Now()
	ix, err := vector.Load(ctx, v.db.Reader(), v.embedder.Model(), dim)
	if err != nil {
		return nil, err
	}
	v.ix.Store(ix)
	// Loading leaves about as much garbage (each row's copy of its blob
	// and fields) as the index itself: collect it and give the memory
	// back now, once, rather than let it sit in the heap for minutes.
	debug.FreeOSMemory()
	v.log.Info("vector index loaded", "model", ix.Model, "vectors", ix.Len(), "index_bytes", ix.Bytes(),
		"ms", time.Since(start).Milliseconds())
	return ix, nil
}

// calibrationQueries is how many recent real queries calibration needs.
const calibrationQueries = 16

// maybeCalibrate measures the prefilter in the background, on the recent
// queries, when the index is large enough and grew since the last
// measurement; searches stay exact meanwhile.
func (v *Vectors) maybeCalibrate(ix *vector.Index) {
	if !ix.NeedsCalibration() {
		return
	}
	v.qmu.Lock()
	queries := make([][]float32, 0, len(v.qorder))
	for _, q := range v.qorder {
		if vec := v.qcache[q]; len(vec) == ix.Dim {
			queries = append(queries, vec)
		}
	}
	v.qmu.Unlock()
	if len(queries) < calibrationQueries || !v.calibrating.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer v.calibrating.Store(false)
		start := time.Now()
		cands, recall := ix.Calibrate(queries)
		v.log.Info("vector prefilter calibrated", "vectors", ix.Len(), "queries", len(queries), "candidates", cands,
			"recall_at_10", recall, "enabled", cands > 0, "ms", time.Since(start).Milliseconds())
	}()
}

// StartWarm marks the embedding model and the vector index as loading
// and returns the function that loads them, for the caller to run in a
// goroutine: a server does at start. Until they are loaded, Warming
// reports true and recall answers from its keyword leg rather than wait
// for them (the model alone takes a few hundred milliseconds to load): a
// hook that started the server has its first answer sooner, and the
// answer says it is keyword only.
func (v *Vectors) StartWarm() func(context.Context) error {
	if v.embedder == nil {
		return func(context.Context) error { return nil }
	}
	v.warming.Store(true)
	return func(ctx context.Context) error {
		defer v.warming.Store(false)
		if w, ok := v.embedder.(interface{ Warm(context.Context) error }); ok {
			if err := w.Warm(ctx); err != nil {
				return fmt.Errorf("embedding model: %w", err)
			}
		}
		if err := v.WarmVectors(ctx); err != nil {
			return fmt.Errorf("vector index: %w", err)
		}
		return nil
	}
}

// Warming reports whether the model and the index are still loading
// after StartWarm.
func (v *Vectors) Warming() bool { return v.warming.Load() }

// WarmVectors loads the vector index now (call it in a goroutine at start).
func (v *Vectors) WarmVectors(ctx context.Context) error {
	if v.embedder == nil {
		return nil
	}
	_, err := v.index(ctx)
	return err
}

// SyncVectors brings the index in line with the rows of ids after a write:
// live memories whose current content has a vector are (re)indexed with
// fresh filter fields, the rest are dropped. A live memory without a
// vector wakes the embedding tracker (an import's memories, say).
func (v *Vectors) SyncVectors(ctx context.Context, ids ...string) {
	if len(ids) == 0 || v.embedder == nil {
		return
	}
	ix := v.ix.Load()
	model := v.embedder.Model()
	r := v.db.Reader()
	missing := false
	for _, id := range ids {
		m, err := storage.GetMemory(ctx, r, id)
		if err != nil || m.IsDeleted {
			if ix != nil {
				ix.Remove(id)
			}
			continue
		}
		blob, err := storage.EmbeddingVector(ctx, r, m.ContentHash, model)
		if errors.Is(err, storage.ErrNotFound) {
			missing = true
		}
		if ix == nil {
			continue
		}
		var c vector.Code
		if err == nil {
			c, err = vector.DecodeCode(blob, ix.Dim)
		}
		if err != nil {
			ix.Remove(id)
			continue
		}
		ix.PutCode(vector.MetaOf(m), c)
	}
	if missing {
		v.EmbedSoon()
	}
}

// Drop removes memories from the in-memory vector index (the rows are
// gone; this keeps the index from drifting).
func (v *Vectors) Drop(ids ...string) {
	if ix := v.ix.Load(); ix != nil {
		for _, id := range ids {
			ix.Remove(id)
		}
	}
}

// EmbedSoon tells the embedding tracker that memories were written (or
// their content changed) and wants a vector: it wakes at once rather than at
// its next poll. The write has committed and its answer never waits for the
// embedding (docs/design/memory.md, "Write path"); keyword search finds
// the memory meanwhile.
func (v *Vectors) EmbedSoon() {
	if v.embedder == nil {
		return
	}
	v.curMu.Lock()
	v.cursor = storage.PendingCursor{} // the new rows are at the top
	v.curMu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default: // a wake-up is already waiting
	}
}

// Wakeups delivers EmbedSoon's signals to the embedding tracker.
func (v *Vectors) Wakeups() <-chan struct{} { return v.wake }

// noteEmbedCall records one embedding call's outcome in analytics.
func (v *Vectors) noteEmbedCall(d time.Duration, err error) {
	v.analytics.RecordProviderCall("embedding:"+v.cfg.Provider+"/"+v.embedder.Model(), d, err)
	if err != nil {
		v.analytics.RecordError(analytics.ErrorEvent{Stage: analytics.StageEmbedding,
			Code: analytics.TimeoutCode(err, analytics.CodeEmbeddingTimeout, analytics.CodeEmbeddingProviderDown), Message: err.Error()})
	}
}

type foregroundProbeKey struct{}

// ForegroundProbe returns, for a context of background embedding, a
// function reporting whether a foreground request is in flight (or just
// ended); nil for a foreground context. Providers that use several cores
// for one call should use one while it reports true.
func ForegroundProbe(ctx context.Context) func() bool {
	f, _ := ctx.Value(foregroundProbeKey{}).(func() bool)
	return f
}

// Embedder turns texts into vectors. Implementations live in
// workers/embedding (the built-in offline model, Ollama, OpenAI-compatible
// servers); cairn only calls them, and never inside a write transaction.
type Embedder interface {
	// Embed returns one vector per text, in order. Vectors need not be
	// normalized; Vectors normalizes them before storing.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; it is stored with every vector so a change of
	// model is detected and re-embedded.
	Model() string
	// Dimensions is the vector length, or 0 when not known until the first
	// call.
	Dimensions() int
}
