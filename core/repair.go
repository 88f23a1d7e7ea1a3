package core

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cairnmem/cairn/storage"
)

// Repair action names, as used in POST /api/repair/{action}.
const (
	RepairRequeueDead   = "requeue-dead"
	RepairReleaseLeases = "release-leases"
)

// RepairOptions tune one repair run. Zero values take each action's
// defaults.
type RepairOptions struct {
	// BatchSize caps the rows one run touches.
	BatchSize int `json:"batchSize,omitempty"`
	// DryRun reports what would change without writing.
	DryRun bool `json:"dryRun,omitempty"`
	// Repair applies a fix where the action is a check (check-fts).
	Repair bool `json:"repair,omitempty"`
	// JobID restricts requeue-dead to one job.
	JobID string `json:"jobId,omitempty"`
	// Reason is recorded in the audit event; default "manual repair".
	Reason string `json:"reason,omitempty"`
}

// RepairResult is what every repair returns.
type RepairResult struct {
	Action   string `json:"action"`
	Success  bool   `json:"success"`
	Affected int    `json:"affected"`
	Message  string `json:"message"`
	DryRun   bool   `json:"dryRun,omitempty"`
}

// RepairInfo describes one repair action for menus and help.
type RepairInfo struct {
	Action      string `json:"action"`
	Title       string `json:"title"`
	Destructive bool   `json:"destructive"` // deletes or rewrites rows: ask before running
}

// Repair runs one repair action as actor and audits it in history
// (memory_id "system", event "none").
func (s *Service) Repair(ctx context.Context, action string, actor Actor, opts RepairOptions) (*RepairResult, error) {
	actor = actor.normalized()
	var res *RepairResult
	var err error
	switch action {
	case RepairRequeueDead:
		res, err = s.repairRequeueDead(ctx, opts)
	case RepairReleaseLeases:
		res, err = s.repairReleaseLeases(ctx, opts)
	default:
		return nil, &Error{Status: http.StatusNotFound, Code: "unknown_repair", Message: fmt.Sprintf("unknown repair action %q", action),
			Extra: map[string]any{"field": "action"}}
	}
	if err != nil {
		return nil, err
	}
	if !opts.DryRun {
		if err := s.auditRepair(ctx, res, actor, opts.Reason); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (s *Service) auditRepair(ctx context.Context, res *RepairResult, actor Actor, reason string) error {
	if reason == "" {
		reason = "manual repair"
	}
	return s.db.WriteTx(ctx, func(tx *storage.Tx) error {
		return s.addHistory(ctx, tx, "system", storage.EventNone, nil, nil, actor, reason,
			map[string]any{"repairAction": res.Action, "affected": res.Affected, "message": res.Message, "success": res.Success})
	})
}

func (s *Service) repairRequeueDead(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	limit := opts.BatchSize
	if limit <= 0 {
		limit = 50
	}
	res := &RepairResult{Action: RepairRequeueDead, Success: true, DryRun: opts.DryRun}
	if opts.DryRun {
		jobs, err := storage.ListJobs(ctx, s.db.Reader(), storage.JobFilter{Status: storage.JobDead}, limit)
		if err != nil {
			return nil, err
		}
		res.Affected = len(jobs)
		res.Message = fmt.Sprintf("would requeue %d dead jobs", res.Affected)
		return res, nil
	}
	var n int64
	err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		n, err = storage.RequeueDeadJobs(ctx, tx, opts.JobID, limit, s.timestamp())
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Affected = int(n)
	res.Message = fmt.Sprintf("requeued %d dead jobs", n)
	return res, nil
}

func (s *Service) repairReleaseLeases(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairReleaseLeases, Success: true, DryRun: opts.DryRun}
	if opts.DryRun {
		cutoff := storage.FormatTime(s.now().Add(-s.cfg.PipelineV2.LeaseTimeout.D()))
		var n int
		if err := s.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM memory_jobs WHERE status = 'leased' AND leased_at < ?`, cutoff).Scan(&n); err != nil {
			return nil, err
		}
		res.Affected = n
		res.Message = fmt.Sprintf("would release %d stale leases", n)
		return res, nil
	}
	reaped, dead, err := s.ReapStaleLeases(ctx)
	if err != nil {
		return nil, err
	}
	res.Affected = int(reaped + dead)
	res.Message = fmt.Sprintf("released %d stale leases (%d returned to the queue, %d out of attempts and dead)", reaped+dead, reaped, dead)
	return res, nil
}
