package workers

import (
	"context"
	"log/slog"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// RunConnectors keeps the connectors in step while cairn runs: at start it
// gives every folder of connectors.roots a connector and returns
// connectors a stopped process left syncing to idle; then it syncs each
// connector every connectors.poll_interval. Polling, not file-system
// notifications: it needs no platform-specific watcher, works on network
// and container mounts where notifications are missing, and a pass over
// an unchanged folder only stats its files (no file is read unless its
// size or modification time changed).
func RunConnectors(ctx context.Context, ap *app.App, log *slog.Logger) error {
	log = logOrDiscard(log)
	svc, reg := ap.Service, ap.Connectors
	if err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		return connstore.ResetSyncingConnectors(ctx, tx, svc.Timestamp())
	}); err != nil && ctx.Err() == nil {
		log.Warn("connectors: reset syncing", "err", err)
	}
	for _, err := range reg.EnsureRoots(ctx) {
		log.Warn("connectors", "err", err)
	}
	poll := svc.Config().Connectors.PollInterval.D()
	if poll <= 0 {
		poll = config.DefaultConnectorsPollInterval
	}
	every(ctx, 0, poll, func() bool {
		list, err := reg.List(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("connectors: list", "err", err)
			}
			return ctx.Err() == nil
		}
		for _, c := range list {
			if svc.MutationsFrozen() {
				return true
			}
			res, err := reg.BackgroundSync(ctx, c.ID)
			switch {
			case ctx.Err() != nil:
				return false
			case err != nil:
				log.Warn("connector sync failed", "connector", c.DisplayName, "err", err)
			case res.Added+res.Changed+res.Removed > 0:
				log.Info("connector synced", "connector", c.DisplayName, "added", res.Added, "changed", res.Changed,
					"removed", res.Removed, "ms", res.TookMS)
			}
		}
		return true
	})
	return nil
}
