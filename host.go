package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"

	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/httpapi/admission"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers"
	"golang.org/x/sync/errgroup"
)

// Owning the database for the length of a run: the store, the HTTP API,
// the background workers and what the process is for (the terminal UI,
// the MCP server over stdio, or the API alone), started and shut down in
// order by one host, for `cairn`, `cairn serve` and `cairn mcp`.

// hostOptions say what a run of the host serves.
type hostOptions struct {
	// listen binds the API's address once the store is open and the
	// spool ingested. A nil listener with a nil error: no API (the
	// address is taken and the front does without).
	listen func() (net.Listener, error)
	// idleExit stops the run once no request came for this long (0:
	// never): a server nobody watches (one a hook started).
	idleExit time.Duration
	// spoolEvery is how often the hook spool is ingested while the run
	// lasts (0: at the start only).
	spoolEvery time.Duration
	// debug, when set, serves the API's profiler routes (--debug-addr)
	// while the API runs.
	debug net.Listener
	// started is called once the store is ready and the API (if any)
	// listens on addr ("" without an API).
	started func(addr string)
	// front is what the process is for beside the API and the workers;
	// the run ends when it returns. Nil: the API itself, until ctx ends.
	front func(ctx context.Context, addr string) error
	// stopping is called once everything the run started has stopped,
	// before the store closes.
	stopping func()
}

