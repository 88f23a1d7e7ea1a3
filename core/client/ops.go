package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core/wire"
)

// Jobs implements Client with GET /api/jobs, which answers the counts with
// the rows.
func (c *Remote) Jobs(ctx context.Context, f wire.JobFilter, limit int) (*wire.JobsPage, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"status": f.Status, "type": f.JobType, "memory_id": f.MemoryID, "q": f.Text, "sort": f.Sort} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Failing {
		q.Set("failing", "true")
	}
	if f.Offset > 0 {
		q.Set("offset", strconv.Itoa(f.Offset))
	}
	var out wire.JobsPage
	if err := c.do(ctx, http.MethodGet, withQuery("/api/jobs", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Job implements Client with GET /api/jobs/{id}.
func (c *Remote) Job(ctx context.Context, id string) (*wire.Job, error) {
	var j wire.Job
	if err := c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(id), nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// RetryJob implements Client with POST /api/jobs/{id}/retry.
func (c *Remote) RetryJob(ctx context.Context, id string) (*wire.Job, error) {
	var out struct {
		Job *wire.Job `json:"job"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(id)+"/retry", map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Job, nil
}

// Repair implements Client with POST /api/repair/{action}. Gate denials
// (429) and a run already in progress (409) come back as *core.Error.
func (c *Remote) Repair(ctx context.Context, action string, opts wire.RepairOptions) (*wire.RepairResult, error) {
	var out wire.RepairResult
	if err := c.do(ctx, http.MethodPost, "/api/repair/"+url.PathEscape(action), opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Proposals implements Client with GET /api/proposals.
func (c *Remote) Proposals(ctx context.Context, f wire.ProposalFilter, limit int) (*wire.ProposalsPage, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"state": f.State, "action": f.Action, "source_memory_id": f.SourceMemoryID, "job_id": f.JobID,
		"q": f.Text, "sort": f.Sort} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Decided {
		q.Set("decided", "true")
	}
	if f.Offset > 0 {
		q.Set("offset", strconv.Itoa(f.Offset))
	}
	var out wire.ProposalsPage
	if err := c.do(ctx, http.MethodGet, withQuery("/api/proposals", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Proposal implements Client with GET /api/proposals/{id}.
func (c *Remote) Proposal(ctx context.Context, id string) (*wire.Proposal, error) {
	var p wire.Proposal
	if err := c.do(ctx, http.MethodGet, "/api/proposals/"+url.PathEscape(id), nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// decide posts a decision on a proposal: verb is approve or reject.
func (c *Remote) decide(ctx context.Context, id, verb, reason string) (*wire.Proposal, error) {
	var out struct {
		Proposal *wire.Proposal `json:"proposal"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/proposals/"+url.PathEscape(id)+"/"+verb, map[string]any{"reason": reason}, &out); err != nil {
		return nil, err
	}
	return out.Proposal, nil
}

// ApproveProposal implements Client with POST /api/proposals/{id}/approve.
func (c *Remote) ApproveProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return c.decide(ctx, id, "approve", reason)
}

// RejectProposal implements Client with POST
// /api/proposals/{id}/reject.
func (c *Remote) RejectProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return c.decide(ctx, id, "reject", reason)
}

// ReopenProposal implements Client with POST /api/proposals/{id}/reopen.
func (c *Remote) ReopenProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	return c.decide(ctx, id, "reopen", reason)
}

// Diagnostics implements Client with GET /api/diagnostics. The API has no
// way to skip the report cache, so a fresh report is asked for once the
// cache has turned over (wire.DiagnosticsTTL after the call began).
func (c *Remote) Diagnostics(ctx context.Context, fresh bool) (*wire.DiagnosticsReport, error) {
	if fresh {
		t := time.NewTimer(wire.DiagnosticsTTL)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	var out wire.DiagnosticsReport
	if err := c.do(ctx, http.MethodGet, "/api/diagnostics", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Maintenance implements Client with GET /api/maintenance: what the
// maintenance worker would do now.
func (c *Remote) Maintenance(ctx context.Context) ([]wire.Recommendation, error) {
	var out struct {
		Recommendations []wire.Recommendation `json:"recommendations"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/maintenance", nil, &out); err != nil {
		return nil, err
	}
	return out.Recommendations, nil
}

// Latency implements Client with GET /api/analytics/latency.
func (c *Remote) Latency(ctx context.Context) (map[string]wire.LatencySummary, error) {
	var out map[string]wire.LatencySummary
	if err := c.do(ctx, http.MethodGet, "/api/analytics/latency", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// LatencySamples implements Client with GET
// /api/analytics/latency/samples for one operation (analytics.LatencyRecall,
// ...).
func (c *Remote) LatencySamples(ctx context.Context, op string) ([]float64, error) {
	var out struct {
		Samples []float64 `json:"samples"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/analytics/latency/samples?op="+url.QueryEscape(op), nil, &out); err != nil {
		return nil, err
	}
	return out.Samples, nil
}

// RecentErrors implements Client with GET /api/analytics/errors.
func (c *Remote) RecentErrors(ctx context.Context, limit int) ([]wire.ErrorEvent, error) {
	var out struct {
		Errors []wire.ErrorEvent `json:"errors"`
	}
	err := c.do(ctx, http.MethodGet, "/api/analytics/errors?limit="+strconv.Itoa(limit), nil, &out)
	return out.Errors, err
}
