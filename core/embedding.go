package core

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/vector"

	"github.com/cairnmem/cairn/storage"
)

// Vectors owns a Service's vectors: its embedder, the in-memory vector
// index, the query cache and the provider's health.
type Vectors struct {
	svc  *Service
	wake chan struct{} // EmbedSoon → the embedding tracker
	embedState
}

// embedState is the Service's view of its embedder: the in-memory vector
// index (loaded lazily), a small cache of query vectors, and the provider's
// recent health.
type embedState struct {
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
func (s *Vectors) Embedder() Embedder { return s.svc.embedder }

func (s *Vectors) noteProvider(err error) {
	if err == nil {
		s.lastErr.Store(nil)
		return
	}
	s.lastErr.Store(&providerError{err: err, at: s.svc.now()})
}

func (s *Vectors) ProviderHealthy() bool {
	pe := s.lastErr.Load()
	return pe == nil || s.svc.now().Sub(pe.at) > providerBackoff
}

// Embed calls the provider outside any transaction, bounded by the
// configured timeout, and returns normalized vectors of one dimension.
func (s *Vectors) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if s.svc.embedder == nil {
		return nil, errors.New("no embedding provider configured")
	}
	ctx, cancel := context.WithTimeout(ctx, s.svc.cfg.Embedding.Timeout.D())
	defer cancel()
	t0 := time.Now()
	vecs, err := s.svc.embedder.Embed(ctx, texts)
	defer func() { s.noteEmbedCall(time.Since(t0), err) }()
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedding provider returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err == nil {
		want := s.svc.cfg.Embedding.Dimensions
		for i, v := range vecs {
			if want == 0 {
				want = len(v)
			}
			if len(v) != want {
				err = fmt.Errorf("embedding provider returned a vector of %d dimensions, expected %d", len(v), want)
				break
			}
			if !vector.Normalize(v) {
				err = fmt.Errorf("embedding provider returned an unusable vector (zero, NaN or infinite) for text %d", i)
				break
			}
		}
	}
	// A caller that gave up (a hook whose agent stopped waiting, a client
	// gone) says nothing of the provider; a timeout does.
	if !errors.Is(ctx.Err(), context.Canceled) {
		s.noteProvider(err)
	}
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return vecs, nil
}

// queryVector embeds a recall query, through a small cache.
func (s *Vectors) queryVector(ctx context.Context, q string) ([]float32, error) {
	s.qmu.Lock()
	if v, ok := s.qcache[q]; ok {
		s.qmu.Unlock()
		return v, nil
	}
	s.qmu.Unlock()
	vecs, err := s.Embed(ctx, []string{q})
	if err != nil {
		return nil, err
	}
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.qcache == nil {
		s.qcache = map[string][]float32{}
	}
	if _, ok := s.qcache[q]; !ok {
		if len(s.qorder) >= queryCacheSize {
			delete(s.qcache, s.qorder[0])
			s.qorder = s.qorder[1:]
		}
		s.qorder = append(s.qorder, q)
		s.qcache[q] = vecs[0]
	}
	return vecs[0], nil
}

