package workers

import (
	"context"
	"log/slog"

	"github.com/cairnmem/cairn/core/app"
)

// WorkerPredictor is the learned ranker's training worker.
const WorkerPredictor = "predictor"

// RunPredictor trains the learned ranker (core/ranker: Predictor.Train)
// every predictor.interval until ctx ends; it returns at once when
// predictor.enabled is off. A failed pass is logged and retried at the
// next interval.
func RunPredictor(ctx context.Context, ap *app.App, log *slog.Logger) error {
	log = logOrDiscard(log)
	svc := ap.Service
	cfg := svc.Config().Predictor
	if !cfg.Enabled {
		log.Info("predictor worker disabled")
		return nil
	}
	defer svc.PipelineRuntime().WorkerRunning(WorkerPredictor)()
	every(ctx, cfg.Interval.D(), cfg.Interval.D(), func() bool {
		st, err := ap.Predictor.Train(ctx)
		switch {
		case ctx.Err() != nil:
			return false
		case err != nil:
			log.Warn("predictor pass failed", "err", err)
		case st != nil:
			log.Debug("predictor pass", "active", st.Active, "trained_sessions", st.TrainedSessions, "moving_sessions", st.Moving.Sessions)
		}
		return true
	})
	return nil
}
