package backend

import (
	"context"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/analytics"
)

// Ops is what the Diagnostics pane reads and runs: the health report,
// the repairs, the maintenance recommendations and the analytics rings.
// Like every Backend method, each call does I/O and runs in a tea.Cmd.
type Ops interface {
	// Diagnostics returns the health report. The service shares one
	// report for core.DiagnosticsTTL; fresh asks for one measured after
	// the call began (the score after a repair).
	Diagnostics(ctx context.Context, fresh bool) (*ops.DiagnosticsReport, error)
	// RepairActions lists the repairs in menu order.
	RepairActions() []ops.RepairInfo
	// Repair runs one repair as Actor (an operator).
	Repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error)
	// MaintenanceRecommendations are the repairs the current report calls
	// for, halted ones marked.
	MaintenanceRecommendations(ctx context.Context) ([]ops.Recommendation, error)
	// Latency summarises each operation of core.LatencyOps.
	Latency(ctx context.Context) (Latency, error)
	// RecentErrors returns up to limit entries of the error ring, newest
	// first.
	RecentErrors(ctx context.Context, limit int) ([]analytics.ErrorEvent, error)
}

// Latency is the analytics view of recent operation latencies.
type Latency struct {
	// Summaries are keyed by operation (core.LatencyOps).
	Summaries map[string]analytics.LatencySummary
	// RecallSamples are recent recall latencies in milliseconds, oldest
	// first.
	RecallSamples []float64
}

// ErrorsLimit is how many entries of the error ring the Diagnostics pane
// shows.
const ErrorsLimit = 10
