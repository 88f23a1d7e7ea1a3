package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"github.com/cairnmem/cairn/workers/embedding"
	"golang.org/x/sync/errgroup"
)

// Starting and stopping the process that owns the database: the API on
// its address and the background workers, shut down in order.

// serve opens the store, serves the API until ctx ends and shuts down in
// order: stop accepting requests, let in-flight writes finish, checkpoint
// the WAL, release the lock. ready is called once the API listens.
func (a *app) serve(ctx context.Context, ready func(addr string)) error {
	st, err := a.openStore(ctx)
	if err != nil {
		var le *storage.LockedError
		if errors.As(err, &le) {
			return fmt.Errorf("%w; use that instance (its API answers `cairn remember`, `cairn recall`, ...) or stop it first", le)
		}
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			a.log.Error("close store", "err", err)
		}
	}()
	a.ingestSpool(ctx, st.svc)
	ln, err := a.listen()
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	if err := st.lock.SetAddr(addr); err != nil {
		a.log.Warn("record address in lock file", "err", err)
	}
	api := httpapi.NewAPI(st.svc, cairnVersion(), addr)
	a.log.Info("cairn started", "version", cairnVersion(), "addr", addr, "db", a.paths.Database, "auth", a.cfg.Auth.Mode,
		"pipeline", st.svc.PipelineMode(), "embedding", a.cfg.Embedding.Provider)
	if ready != nil {
		ready(addr)
	}
	err = a.runService(ctx, st.svc, func(ctx context.Context) error {
		return api.Serve(ctx, ln, a.cfg.Server.ShutdownTimeout.D())
	})
	a.log.Info("cairn stopping")
	return err
}

// runService runs the API (or the TUI) and the background workers until ctx
// ends or one of them fails, and returns once all have stopped, so the
// caller can close the store after the last write.
func (a *app) runService(ctx context.Context, svc *core.Service, front func(context.Context) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return front(gctx) })
	g.Go(func() error {
		// Load the embedding model and the vector index in the background:
		// the API and the first frame never wait for them.
		if w, ok := svc.Vectors().Embedder().(embedding.Warmer); ok {
			if err := w.Warm(gctx); err != nil && gctx.Err() == nil {
				a.log.Warn("embedding model", "err", err)
			}
		}
		if err := svc.Vectors().WarmVectors(gctx); err != nil && gctx.Err() == nil {
			a.log.Warn("vector index", "err", err)
		}
		return nil
	})
	tracker := &workers.EmbeddingTracker{Svc: svc, Interval: a.cfg.Embedding.TrackerInterval.D(),
		Batch: a.cfg.Embedding.TrackerBatch, Log: a.log}
	g.Go(func() error { return tracker.Run(gctx) })
	g.Go(func() error { return workers.RunPipeline(gctx, svc, a.log) })
	g.Go(func() error { return workers.RunRetention(gctx, svc, a.log) })
	g.Go(func() error { return workers.RunDocuments(gctx, svc, a.log) })
	g.Go(func() error { return workers.RunMaintenance(gctx, svc, a.log) })
	g.Go(func() error { return workers.RunConnectors(gctx, svc, a.log) })
	return g.Wait()
}

// listen binds the API address, explaining the usual failure.
func (a *app) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", a.cfg.Server.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%s is already in use by another program; stop it or choose another address with --addr or CAIRN_ADDR", a.cfg.Server.Addr)
		}
		return nil, fmt.Errorf("listen on %s: %w", a.cfg.Server.Addr, err)
	}
	return ln, nil
}
