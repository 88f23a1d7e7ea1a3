package workers

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
)

// RetentionWorker runs a retention sweep (core.Service.RetentionSweep) every
// Interval (zero means config.DefaultRetentionInterval), the first one
// FirstDelay after start, and logs each report.
type RetentionWorker struct {
	Svc        *core.Service
	Ops        *ops.Ops
	Interval   time.Duration
	FirstDelay time.Duration
	Log        *slog.Logger
	// OnSweep, when set, receives every report (tests use it).
	OnSweep func(*ops.RetentionReport, error)
}

// RetentionActor is who the scheduled sweeps are recorded as.
var RetentionActor = core.Actor{Name: "retention-worker", Type: core.ActorDaemon}

// retentionFirstDelay lets startup (spool ingest, index warm-up) finish
// before the first sweep.
const retentionFirstDelay = 30 * time.Second

// RunRetention starts the retention worker for svc until ctx ends; it
// returns at once when retention.enabled is false.
func RunRetention(ctx context.Context, ap *app.App, log *slog.Logger) error {
	cfg := ap.Config().Retention
	log = logOrDiscard(log)
	if !cfg.Enabled {
		log.Info("retention worker disabled")
		return nil
	}
	w := &RetentionWorker{Svc: ap.Service, Ops: ap.Ops, Interval: cfg.Interval.D(), FirstDelay: retentionFirstDelay, Log: log}
	return w.Run(ctx)
}

// Run sweeps until ctx ends. A failed sweep is logged and retried at the
// next interval; it never stops the worker.
func (w *RetentionWorker) Run(ctx context.Context) error {
	defer w.Svc.PipelineRuntime().WorkerRunning(core.WorkerRetention)()
	log := logOrDiscard(w.Log)
	interval := w.Interval
	if interval <= 0 {
		interval = config.DefaultRetentionInterval
	}
	every(ctx, w.FirstDelay, interval, func() bool {
		rep, err := w.Ops.RetentionSweep(ctx)
		switch {
		case ctx.Err() != nil:
			return false
		case errors.Is(err, &core.Error{Code: ops.CodeRepairInProgress}):
			log.Info("retention sweep skipped: a retention-sweep repair is running")
		case err != nil:
			log.Error("retention sweep failed", "err", err)
		default:
			log.Info("retention sweep", "graph_links", rep.GraphLinks, "entities", rep.GraphEntities, "relations", rep.GraphRelations,
				"embeddings", rep.Embeddings, "tombstones", rep.Tombstones, "history", rep.History,
				"completed_jobs", rep.CompletedJobs, "dead_jobs", rep.DeadJobs, "capped", rep.Capped, "ms", rep.DurationMs)
			if rep.Total() > 0 {
				// What the worker purged is in the audit trail, like a repair's.
				res := &ops.RepairResult{Action: ops.RepairRetentionSweep, Success: true, Affected: int(rep.Total()), Message: "removed " + rep.String()}
				if err := w.Ops.AuditRepair(ctx, res, RetentionActor, "scheduled retention sweep"); err != nil && ctx.Err() == nil {
					log.Warn("retention sweep not audited", "err", err)
				}
			}
		}
		if w.OnSweep != nil {
			w.OnSweep(rep, err)
		}
		return true
	})
	return nil
}
