package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/storage"
)

// JobsPage is the answer of GET /api/jobs: the rows asked for and the
// counts of the whole queue.
type JobsPage struct {
	Jobs []*storage.Job `json:"jobs"`
	// Counts counts jobs by status; ByType by job type, then status.
	Counts map[string]int            `json:"counts"`
	ByType map[string]map[string]int `json:"byType"`
}

// Jobs calls GET /api/jobs.
func (c *Client) Jobs(ctx context.Context, f jobs.Filter, limit int) (*JobsPage, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"status": f.Status, "type": f.JobType, "memory_id": f.MemoryID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out JobsPage
	if err := c.do(ctx, http.MethodGet, withQuery("/api/jobs", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Job calls GET /api/jobs/{id}.
func (c *Client) Job(ctx context.Context, id string) (*storage.Job, error) {
	var j storage.Job
	if err := c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(id), nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// RetryJob calls POST /api/jobs/{id}/retry.
func (c *Client) RetryJob(ctx context.Context, id string) (*storage.Job, error) {
	var out struct {
		Job *storage.Job `json:"job"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(id)+"/retry", map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Job, nil
}

// Repair calls POST /api/repair/{action}. Gate denials (429) and a run
// already in progress (409) come back as *core.Error.
func (c *Client) Repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error) {
	var out ops.RepairResult
	if err := c.do(ctx, http.MethodPost, "/api/repair/"+url.PathEscape(action), opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Proposals calls GET /api/proposals: proposals matching f, newest first.
func (c *Client) Proposals(ctx context.Context, f pipeline.ProposalFilter, limit int) ([]*storage.Proposal, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"state": f.State, "action": f.Action, "source_memory_id": f.SourceMemoryID, "job_id": f.JobID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out struct {
		Proposals []*storage.Proposal `json:"proposals"`
	}
	if err := c.do(ctx, http.MethodGet, withQuery("/api/proposals", q), nil, &out); err != nil {
		return nil, err
	}
	return out.Proposals, nil
}

// Proposal calls GET /api/proposals/{id}.
func (c *Client) Proposal(ctx context.Context, id string) (*storage.Proposal, error) {
	var p storage.Proposal
	if err := c.do(ctx, http.MethodGet, "/api/proposals/"+url.PathEscape(id), nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// decide posts a decision on a proposal: verb is approve or reject.
func (c *Client) decide(ctx context.Context, id, verb, reason string) (*storage.Proposal, error) {
	var out struct {
		Proposal *storage.Proposal `json:"proposal"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/proposals/"+url.PathEscape(id)+"/"+verb, map[string]any{"reason": reason}, &out); err != nil {
		return nil, err
	}
	return out.Proposal, nil
}

// ApproveProposal calls POST /api/proposals/{id}/approve.
func (c *Client) ApproveProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return c.decide(ctx, id, "approve", reason)
}

// RejectProposal calls POST /api/proposals/{id}/reject; reason is
// required.
func (c *Client) RejectProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return c.decide(ctx, id, "reject", reason)
}

// Diagnostics calls GET /api/diagnostics (a cached report; see
// core.DiagnosticsTTL).
func (c *Client) Diagnostics(ctx context.Context) (*ops.DiagnosticsReport, error) {
	var out ops.DiagnosticsReport
	if err := c.do(ctx, http.MethodGet, "/api/diagnostics", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Maintenance calls GET /api/maintenance: what the maintenance worker
// would do now.
func (c *Client) Maintenance(ctx context.Context) ([]ops.Recommendation, error) {
	var out struct {
		Recommendations []ops.Recommendation `json:"recommendations"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/maintenance", nil, &out); err != nil {
		return nil, err
	}
	return out.Recommendations, nil
}

// Latency calls GET /api/analytics/latency: a summary per operation.
func (c *Client) Latency(ctx context.Context) (map[string]analytics.LatencySummary, error) {
	var out map[string]analytics.LatencySummary
	if err := c.do(ctx, http.MethodGet, "/api/analytics/latency", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// LatencySamples calls GET /api/analytics/latency/samples for one
// operation (analytics.LatencyRecall, ...).
func (c *Client) LatencySamples(ctx context.Context, op string) ([]float64, error) {
	var out struct {
		Samples []float64 `json:"samples"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/analytics/latency/samples?op="+url.QueryEscape(op), nil, &out); err != nil {
		return nil, err
	}
	return out.Samples, nil
}

// RecentErrors calls GET /api/analytics/errors.
func (c *Client) RecentErrors(ctx context.Context, limit int) ([]analytics.ErrorEvent, error) {
	var out struct {
		Errors []analytics.ErrorEvent `json:"errors"`
	}
	err := c.do(ctx, http.MethodGet, "/api/analytics/errors?limit="+strconv.Itoa(limit), nil, &out)
	return out.Errors, err
}
