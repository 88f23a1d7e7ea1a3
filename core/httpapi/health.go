package httpapi

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/storage"
)

// /health answers in a few milliseconds whatever the load: hooks give it
// two seconds, and under fifty clients a diagnostics pass through the
// reader pool took longer. It runs no query: what it reports comes from
//
//   - a snapshot of the counts and the health score, refreshed in the
//     background: when a /health finds it older than healthRefreshEvery,
//     and every healthTickEvery while the API is served (so an idle
//     cairn does not run diagnostics every two seconds for nobody);
//   - the store's fault state: the last fault a read or write met (a full
//     disk, an I/O error, a damaged or read-only file), cleared by the next
//     commit except damage;
//   - the writer's liveness: how long the write transaction in progress
//     has held the writer.
//
// status is healthy, degraded (a writer stuck in one transaction, a
// snapshot that cannot be refreshed) or unhealthy (a storage fault, which
// is also answered 503 with its code).
const (
	healthRefreshEvery = 2 * time.Second
	healthTickEvery    = 30 * time.Second
	// healthRefreshTimeout bounds one background refresh.
	healthRefreshTimeout = 30 * time.Second
	// writerStuckAfter: a write transaction held this long is reported.
	writerStuckAfter = 30 * time.Second
)

type healthCache struct {
	wg      sync.WaitGroup // refreshes in flight (Wait)
	mu      sync.Mutex
	at      time.Time      // when the snapshot was taken; zero before the first
	snap    map[string]any // counts and health
	err     error          // the last refresh's failure
	running atomic.Bool
}

func (c *healthCache) get() (map[string]any, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap, c.at, c.err
}

// refreshHealth takes a new snapshot unless one is being taken.
func (a *API) refreshHealth(ctx context.Context) {
	if !a.hc.running.CompareAndSwap(false, true) {
		return
	}
	defer a.hc.running.Store(false)
	// The snapshot reads on the store's background connection: under load
	// it neither waits for the requests' pool nor takes from it.
	ctx, cancel := context.WithTimeout(storage.BackgroundReads(ctx), healthRefreshTimeout)
	defer cancel()
	m, err := a.measure(ctx)
	if err != nil {
		a.svc.DB().NoteFault(err)
	}
	a.hc.mu.Lock()
	defer a.hc.mu.Unlock()
	a.hc.snap, a.hc.at, a.hc.err = m, time.Now(), err
}

// Wait returns once no health refresh started by a request is running:
// the store may be closed after it (Serve calls it on shutdown).
func (a *API) Wait() { a.hc.wg.Wait() }

// runHealth refreshes the snapshot until ctx ends.
func (a *API) runHealth(ctx context.Context) {
	t := time.NewTicker(healthTickEvery)
	defer t.Stop()
	for {
		a.refreshHealth(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// healthPattern is /health's route (routes.go), the name its requests are
// counted under.
const healthPattern = "GET /health"

// isHealthCheck reports whether r is a health check Handler answers
// first: GET (or HEAD) /health.
func isHealthCheck(r *http.Request) bool {
	return r.URL.Path == "/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}

// serveHealth answers a health check ahead of the API's middleware, with
// only what /health needs: its request id, the browser guard (a page must
// not read what cairn is, as on every route), the answer, and its count in
// the usage analytics. It skips what every other request goes through and
// /health has no use for: routing twice, the auth gate (/health is public),
// admission (it never waits), the foreground mark (a health poller must not
// hold back the background work) and the panic and log wrappers.
func (a *API) serveHealth(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID := firstHeader(r, "X-Request-Id", "X-Cairn-Request-Id", "X-Signet-Request-Id")
	if reqID == "" {
		reqID = core.NewID()
	}
	w.Header().Set("X-Request-Id", reqID)
	status := http.StatusOK
	if refusal, handled := a.guard.check(w, r); refusal != nil {
		a.log.Warn("refused browser request", "code", refusal.Code, "method", r.Method, "path", r.URL.Path,
			"host", r.Host, "origin", r.Header.Get("Origin"), "request_id", reqID)
		writeError(w, refusal)
		status = StatusOf(refusal.Code)
	} else if !handled {
		status = a.answerHealth(w)
	}
	a.recordRequest(r, healthPattern, &statusWriter{status: status}, start)
}

// health is /health's handler in the route table; Handler answers GET
// /health before routing (serveHealth), so this serves only callers of the
// mux itself.
func (a *API) health(w http.ResponseWriter, r *http.Request) { a.answerHealth(w) }

// answerHealth writes the health answer and returns its status.
func (a *API) answerHealth(w http.ResponseWriter) int {
	snap, at, snapErr := a.hc.get()
	if at.IsZero() || time.Since(at) > healthRefreshEvery {
		a.hc.wg.Go(func() { a.refreshHealth(context.Background()) })
	}
	out := a.identity()
	for k, v := range snap {
		out[k] = v
	}
	if _, ok := out["health"]; !ok {
		out["health"] = ops.HealthScore{Status: "unknown"}
	}
	db := a.svc.DB()
	status, httpStatus := "healthy", http.StatusOK
	var problem *core.Error
	storageState := map[string]any{"ok": true}
	if !at.IsZero() {
		storageState["snapshotAt"] = storage.FormatTime(at)
	}
	if c := db.LastCommit(); !c.IsZero() {
		storageState["lastCommitAt"] = storage.FormatTime(c)
	}
	if f, ok := db.LastFault(); ok {
		status, httpStatus = "unhealthy", http.StatusServiceUnavailable
		problem = core.StorageFaultError(f.Fault)
		storageState["ok"], storageState["fault"], storageState["faultAt"] = false, problem.Code, storage.FormatTime(f.At)
		storageState["detail"] = f.Message
	} else if busy := db.WriterBusy(); busy > writerStuckAfter {
		status = "degraded"
		storageState["writerBusySeconds"] = int(busy.Seconds())
	} else if snapErr != nil {
		status = "degraded"
		storageState["snapshotError"] = snapErr.Error()
	}
	if a.svc.Config().Auth.Mode != "" && a.svc.Config().Auth.Mode != auth.ModeLocal {
		// /health answers without a token: off a local-only setup it says
		// whether cairn is up and well, not what it holds.
		out = map[string]any{"authMode": out["authMode"], "health": out["health"], "startedAt": out["startedAt"]}
		delete(storageState, "detail")
		delete(storageState, "snapshotError")
	}
	for k, v := range map[string]any{
		"status":  status,
		"uptime":  time.Since(a.started).Seconds(),
		"pid":     os.Getpid(),
		"version": a.version,
		"addr":    a.addr,
		"db":      problem == nil,
		"storage": storageState,
	} {
		out[k] = v
	}
	if problem != nil {
		out["error"], out["code"] = problem.Message, problem.Code
	}
	writeJSON(w, httpStatus, out)
	return httpStatus
}
