package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/vectors"
)

// EmbeddingTracker embeds memories that have no vector for the current
// model (new, edited, imported, or written under another model) in small
// batches, outside any write transaction, until none is left.
//
// It looks for such memories only when there may be some: at start (a
// backlog, or a model change, which takes a restart), after a write
// (Vectors.EmbedSoon), and after a failure (with backoff). With nothing to
// do it issues no query at all: an idle store costs no CPU.
type EmbeddingTracker struct {
	Svc     *core.Service
	Vectors *vectors.Vectors
	// Interval is the first retry delay after a failure; it doubles with
	// each further failure up to maxTrackerBackoff.
	Interval time.Duration
	Batch    int
	Log      *slog.Logger
}

// maxTrackerBackoff caps the wait after repeated provider failures.
const maxTrackerBackoff = 5 * time.Minute

// trackerBusyBatch is how many memories one pass embeds while foreground
// requests keep coming (core.Throttle paces the passes), so a burst of
// remembers keeps the CPU and the writer.
const trackerBusyBatch = 2

// Run works until ctx ends. It first rewrites vectors still stored in the
// float32 format of older stores, then embeds the backlog; afterwards it
// sleeps until a write asks for an embedding. A failing provider is
// retried with exponential backoff, and the failure is visible in
// /api/embeddings/status.
func (t *EmbeddingTracker) Run(ctx context.Context) error {
	vec := t.Vectors
	if vec.Embedder() == nil {
		return nil
	}
	defer t.Svc.PipelineRuntime().WorkerRunning(core.WorkerEmbedding)()
	throttle := t.Svc.Foreground().NewThrottle()
	pace := func(ctx context.Context) error { _, err := throttle.Wait(ctx); return err }
	if n, err := vec.ConvertLegacyVectors(ctx, pace); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		t.Log.Warn("embedding tracker: converting float32 vectors", "err", err)
	} else if n > 0 {
		t.Log.Info("embedding tracker: vectors converted to int8", "vectors", n)
		if err := vec.CompactStore(ctx); err != nil && ctx.Err() == nil {
			t.Log.Warn("embedding tracker: compacting the database after the conversion", "err", err)
		}
	}
	scan := true // at start: there may be a backlog
	select {
	case <-vec.Wakeups(): // writes before the start: the first scan covers them
	default:
	}
	failures := 0
	for {
		if !scan {
			select {
			case <-ctx.Done():
				return nil
			case <-vec.Wakeups():
			}
		}
		batch := t.Batch
		if busy, err := throttle.Wait(ctx); err != nil {
			return nil
		} else if busy {
			batch = min(batch, trackerBusyBatch)
		}
		n, err := vec.EmbedBatch(ctx, batch)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			failures++
			wait := min(t.Interval<<min(failures, 10), maxTrackerBackoff)
			t.Log.Warn("embedding tracker", "err", err, "retry_in", wait)
			// Backing off: a write does not end the wait (its wake-up
			// stays pending); the retry scans again.
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil
			case <-timer.C:
			}
			scan = true
		case n == batch:
			failures, scan = 0, true // more waiting: keep going
		default:
			if n > 0 {
				t.Log.Debug("embedding tracker", "embedded", n)
			}
			failures, scan = 0, false
		}
	}
}