// index returns the vector index, loading it on first use. The TUI and
// the server warm it in the background (WarmVectors) so the first frame
// never waits for it.
func (s *Vectors) index(ctx context.Context) (*vector.Index, error) {
	if s.svc.embedder == nil {
		return nil, errors.New("no embedding provider configured")
	}
	if ix := s.ix.Load(); ix != nil {
		return ix, nil
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if ix := s.ix.Load(); ix != nil {
		return ix, nil
	}
	dim := s.svc.embedder.Dimensions()
	if dim == 0 {
		dim, _ = storage.EmbeddingDimensions(ctx, s.svc.db.Reader(), s.svc.embedder.Model())
	}
	if dim == 0 {
		// Nothing stored yet and the provider does not say: learn it from
		// one embedding.
		v, err := s.Embed(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, err
		}
		dim = len(v[0])
	}
	start := time.Now()
	ix, err := vector.Load(ctx, s.svc.db.Reader(), s.svc.embedder.Model(), dim)
	if err != nil {
		return nil, err
	}
	s.ix.Store(ix)
	// Loading leaves about as much garbage (each row's copy of its blob
	// and fields) as the index itself: collect it and give the memory
	// back now, once, rather than let it sit in the heap for minutes.
	debug.FreeOSMemory()
	s.svc.log.Info("vector index loaded", "model", ix.Model, "vectors", ix.Len(), "index_bytes", ix.Bytes(),
		"ms", time.Since(start).Milliseconds())
	return ix, nil
}

// calibrationQueries is how many recent real queries calibration needs.
const calibrationQueries = 16

// maybeCalibrate measures the prefilter in the background, on the recent
// queries, when the index is large enough and grew since the last
// measurement; searches stay exact meanwhile.
func (s *Vectors) maybeCalibrate(ix *vector.Index) {
	if !ix.NeedsCalibration() {
		return
	}
	s.qmu.Lock()
	queries := make([][]float32, 0, len(s.qorder))
	for _, q := range s.qorder {
		if v := s.qcache[q]; len(v) == ix.Dim {
			queries = append(queries, v)
		}
	}
	s.qmu.Unlock()
	if len(queries) < calibrationQueries || !s.calibrating.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.calibrating.Store(false)
		start := time.Now()
		cands, recall := ix.Calibrate(queries)
		s.svc.log.Info("vector prefilter calibrated", "vectors", ix.Len(), "queries", len(queries), "candidates", cands,
			"recall_at_10", recall, "enabled", cands > 0, "ms", time.Since(start).Milliseconds())
	}()
}

// WarmVectors loads the vector index now (call it in a goroutine at start).
func (s *Vectors) WarmVectors(ctx context.Context) error {
	if s.svc.embedder == nil {
		return nil
	}
	_, err := s.index(ctx)
	return err
}

// SyncVectors brings the index in line with the rows of ids after a write:
// live memories whose current content has a vector are (re)indexed with
// fresh filter fields, the rest are dropped. A live memory without a
// vector wakes the embedding tracker (an import's memories, say).
func (s *Vectors) SyncVectors(ctx context.Context, ids ...string) {
	if len(ids) == 0 || s.svc.embedder == nil {
		return
	}
	ix := s.ix.Load()
	model := s.svc.embedder.Model()
	r := s.svc.db.Reader()
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
		s.EmbedSoon()
	}
}

// CompactStore rebuilds the database file after a conversion (see
// storage.DB.CompactAfterConversion) and logs the sizes.
func (s *Vectors) CompactStore(ctx context.Context) error {
	start := time.Now()
	before, after, err := s.svc.db.CompactAfterConversion(ctx)
	if err != nil {
		return err
	}
	s.svc.log.Info("database compacted after the vector conversion", "bytes_before", before, "bytes_after", after,
		"ms", time.Since(start).Milliseconds())
	return nil
}

// legacyBatch is how many float32 vectors one transaction rewrites.
const legacyBatch = 500

