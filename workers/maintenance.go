package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
)

// MaintenanceWorker runs core.Service.RunMaintenance every Interval as
// core.MaintenanceActor, in Mode (observe or execute). A zero Interval or
// an empty Mode takes config.DefaultMaintenanceInterval or
// config.DefaultMaintenanceMode.
type MaintenanceWorker struct {
	Svc        *core.Service
	Ops        *ops.Ops
	Mode       string
	Interval   time.Duration
	FirstDelay time.Duration
	Log        *slog.Logger
	// OnRun, when set, receives every pass (tests use it).
	OnRun func(*ops.MaintenanceRun, error)
}

// RunMaintenance starts the maintenance worker for svc until ctx ends. It
// returns at once unless maintenance.autonomous_enabled is on and
// maintenance.autonomous_frozen is off: autonomy is opt-in.
func RunMaintenance(ctx context.Context, ap *app.App, log *slog.Logger) error {
	log = logOrDiscard(log)
	cfg := ap.Config().Maintenance
	if !cfg.AutonomousEnabled || cfg.AutonomousFrozen {
		log.Info("maintenance worker not started", "autonomous_enabled", cfg.AutonomousEnabled, "autonomous_frozen", cfg.AutonomousFrozen)
		return nil
	}
	w := &MaintenanceWorker{Svc: ap.Service, Ops: ap.Ops, Mode: cfg.Mode, Interval: ap.Ops.MaintenanceInterval(), FirstDelay: time.Minute, Log: log}
	return w.Run(ctx)
}

// Run runs passes until ctx ends; a failed pass is logged, never fatal.
func (w *MaintenanceWorker) Run(ctx context.Context) error {
	defer w.Svc.PipelineRuntime().WorkerRunning(core.WorkerMaintenance)()
	log := logOrDiscard(w.Log)
	mode := w.Mode
	if mode == "" {
		mode = config.DefaultMaintenanceMode
	}
	interval := w.Interval
	if interval <= 0 {
		interval = config.DefaultMaintenanceInterval
	}
	log.Info("maintenance worker started", "mode", mode, "interval", interval)
	every(ctx, w.FirstDelay, interval, func() bool {
		run, err := w.Ops.RunMaintenance(ctx, mode, ops.MaintenanceActor)
		if w.OnRun != nil {
			w.OnRun(run, err)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("maintenance pass failed", "err", err)
		case err == nil:
			log.Info("maintenance pass", "mode", mode, "recommendations", len(run.Recommendations), "executed", len(run.Steps),
				"before", run.Before.Score, "after", run.After.Score)
		}
		return true
	})
	return nil
}
