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

// Run works until ctx ends. A failing provider is retried with exponential
// backoff; the failure is visible in /api/embeddings/status.
func (t *EmbeddingTracker) Run(ctx context.Context) error {
	if t.Svc.Vectors().Embedder() == nil {
		return nil
	}
	defer t.Svc.WorkerRunning(core.WorkerEmbedding)()
	wait := t.Interval
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		n, err := t.Svc.Vectors().EmbedBatch(ctx, t.Batch)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			failures++
			wait = min(t.Interval<<min(failures, 10), maxTrackerBackoff)
			t.Log.Warn("embedding tracker", "err", err, "retry_in", wait)
		case n == t.Batch:
			failures, wait = 0, 0 // more waiting: keep going
		default:
			if n > 0 {
				t.Log.Info("embedding tracker", "embedded", n)
			}
			failures, wait = 0, t.Interval
		}
	}
}
