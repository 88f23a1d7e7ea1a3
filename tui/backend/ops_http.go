package backend

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/ops"
)

// Diagnostics implements Ops. The API has no way to skip the report
// cache, so a fresh report is asked for once the cache has turned over
// (core.DiagnosticsTTL after the call began).
func (h *HTTP) Diagnostics(ctx context.Context, fresh bool) (*ops.DiagnosticsReport, error) {
	if fresh {
		t := time.NewTimer(ops.DiagnosticsTTL)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return h.c.Diagnostics(ctx)
}

// RepairActions implements Ops. The list is compiled into both ends, so
// it is not fetched.
func (h *HTTP) RepairActions() []ops.RepairInfo { return ops.RepairActions() }

// Repair implements Ops with POST /api/repair/{action}; gate denials (429)
// and a run already in progress (409) come back as *core.Error.
func (h *HTTP) Repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error) {
	return h.c.Repair(ctx, action, opts)
}

// MaintenanceRecommendations implements Ops with GET /api/maintenance.
func (h *HTTP) MaintenanceRecommendations(ctx context.Context) ([]ops.Recommendation, error) {
	return h.c.Maintenance(ctx)
}

// Latency implements Ops with GET /api/analytics/latency and the recall
// samples of GET /api/analytics/latency/samples.
func (h *HTTP) Latency(ctx context.Context) (Latency, error) {
	out, err := h.c.Latency(ctx)
	if err != nil {
		return Latency{}, err
	}
	samples, err := h.c.LatencySamples(ctx, analytics.LatencyRecall)
	if err != nil {
		return Latency{}, err
	}
	return Latency{Summaries: out, RecallSamples: samples}, nil
}

// RecentErrors implements Ops with GET /api/analytics/errors.
func (h *HTTP) RecentErrors(ctx context.Context, limit int) ([]analytics.ErrorEvent, error) {
	return h.c.RecentErrors(ctx, limit)
}