// ConvertLegacyVectors rewrites the vectors still stored as float32 (a
// store from before migration 0011) in the quantized format, a batch per
// short transaction, calling pace before each batch (a background worker
// passes its throttle). The index reads both formats meanwhile. It returns
// how many it rewrote.
func (s *Vectors) ConvertLegacyVectors(ctx context.Context, pace func(context.Context) error) (int, error) {
	total := 0
	for {
		if pace != nil {
			if err := pace(ctx); err != nil {
				return total, err
			}
		}
		rows, err := storage.LegacyEmbeddings(ctx, s.svc.db.Reader(), legacyBatch)
		if err != nil || len(rows) == 0 {
			return total, err
		}
		blobs := make([][]byte, len(rows))
		for i, e := range rows {
			c, err := vector.DecodeCode(e.Vector, e.Dimensions)
			if err != nil {
				return total, fmt.Errorf("convert vector %d: %w", e.ID, err)
			}
			blobs[i] = vector.EncodeCode(c)
		}
		err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
			for i, e := range rows {
				if err := storage.RewriteLegacyEmbedding(ctx, tx, e.ID, blobs[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("convert vectors: %w", err)
		}
		total += len(rows)
	}
}

// PendingRow is a live memory whose content has no vector for the model.
type PendingRow struct {
	ID, Hash, Content string
}

// PendingRows converts storage's pending rows.
func PendingRows(ps []storage.PendingEmbedding) []PendingRow {
	out := make([]PendingRow, 0, len(ps))
	for _, p := range ps {
		out = append(out, PendingRow{ID: p.ID, Hash: p.ContentHash, Content: p.Content})
	}
	return out
}

// CountPendingEmbeddings counts live memories without a vector for the
// current model (missing, stale after a content change, or from another
// model).
func (s *Vectors) CountPendingEmbeddings(ctx context.Context) (int, error) {
	if s.svc.embedder == nil {
		return 0, nil
	}
	return storage.CountPendingEmbeddings(ctx, s.svc.db.Reader(), s.svc.embedder.Model())
}

// EmbedBatch embeds up to n pending memories, newest first: the provider
// is called outside any transaction, then one short transaction stores the
// vectors. It returns how many were embedded. Successive calls walk a
// backlog down from where the last one stopped (one pass over the store
// for the whole backlog); a write (EmbedSoon) sends the walk back to the
// top.
func (s *Vectors) EmbedBatch(ctx context.Context, n int) (int, error) {
	if s.svc.embedder == nil {
		return 0, nil
	}
	model := s.svc.embedder.Model()
	r := s.svc.db.Reader()
	s.curMu.Lock()
	cur := s.cursor
	s.curMu.Unlock()
	s.scans.Add(1)
	pend, next, err := storage.PendingEmbeddingsFrom(ctx, r, model, cur, n)
	if err == nil && len(pend) < n && cur != (storage.PendingCursor{}) {
		// The walk reached the bottom: look from the top once more (rows
		// changed meanwhile sort there).
		s.scans.Add(1)
		pend, next, err = storage.PendingEmbeddingsFrom(ctx, r, model, storage.PendingCursor{}, n)
	}
	if err != nil {
		return 0, err
	}
	if len(pend) < n {
		next = storage.PendingCursor{} // nothing below: start from the top next time
	}
	s.curMu.Lock()
	s.cursor = next
	s.curMu.Unlock()
	if len(pend) == 0 {
		return 0, nil
	}
	done, err := s.EmbedRows(ctx, PendingRows(pend))
	s.lastCycle.Store(s.svc.now().UnixMilli())
	return done, err
}

// PendingScans counts the queries for pending memories so far: an idle
// tracker issues none.
func (s *Vectors) PendingScans() int64 { return s.scans.Load() }

// EmbedRows embeds and stores the given rows in provider-sized batches.
// It is background work: a provider that spreads a batch over several
// cores (the built-in model) keeps to one while a foreground request is in
// flight (see ForegroundProbe), so a recall's query embedding never waits
// for a core behind it.
func (s *Vectors) EmbedRows(ctx context.Context, pend []PendingRow) (int, error) {
	ctx = context.WithValue(ctx, foregroundProbeKey{}, s.svc.foregroundBusy)
	model := s.svc.embedder.Model()
	bs := s.svc.cfg.Embedding.BatchSize
	done := 0
	for start := 0; start < len(pend); start += bs {
		batch := pend[start:min(start+bs, len(pend))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.Content
		}
		vecs, err := s.Embed(ctx, texts)
		if err != nil {
			s.failed.Add(int64(len(batch)))
			return done, err
		}
		var ids []string
		err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
			ids = ids[:0]
			for i, p := range batch {
				if err := storage.UpsertEmbedding(ctx, tx, p.Hash, model, len(vecs[i]), vector.Encode(vecs[i])); err != nil {
					return err
				}
				// Only if the content did not change while we were embedding.
				updated, err := storage.SetEmbeddingModel(ctx, tx, p.ID, p.Hash, model)
				if err != nil {
					return err
				}
				if updated {
					ids = append(ids, p.ID)
				}
			}
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("store embeddings: %w", err)
		}
		s.SyncVectors(ctx, ids...)
		if ix := s.ix.Load(); ix != nil {
			s.maybeCalibrate(ix)
		}
		done += len(batch)
		s.processed.Add(int64(len(batch)))
	}
	return done, nil
}

// EmbedPending embeds every pending memory, reporting progress, until none
// is left (the benchmark and `cairn reindex` use it; the tracker embeds in
// small batches instead).
func (s *Vectors) EmbedPending(ctx context.Context, progress func(done, total int)) error {
	if s.svc.embedder == nil {
		return nil
	}
	total, err := s.CountPendingEmbeddings(ctx)
	if err != nil {
		return err
	}
	if _, err := s.index(ctx); err != nil {
		return err
	}
	done := 0
	for done < total {
		n, err := s.EmbedBatch(ctx, 256)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		done += n
		if progress != nil {
			progress(min(done, total), total)
		}
	}
	return nil
}

// EmbedSoon tells the embedding tracker that memories were written (or
// their content changed) and wants a vector: it wakes at once rather than at
// its next poll. The write has committed and its answer never waits for the
// embedding (seed 000: "An embedding is generated asynchronously"); keyword
// search finds the memory meanwhile.
func (s *Vectors) EmbedSoon() {
	if s.svc.embedder == nil {
		return
	}
	s.curMu.Lock()
	s.cursor = storage.PendingCursor{} // the new rows are at the top
	s.curMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already waiting
	}
}

