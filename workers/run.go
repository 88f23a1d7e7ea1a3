package workers

import (
	"context"
	"log/slog"

	"github.com/cairnmem/cairn/core/app"
	"golang.org/x/sync/errgroup"
)

// Run runs every background worker of ap until ctx ends and returns once
// all have stopped: the embedding tracker, the extraction pipeline,
// retention, document ingest, maintenance, the learned ranker's training
// and the connectors' polling. A worker whose feature is off returns at
// once; the first worker that fails cancels the others.
func Run(ctx context.Context, ap *app.App, log *slog.Logger) error {
	cfg := ap.Config()
	g, gctx := errgroup.WithContext(ctx)
	tracker := &EmbeddingTracker{Svc: ap.Service, Vectors: ap.Vectors, Interval: cfg.Embedding.TrackerInterval.D(),
		Batch: cfg.Embedding.TrackerBatch, Log: log}
	g.Go(func() error { return tracker.Run(gctx) })
	g.Go(func() error { return RunPipeline(gctx, ap, log) })
	g.Go(func() error { return RunRetention(gctx, ap, log) })
	g.Go(func() error { return RunDocuments(gctx, ap, log) })
	g.Go(func() error { return RunMaintenance(gctx, ap, log) })
	g.Go(func() error { return RunPredictor(gctx, ap, log) })
	g.Go(func() error { return RunConnectors(gctx, ap, log) })
	return g.Wait()
}
