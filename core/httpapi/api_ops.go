package httpapi

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/storage"
)

// recordRequest counts a served request under its route pattern and actor
// (the token's subject when auth is on: the gate rewrites the header), and
// puts server errors in the error ring.
func (a *API) recordRequest(r *http.Request, pattern string, rw *statusWriter, start time.Time) {
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	actor := firstHeader(r, "X-Cairn-Actor", "X-Signet-Actor")
	if actor == "" {
		actor = "api"
	}
	an := a.svc.Analytics()
	an.RecordRequest(pattern, actor, status, time.Since(start))
	if status >= 500 {
		an.RecordError(analytics.ErrorEvent{Stage: analytics.StageAPI, Code: analytics.CodeAPIServerError,
			Message:   http.StatusText(status) + " on " + firstNonEmpty(pattern, r.Method+" "+r.URL.Path),
			RequestID: r.Header.Get("X-Request-Id"), Actor: actor})
	}
}

func (a *API) diagnostics(w http.ResponseWriter, r *http.Request) {
	rep, err := a.app.Ops.Diagnostics(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (a *API) diagnosticsDomain(w http.ResponseWriter, r *http.Request) {
	d, err := a.app.Ops.DiagnosticsDomain(r.Context(), r.PathValue("domain"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (a *API) analyticsUsage(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.svc.Analytics().Usage())
}

func (a *API) analyticsErrors(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var f analytics.ErrorFilter
	if st := strings.TrimSpace(q.Get("stage")); st != "" {
		if !analytics.ValidErrorStage(st) {
			writeError(w, core.Invalid("stage", "stage must be one of %s", strings.Join(analytics.ErrorStages, ", ")))
			return
		}
		f.Stage = st
	}
	if s := strings.TrimSpace(q.Get("since")); s != "" {
		t, e := parseTimeParam("since", s, false)
		if e != nil {
			writeError(w, e)
			return
		}
		if t != "" {
			pt, err := storage.ParseTime(t)
			if err != nil {
				writeError(w, core.Invalid("since", "since must be an RFC 3339 time or a date"))
				return
			}
			f.Since = pt
		}
	}
	limit, e := queryInt(r, "limit", 50, 1, analytics.ErrorRingSize)
	if e != nil {
		writeError(w, e)
		return
	}
	f.Limit = limit
	errs, summary := a.svc.Analytics().Errors(f)
	writeJSON(w, http.StatusOK, map[string]any{"errors": errs, "summary": summary, "count": len(errs)})
}

func (a *API) analyticsLatency(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.svc.Analytics().LatencyAll())
}

// analyticsLatencySamples serves GET /api/analytics/latency/samples?op=:
// the op's recent latencies in milliseconds, oldest first (a sparkline's
// data).
func (a *API) analyticsLatencySamples(w http.ResponseWriter, r *http.Request) {
	op := r.URL.Query().Get("op")
	if !slices.Contains(analytics.LatencyOps, op) {
		writeError(w, core.Invalid("op", "op must be one of %s", strings.Join(analytics.LatencyOps, ", ")))
		return
	}
	samples := a.svc.Analytics().LatencySamples(op)
	if samples == nil {
		samples = []float64{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"op": op, "samples": samples})
}

// overview is what /health and /api/status share: identity, modes,
// providers, cheap indexed counts and the cached health score. /api/status
// measures it now; /health answers from a snapshot (health.go).
func (a *API) overview(r *http.Request) map[string]any {
	out := a.identity()
	m, err := a.measure(r.Context())
	if err != nil {
		a.svc.DB().NoteFault(err)
	}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// identity is the part of the overview that needs no query.
func (a *API) identity() map[string]any {
	s := a.svc
	cfg := s.Config()
	ps := s.PipelineRuntime().Provider()
	extraction := map[string]any{
		"configured": cfg.PipelineV2.Provider,
		"resolved":   ps.Provider,
		"available":  ps.Available,
		"lastError":  firstNonEmpty(ps.ProviderError, ps.LastError),
	}
	return map[string]any{
		"version":      a.version,
		"pid":          os.Getpid(),
		"uptime":       time.Since(a.started).Seconds(),
		"startedAt":    storage.FormatTime(a.started),
		"address":      a.addr,
		"authMode":     firstNonEmpty(cfg.Auth.Mode, auth.ModeLocal),
		"pipelineMode": s.PipelineMode(),
		"providers":    map[string]any{"extraction": extraction, "embedding": a.embeddingSummary()},
	}
}

// measure is the part of the overview read from the store: the counts and
// the health score. err is the first query that failed (the rest is still
// measured).
func (a *API) measure(ctx context.Context) (map[string]any, error) {
	s := a.svc
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	counts := map[string]any{}
	if live, deleted, err := s.MemoryTotals(ctx); err == nil {
		counts["memories"], counts["deleted"] = live, deleted
	} else {
		a.log.Warn("status counts", "err", err)
		note(err)
	}
	if jobs, err := a.app.Ops.QueueCounts(ctx); err == nil {
		counts["jobs"] = jobs
	} else {
		note(err)
	}
	if n, err := a.app.Pipeline.CountProposals(ctx, storage.ProposalPending); err == nil {
		counts["pendingProposals"] = n
	} else {
		note(err)
	}
	out := map[string]any{"counts": counts}
	if h, err := a.app.Ops.HealthSummary(ctx); err == nil {
		out["health"] = h
	} else {
		out["health"] = ops.HealthScore{Status: "unknown"}
		note(err)
	}
	return out, first
}