// Wakeups delivers EmbedSoon's signals to the embedding tracker.
func (s *Vectors) Wakeups() <-chan struct{} { return s.wake }

// EmbeddingStatus describes the provider, the vector index and coverage.
type EmbeddingStatus struct {
	Provider   string         `json:"provider"`
	Model      string         `json:"model,omitempty"`
	Dimensions int            `json:"dimensions,omitempty"`
	Available  bool           `json:"available"`
	Error      string         `json:"error,omitempty"`
	ErrorAt    string         `json:"errorAt,omitempty"`
	Indexed    int            `json:"indexed"`
	IndexReady bool           `json:"indexReady"`
	Coverage   map[string]any `json:"coverage"`
	Tracker    map[string]any `json:"tracker"`
}

// EmbeddingStatus reports how embedding is doing.
func (s *Vectors) EmbeddingStatus(ctx context.Context) (*EmbeddingStatus, error) {
	st := &EmbeddingStatus{Provider: s.svc.cfg.Embedding.Provider}
	stats, err := storage.Stats(ctx, s.svc.db.Reader())
	if err != nil {
		return nil, err
	}
	pending, err := s.CountPendingEmbeddings(ctx)
	if err != nil {
		return nil, err
	}
	cov := 0.0
	if stats.Total > 0 {
		cov = float64(stats.Total-pending) / float64(stats.Total)
	}
	if s.svc.embedder == nil {
		st.Provider = "none"
		cov, pending = 0, stats.Total
	} else {
		st.Model, st.Dimensions = s.svc.embedder.Model(), s.svc.embedder.Dimensions()
		st.Available = true
		if pe := s.lastErr.Load(); pe != nil {
			st.Available = false
			st.Error, st.ErrorAt = pe.err.Error(), storage.FormatTime(pe.at)
		}
		if ix := s.ix.Load(); ix != nil {
			st.IndexReady, st.Indexed = true, ix.Len()
			if st.Dimensions == 0 {
				st.Dimensions = ix.Dim
			}
		}
	}
	st.Coverage = map[string]any{"total": stats.Total, "embedded": stats.Total - pending, "pending": pending, "ratio": cov}
	last := ""
	if ms := s.lastCycle.Load(); ms > 0 {
		last = storage.FormatTime(time.UnixMilli(ms))
	}
	st.Tracker = map[string]any{"processed": s.processed.Load(), "failed": s.failed.Load(), "lastCycleAt": last, "queueDepth": pending,
		"scans": s.scans.Load()}
	return st, nil
}

// noteEmbedCall records one embedding call's outcome in analytics.
func (s *Vectors) noteEmbedCall(d time.Duration, err error) {
	s.svc.analytics.RecordProviderCall("embedding:"+s.svc.cfg.Embedding.Provider+"/"+s.svc.embedder.Model(), d, err)
	if err != nil {
		s.svc.analytics.RecordError(analytics.ErrorEvent{Stage: analytics.StageEmbedding,
			Code: ExtractionErrCode(err, analytics.CodeEmbeddingTimeout, analytics.CodeEmbeddingProviderDown), Message: err.Error()})
	}
}

// extractionErrCode is timeout for a model call that ran out of time, else
// other.
func ExtractionErrCode(err error, timeout, other string) string {
	if analytics.IsTimeout(err) {
		return timeout
	}
	return other
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
// servers); core only calls them, and never inside a write transaction.
type Embedder interface {
	// Embed returns one vector per text, in order. Vectors need not be
	// normalized; core normalizes before storing.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; it is stored with every vector so a change of
	// model is detected and re-embedded.
	Model() string
	// Dimensions is the vector length, or 0 when not known until the first
	// call.
	Dimensions() int
}
