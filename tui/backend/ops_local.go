package backend

import (
	"context"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core"
)

// Diagnostics implements Ops.
func (l *Local) Diagnostics(ctx context.Context, fresh bool) (*core.DiagnosticsReport, error) {
	if fresh {
		return l.svc.ComputeDiagnostics(ctx)
	}
	return l.svc.Diagnostics(ctx)
}

// RepairActions implements Ops.
func (l *Local) RepairActions() []core.RepairInfo { return core.RepairActions() }

// Repair implements Ops.
func (l *Local) Repair(ctx context.Context, action string, opts core.RepairOptions) (*core.RepairResult, error) {
	return l.svc.Repair(ctx, action, Actor, opts)
}

// MaintenanceRecommendations implements Ops.
func (l *Local) MaintenanceRecommendations(ctx context.Context) ([]core.Recommendation, error) {
	return l.svc.MaintenanceRecommendations(ctx)
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
