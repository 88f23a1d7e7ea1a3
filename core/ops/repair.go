package ops

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/wire"

	"github.com/cairnmem/cairn/storage"
)

// Repair action names, as used in POST /api/repair/{action}.
const (
	RepairRequeueDead    = wire.RepairRequeueDead
	RepairReleaseLeases  = wire.RepairReleaseLeases
	RepairCheckFTS       = wire.RepairCheckFTS
	RepairRetentionSweep = wire.RepairRetentionSweep
	RepairReEmbed        = wire.RepairReEmbed
	RepairCleanOrphans   = wire.RepairCleanOrphans
	RepairDeduplicate    = wire.RepairDeduplicate
)

// MaxRepairBatch bounds RepairOptions.BatchSize.
const MaxRepairBatch = 10000

// RepairActions lists every repair for menus and help, in the order a
// menu shows them (wire.RepairActions).
func RepairActions() []RepairInfo { return wire.RepairActions() }

func KnownRepair(action string) bool {
	switch action {
	case RepairRequeueDead, RepairReleaseLeases, RepairCheckFTS, RepairRetentionSweep, RepairReEmbed, RepairCleanOrphans, RepairDeduplicate:
		return true
	}
	return false
}

// The repair types are the API's (core/wire).
type (
	// RepairOptions tune one repair run. Zero values take each action's
	// defaults.
	RepairOptions = wire.RepairOptions
	// RepairResult is what every repair returns.
	RepairResult = wire.RepairResult
	// RepairInfo describes one repair action for menus and help.
	RepairInfo = wire.RepairInfo
)

// Repair runs one repair action as actor and audits it in history
// (memory_id "system", event "none"); dry runs are not audited. It is the
// one entry point of the API, the TUI and the maintenance worker
// (Actor{Type: ActorDaemon}). Before running it applies the policy gate
// (checkRepairPolicy), single flight per action (409 repair_in_progress)
// and, for agent callers, the limiter (limitRepair).
//
// A result with Success false means the action ran but could not do its
// job (no embedder, a mismatch found but not repaired); an error means it
// did not run or failed.
func (s *Ops) Repair(ctx context.Context, action string, actor core.Actor, opts RepairOptions) (*RepairResult, error) {
	actor = actor.Normalized()
	if !KnownRepair(action) {
		return nil, &core.Error{Code: CodeUnknownRepair, Message: fmt.Sprintf("unknown repair action %q", action),
			Extra: map[string]any{"field": "action"}}
	}
	if opts.BatchSize < 0 || opts.BatchSize > MaxRepairBatch {
		return nil, core.Invalid("batchSize", "batchSize must be between 1 and %d", MaxRepairBatch)
	}
	if opts.JobID != "" && action != RepairRequeueDead {
		return nil, core.Invalid("jobId", "jobId only applies to %s", RepairRequeueDead)
	}
	if err := s.checkRepairPolicy(action, actor); err != nil {
		return nil, err
	}
	release, err := s.repair.acquire(action)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := s.limitRepair(action, actor); err != nil {
		return nil, err
	}
	var res *RepairResult
	switch action {
	case RepairRequeueDead:
		res, err = s.repairRequeueDead(ctx, opts)
	case RepairReleaseLeases:
		res, err = s.repairReleaseLeases(ctx, opts)
	case RepairCheckFTS:
		res, err = s.repairCheckFTS(ctx, opts)
	case RepairRetentionSweep:
		res, err = s.repairRetentionSweep(ctx, opts)
	case RepairReEmbed:
		res, err = s.repairReEmbed(ctx, opts)
	case RepairCleanOrphans:
		res, err = s.repairCleanOrphans(ctx, opts)
	case RepairDeduplicate:
		res, err = s.repairDeduplicate(ctx, actor, opts)
	}
	if err != nil {
		return nil, err
	}
	if !opts.DryRun {
		s.forgetDedupStats() // rows may have merged or gone
		if err := s.auditRepair(ctx, res, actor, opts.Reason); err != nil {
			return res, err
		}
	}
	return res, nil
}

// AuditRepair records res in history as actor's (memory_id "system",
// event "none"), as every repair is; the retention worker records its
// scheduled sweeps with it.
func (s *Ops) AuditRepair(ctx context.Context, res *RepairResult, actor core.Actor, reason string) error {
	return s.auditRepair(ctx, res, actor.Normalized(), reason)
}

func (s *Ops) auditRepair(ctx context.Context, res *RepairResult, actor core.Actor, reason string) error {
	if reason == "" {
		reason = "manual repair"
	}
	return s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		return s.svc.AddHistory(ctx, tx, "system", storage.EventNone, nil, nil, actor, reason,
			map[string]any{"repairAction": res.Action, "affected": res.Affected, "message": res.Message, "success": res.Success})
	})
}

func (s *Ops) repairRequeueDead(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	limit := opts.BatchSize
	if limit <= 0 {
		limit = 50
	}
	res := &RepairResult{Action: RepairRequeueDead, Success: true, DryRun: opts.DryRun}
	if opts.DryRun {
		jobs, err := storage.ListJobs(ctx, s.svc.DB().Reader(), storage.JobFilter{Status: storage.JobDead}, limit)
		if err != nil {
			return nil, err
		}
		res.Affected = len(jobs)
		res.Message = fmt.Sprintf("would requeue %d dead jobs", res.Affected)
		return res, nil
	}
	var n int64
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		n, err = storage.RequeueDeadJobs(ctx, tx, opts.JobID, limit, s.svc.Timestamp())
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Affected = int(n)
	res.Message = fmt.Sprintf("requeued %d dead jobs", n)
	return res, nil
}

func (s *Ops) repairReleaseLeases(ctx context.Context, opts RepairOptions) (*RepairResult, error) {
	res := &RepairResult{Action: RepairReleaseLeases, Success: true, DryRun: opts.DryRun}
	if opts.DryRun {
		cutoff := storage.FormatTime(s.svc.Now().Add(-s.svc.Config().PipelineV2.LeaseTimeout.D()))
		n, err := storage.CountStaleLeases(ctx, s.svc.DB().Reader(), cutoff)
		if err != nil {
			return nil, err
		}
		res.Affected = n
		res.Message = fmt.Sprintf("would release %d stale leases", n)
		return res, nil
	}
	reaped, dead, err := s.jobs.ReapStaleLeases(ctx)
	if err != nil {
		return nil, err
	}
	res.Affected = int(reaped + dead)
	res.Message = fmt.Sprintf("released %d stale leases (%d returned to the queue, %d out of attempts and dead)", reaped+dead, reaped, dead)
	return res, nil
}
