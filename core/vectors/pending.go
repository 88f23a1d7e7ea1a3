package vectors

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
)

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
func (v *Vectors) CountPendingEmbeddings(ctx context.Context) (int, error) {
	if v.embedder == nil {
		return 0, nil
	}
	return storage.CountPendingEmbeddings(ctx, v.db.Reader(), v.embedder.Model())
}

// EmbedBatch embeds up to n pending memories, newest first: the provider
// is called outside any transaction, then one short transaction stores the
// vectors. It returns how many were embedded. Successive calls walk a
// backlog down from where the last one stopped (one pass over the store
// for the whole backlog); a write (EmbedSoon) sends the walk back to the
// top.
func (v *Vectors) EmbedBatch(ctx context.Context, n int) (int, error) {
	if v.embedder == nil {
		return 0, nil
	}
	model := v.embedder.Model()
	r := v.db.Reader()
	v.curMu.Lock()
	cur := v.cursor
	v.curMu.Unlock()
	v.scans.Add(1)
	pend, next, err := storage.PendingEmbeddingsFrom(ctx, r, model, cur, n)
	if err == nil && len(pend) < n && cur != (storage.PendingCursor{}) {
		// The walk reached the bottom: look from the top once more (rows
		// changed meanwhile sort there).
		v.scans.Add(1)
		pend, next, err = storage.PendingEmbeddingsFrom(ctx, r, model, storage.PendingCursor{}, n)
	}
	if err != nil {
		return 0, err
	}
	if len(pend) < n {
		next = storage.PendingCursor{} // nothing below: start from the top next time
	}
	v.curMu.Lock()
	v.cursor = next
	v.curMu.Unlock()
	if len(pend) == 0 {
		return 0, nil
	}
	done, err := v.EmbedRows(ctx, PendingRows(pend))
	v.lastCycle.Store(v.now().UnixMilli())
	return done, err
}

// PendingScans counts the queries for pending memories so far: an idle
// tracker issues none.
func (v *Vectors) PendingScans() int64 { return v.scans.Load() }

// EmbedRows embeds and stores the given rows in provider-sized batches.
// It is background work: a provider that spreads a batch over several
// cores (the built-in model) keeps to one while a foreground request is in
// flight (see ForegroundProbe), so a recall's query embedding never waits
// for a core behind it.
func (v *Vectors) EmbedRows(ctx context.Context, pend []PendingRow) (int, error) {
	ctx = context.WithValue(ctx, foregroundProbeKey{}, v.busy)
	model := v.embedder.Model()
	bs := v.cfg.BatchSize
	done := 0
	for start := 0; start < len(pend); start += bs {
		batch := pend[start:min(start+bs, len(pend))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.Content
		}
		vecs, err := v.Embed(ctx, texts)
		if err != nil {
			v.failed.Add(int64(len(batch)))
			return done, err
		}
		var ids []string
		err = v.db.WriteTx(ctx, func(tx storage.Tx) error {
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
		v.SyncVectors(ctx, ids...)
		if ix := v.ix.Load(); ix != nil {
			v.maybeCalibrate(ix)
		}
		done += len(batch)
		v.processed.Add(int64(len(batch)))
	}
	return done, nil
}

// EmbedPending embeds every pending memory, reporting progress, until none
// is left (the benchmark and `cairn reindex` use it; the tracker embeds in
// small batches instead).
func (v *Vectors) EmbedPending(ctx context.Context, progress func(done, total int)) error {
	if v.embedder == nil {
		return nil
	}
	total, err := v.CountPendingEmbeddings(ctx)
	if err != nil {
		return err
	}
	if _, err := v.index(ctx); err != nil {
		return err
	}
	done := 0
	for done < total {
		n, err := v.EmbedBatch(ctx, 256)
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

// CompactStore rebuilds the database file after a conversion (see
// storage.DB.CompactAfterConversion) and logs the sizes.
func (v *Vectors) CompactStore(ctx context.Context) error {
	start := time.Now()
	before, after, err := v.db.CompactAfterConversion(ctx)
	if err != nil {
		return err
	}
	v.log.Info("database compacted after the vector conversion", "bytes_before", before, "bytes_after", after,
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
func (v *Vectors) ConvertLegacyVectors(ctx context.Context, pace func(context.Context) error) (int, error) {
	total := 0
	for {
		if pace != nil {
			if err := pace(ctx); err != nil {
				return total, err
			}
		}
		rows, err := storage.LegacyEmbeddings(ctx, v.db.Reader(), legacyBatch)
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
		err = v.db.WriteTx(ctx, func(tx storage.Tx) error {
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
