package backend

import (
	"context"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/analytics"
)

// Diagnostics implements Ops.
func (l *Local) Diagnostics(ctx context.Context, fresh bool) (*ops.DiagnosticsReport, error) {
	if fresh {
		return l.app.Ops.ComputeDiagnostics(ctx)
	}
	return l.app.Ops.Diagnostics(ctx)
}

// RepairActions implements Ops.
func (l *Local) RepairActions() []ops.RepairInfo { return ops.RepairActions() }

// Repair implements Ops.
func (l *Local) Repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error) {
	return l.app.Ops.Repair(ctx, action, Actor, opts)
}

// MaintenanceRecommendations implements Ops.
func (l *Local) MaintenanceRecommendations(ctx context.Context) ([]ops.Recommendation, error) {
	return l.app.Ops.MaintenanceRecommendations(ctx)
}

// Latency implements Ops.
func (l *Local) Latency(context.Context) (Latency, error) {
	a := l.svc.Analytics()
	return Latency{Summaries: a.LatencyAll(), RecallSamples: a.LatencySamples(analytics.LatencyRecall)}, nil
}

// RecentErrors implements Ops.
func (l *Local) RecentErrors(_ context.Context, limit int) ([]analytics.ErrorEvent, error) {
	errs, _ := l.svc.Analytics().Errors(analytics.ErrorFilter{Limit: limit})
	return errs, nil
}
