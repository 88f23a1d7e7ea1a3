package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	cairn "github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/hooks"

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
	return a.serveWith(ctx, serveOptions{}, ready)
}

// serveOptions tune serve for a server nobody watches (one a hook started).
type serveOptions struct {
	// idleExit stops the server once no request came for this long (0:
	// never).
	idleExit time.Duration
	// lockWait is how long to retry while another process holds the
	// database (a short-lived command, or a server shutting down).
	lockWait time.Duration
}

// serveWith is serve with options.
func (a *app) serveWith(ctx context.Context, opts serveOptions, ready func(addr string)) error {
	st, err := a.openStoreWaiting(ctx, opts.lockWait)
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
	a.ingestSpool(ctx, st.app.Hooks)
	ln, err := a.listen()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle *idleListener
	if opts.idleExit > 0 {
		idle = newIdleListener(ln)
		ln = idle
		go idle.exitWhenIdle(ctx, opts.idleExit, func() {
			a.log.Info("no request for a while: stopping", "idle_exit", opts.idleExit)
			cancel()
		})
	}
	// A hook that found the API not listening yet spooled its write:
	// take such writes in while running, not only at the next start.
	go a.ingestSpoolEvery(ctx, st.app.Hooks, spoolInterval)
	addr := ln.Addr().String()
	if err := st.lock.SetAddr(addr); err != nil {
		a.log.Warn("record address in lock file", "err", err)
	}
	api := httpapi.NewAPI(st.app, cairnVersion(), addr)
	a.log.Info("cairn started", "version", cairnVersion(), "addr", addr, "db", a.paths.Database, "auth", a.cfg.Auth.Mode,
		"pipeline", st.svc.PipelineMode(), "embedding", a.cfg.Embedding.Provider)
	if ready != nil {
		ready(addr)
	}
	err = a.runService(ctx, st.app, func(ctx context.Context) error {
		return api.Serve(ctx, ln, a.cfg.Server.ShutdownTimeout.D())
	})
	a.log.Info("cairn stopping")
	return err
}

// runService runs the API (or the TUI) and the background workers until ctx
// ends or one of them fails, and returns once all have stopped, so the
// caller can close the store after the last write.
func (a *app) runService(ctx context.Context, ap *cairn.App, front func(context.Context) error) error {
	// One P more than the CPUs, for requests as they arrive
	// (core/httpapi/admission.go).
	a.log.Debug("scheduler", "gomaxprocs", httpapi.SpareProc())
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return front(gctx) })
	g.Go(func() error {
		// Load the embedding model and the vector index in the background:
		// the API and the first frame never wait for them.
		if w, ok := ap.Vectors.Embedder().(embedding.Warmer); ok {
			if err := w.Warm(gctx); err != nil && gctx.Err() == nil {
				a.log.Warn("embedding model", "err", err)
			}
		}
		if err := ap.Vectors.WarmVectors(gctx); err != nil && gctx.Err() == nil {
			a.log.Warn("vector index", "err", err)
		}
		return nil
	})
	g.Go(func() error { return workers.Run(gctx, ap, a.log) })
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

// spoolInterval is how often a running server looks for spooled hook
// writes (a hook that found it starting, before it listened).
const spoolInterval = 30 * time.Second

// ingestSpoolEvery ingests the hook spool every interval until ctx ends.
func (a *app) ingestSpoolEvery(ctx context.Context, hk *hooks.Hooks, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			a.ingestSpool(ctx, hk)
		}
	}
}

// openStoreWaiting is openStore retrying for up to wait while another
// process holds the database: a command that opened it for a moment, or a
// server that is shutting down as this one starts.
func (a *app) openStoreWaiting(ctx context.Context, wait time.Duration) (*store, error) {
	deadline := time.Now().Add(wait)
	for {
		st, err := a.openStore(ctx)
		var le *storage.LockedError
		if err == nil || !errors.As(err, &le) || !time.Now().Before(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(lockRetryInterval):
		}
	}
}

// lockRetryInterval is the pause between two tries of a held lock.
const lockRetryInterval = 100 * time.Millisecond

// idleListener tracks the API's connections so a server a hook started can
// stop when nobody has used it for a while: idle means no connection open
// (kept-alive ones close after server.idle_timeout) since the last closed.
type idleListener struct {
	net.Listener
	mu   sync.Mutex
	open int
	last time.Time
}

func newIdleListener(ln net.Listener) *idleListener {
	return &idleListener{Listener: ln, last: time.Now()}
}

func (l *idleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	l.mu.Lock()
	l.open++
	l.last = time.Now()
	l.mu.Unlock()
	return &idleConn{Conn: c, l: l}, nil
}

// idleFor is how long the listener has had no open connection (0 while
// one is open).
func (l *idleListener) idleFor(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open > 0 {
		return 0
	}
	return now.Sub(l.last)
}

// exitWhenIdle calls stop once the listener has been idle for d.
func (l *idleListener) exitWhenIdle(ctx context.Context, d time.Duration, stop func()) {
	for {
		wait := d - l.idleFor(time.Now())
		if wait <= 0 {
			stop()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

type idleConn struct {
	net.Conn
	l    *idleListener
	once sync.Once
}

func (c *idleConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.last = time.Now()
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
