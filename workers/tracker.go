package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core"
)

// EmbeddingTracker embeds memories that have no vector for the current
// model (new, edited, imported, or written under another model) in small
// batches, outside any write transaction, until none is left.
type EmbeddingTracker struct {
	Svc      *core.Service
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

// Run works until ctx ends. It wakes when a write asks for an embedding
// (Vectors.EmbedSoon) and otherwise every Interval; a failing provider is
// retried with exponential backoff, and the failure is visible in
// /api/embeddings/status.
func (t *EmbeddingTracker) Run(ctx context.Context) error {
	vec := t.Svc.Vectors()
	if vec.Embedder() == nil {
		return nil
	}
	defer t.Svc.WorkerRunning(core.WorkerEmbedding)()
	wait := t.Interval
	failures := 0
	throttle := t.Svc.NewThrottle()
	for {
		until := time.Now().Add(wait)
		for wait > 0 && time.Now().Before(until) {
			timer := time.NewTimer(time.Until(until))
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil
			case <-timer.C:
			case <-vec.Wakeups():
				if failures == 0 { // backing off: a write does not end the wait
					until = time.Now()
				}
			}
			timer.Stop()
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
			wait = min(t.Interval<<min(failures, 10), maxTrackerBackoff)
			t.Log.Warn("embedding tracker", "err", err, "retry_in", wait)
		case n == batch:
			failures, wait = 0, 0 // more waiting: keep going
		default:
			if n > 0 {
				t.Log.Debug("embedding tracker", "embedded", n)
			}
			failures, wait = 0, t.Interval
		}
	}
}
