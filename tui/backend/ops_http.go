package backend

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/analytics"
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
	var out ops.DiagnosticsReport
	if err := h.do(ctx, http.MethodGet, "/api/diagnostics", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RepairActions implements Ops. The list is compiled into both ends, so
// it is not fetched.
func (h *HTTP) RepairActions() []ops.RepairInfo { return ops.RepairActions() }

// Repair implements Ops with POST /api/repair/{action}; gate denials (429)
// and a run already in progress (409) come back as *core.Error.
func (h *HTTP) Repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error) {
	var out ops.RepairResult
	if err := h.do(ctx, http.MethodPost, "/api/repair/"+url.PathEscape(action), opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MaintenanceRecommendations implements Ops with GET /api/maintenance.
func (h *HTTP) MaintenanceRecommendations(ctx context.Context) ([]ops.Recommendation, error) {
	var out struct {
		Recommendations []ops.Recommendation `json:"recommendations"`
	}
	if err := h.do(ctx, http.MethodGet, "/api/maintenance", nil, &out); err != nil {
		return nil, err
	}
	return out.Recommendations, nil
}

// Latency implements Ops with GET /api/analytics/latency and the recall
// samples of GET /api/analytics/latency/samples.
func (h *HTTP) Latency(ctx context.Context) (Latency, error) {
	var out map[string]analytics.LatencySummary
	if err := h.do(ctx, http.MethodGet, "/api/analytics/latency", nil, &out); err != nil {
		return Latency{}, err
	}
	var samples struct {
		Samples []float64 `json:"samples"`
	}
	if err := h.do(ctx, http.MethodGet, "/api/analytics/latency/samples?op="+analytics.LatencyRecall, nil, &samples); err != nil {
		return Latency{}, err
	}
	return Latency{Summaries: out, RecallSamples: samples.Samples}, nil
}

// RecentErrors implements Ops with GET /api/analytics/errors.
func (h *HTTP) RecentErrors(ctx context.Context, limit int) ([]analytics.ErrorEvent, error) {
	var out struct {
		Errors []analytics.ErrorEvent `json:"errors"`
	}
	err := h.do(ctx, http.MethodGet, "/api/analytics/errors?limit="+strconv.Itoa(limit), nil, &out)
	return out.Errors, err
}