// host runs st until ctx ends or the front returns: it ingests the hook
// spool, serves the API, runs the workers, the warm-up, the periodic
// spool ingest and the idle exit in one errgroup, and shuts down in order:
// stop accepting requests, let in-flight writes finish, stop the workers,
// and only then close the store (checkpointing the WAL) and release the
// lock. With a front, an API that fails is logged and its error returned
// as apiErr beside the run's; it does not end the run.
func (a *app) host(ctx context.Context, st *store, o hostOptions) (runErr, apiErr error) {
	defer func() {
		if err := st.Close(); err != nil {
			a.log.Error("close store", "err", err)
		}
	}()
	a.ingestSpool(ctx, st.app.Hooks)
	ln, err := o.listen()
	if err != nil {
		return err, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One P more than the CPUs, for requests as they arrive
	// (core/httpapi/admission.go).
	a.log.Debug("scheduler", "gomaxprocs", admission.SpareProc())
	go serverGC(ctx)
	g, gctx := errgroup.WithContext(ctx)
	// Before the API answers anything: a search that comes before the
	// indexes are built does not wait for them (see below).
	followVectors := st.app.Vectors.FollowShared() // several servers on PostgreSQL
	warmVectors, warmKeywords := st.app.Vectors.StartWarm(), st.svc.WarmKeywordIndex(gctx)
	g.Go(func() error { followVectors(gctx); return nil })
	var api *httpapi.API
	addr := ""
	if ln != nil {
		if o.idleExit > 0 {
			idle := newIdleListener(ln)
			ln = idle
			g.Go(func() error {
				idle.exitWhenIdle(gctx, o.idleExit, func() {
					a.log.Info("no request for a while: stopping", "idle_exit", o.idleExit)
					cancel()
				})
				return nil
			})
		}
		addr = ln.Addr().String()
		// PostgreSQL has no lock file: several servers share the database.
		if st.lock != nil {
			if err := st.lock.SetAddr(addr); err != nil {
				a.log.Warn("record address in lock file", "err", err)
			}
		}

		api = httpapi.NewAPI(st.app, cairnVersion(), addr)
	}
	if o.debug != nil && api != nil {
		g.Go(func() error { return serveDebug(gctx, o.debug, api.DebugHandler(), a.log) })
	}
	if o.spoolEvery > 0 {
		// A hook that found the API not listening yet spooled its write:
		// take such writes in while running, not only at the next start.
		g.Go(func() error { a.ingestSpoolEvery(gctx, st.app.Hooks, o.spoolEvery); return nil })
	}
	if o.started != nil {
		o.started(addr)
	}
	serveAPI := func(ctx context.Context) error { return api.Serve(ctx, ln, a.cfg.Server.ShutdownTimeout.D()) }
	if o.front == nil {
		g.Go(func() error { return serveAPI(gctx) })
	} else {
		if api != nil {
			g.Go(func() error {
				if apiErr = serveAPI(gctx); apiErr != nil {
					a.log.Error("API server", "err", apiErr)
				}
				return nil
			})
		}
		g.Go(func() error {
			defer cancel() // the front ended: so does the run
			return o.front(gctx, addr)
		})
	}
	// Build the keyword index and load the embedding model and the vector
	// index in the background: the API and the first frame never wait for
	// them (searches meanwhile are answered by FTS5, and from keywords).
	g.Go(func() error {
		if err := warmVectors(gctx); err != nil && gctx.Err() == nil {
			a.log.Warn("warming vectors", "err", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := warmKeywords(gctx); err != nil && gctx.Err() == nil {
			a.log.Warn("keyword index", "err", err)
		}
		return nil
	})
	g.Go(func() error { return workers.Run(gctx, st.app, a.log) })
	runErr = g.Wait()
	if o.stopping != nil {
		o.stopping()
	}
	return runErr, apiErr
}

// serve is the host with the API alone in front: `cairn serve`, and `cairn`
// without a terminal. ready is called once the API listens.
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
	// debug serves the profiler (--debug-addr); serveWith closes it.
	debug net.Listener
}

// serveWith is serve with options.
func (a *app) serveWith(ctx context.Context, opts serveOptions, ready func(addr string)) error {
	if opts.debug != nil {
		defer opts.debug.Close()
	}
	// A damaged file is found after the start rather than before it: it
	// faults the store (writes refused, /health unhealthy) a moment later.
	a.checkLater = true
	st, err := a.openStoreWaiting(ctx, opts.lockWait)
	if err != nil {
		var le *storage.LockedError
		if errors.As(err, &le) {
			return fmt.Errorf("%w; use that instance (its API answers `cairn remember`, `cairn recall`, ...) or stop it first", le)
		}
		return err
	}
	err, _ = a.host(ctx, st, hostOptions{
		listen:     a.listen,
		idleExit:   opts.idleExit,
		spoolEvery: spoolInterval,
		debug:      opts.debug,
		started: func(addr string) {
			a.log.Info("cairn started", "version", cairnVersion(), "addr", addr, "db", a.paths.Database, "auth", a.cfg.Auth.Mode,
				"pipeline", st.svc.PipelineMode(), "embedding", a.cfg.Embedding.Provider)
			if ready != nil {
				ready(addr)
			}
		},
		stopping: func() { a.log.Info("cairn stopping") },
	})
	return err
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

// The garbage collector of a serving process. Go's default (GOGC=100)
// lets the heap grow to twice what is live before collecting; most of a
// server's live heap is its indexes, which live as long as it does (about
// 130 MB at 100k memories), so that headroom was most of its RSS: 320 MB
// at 100k. Collecting at 25% over the live heap holds 220 MB there with
// no change in recall's CPU or latency, but costs a small store's ingest
// about 8% more CPU per memory (its heap is small and collected often).
// So the target follows the live heap: GOGC=100 while it is under 32 MiB,
// shrinking toward 25 above (a constant 32 MiB of headroom), read again
// every 2 s. A GOGC the user set is left alone.

const (
	gcHeadroom  = 32 << 20
	gcMinTarget = 25
	gcEvery     = 2 * time.Second
)

// gcPercentFor is the GC target for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(max(gcMinTarget, min(100, 100*gcHeadroom/live)))
}

// serverGC keeps the serving process's GC target (see above) until ctx
// ends; it returns at once when GOGC is set.
func serverGC(ctx context.Context) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(gcEvery)
	defer t.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetGCPercent(gcPercentFor(sample[0].Value.Uint64()))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
