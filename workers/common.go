package workers

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core"
)

// logOrDiscard returns log, or a logger that drops everything when nil.
func logOrDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return log
}

// every runs fn first after first, then every interval, until ctx ends.
// fn returning false stops the loop (its context ended mid-run).
func every(ctx context.Context, first, interval time.Duration, fn func() bool) {
	wait := first
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = interval
		if !fn() {
			return
		}
	}
}

// reapInterval is how often stale leases are reaped unless set: half the
// lease timeout, between 1 s and 1 min.
func reapInterval(set time.Duration, svc *core.Service) time.Duration {
	if set > 0 {
		return set
	}
	return min(time.Minute, max(svc.Config().PipelineV2.LeaseTimeout.D()/2, time.Second))
}
