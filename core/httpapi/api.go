package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/httpapi/admission"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/transfer"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// API serves cairn's HTTP interface over a Service.
type API struct {
	app     *app.App
	svc     *core.Service // app.Service
	version string
	started time.Time
	addr    string
	log     *slog.Logger
	mux     *http.ServeMux
	auth    *authGate
	guard   *browserGuard
	hc      healthCache
	routes  map[string]route // by pattern: the table the router and the auth gate share
	debug   *table           // the profiler's routes (debugRouteTable), served by DebugHandler
	admit   *admission.Gate  // requests served at once
}

// NewAPI builds the HTTP API over ap. version is reported by /health and
// /api/status; addr is the address it will be served on.
func NewAPI(ap *app.App, version, addr string) *API {
	svc := ap.Service
	a := &API{app: ap, svc: svc, version: version, started: time.Now(), addr: addr, log: svc.Logger(), mux: http.NewServeMux(), routes: map[string]route{}}
	a.auth = newAuthGate(a)
	a.guard = newBrowserGuard(a, func() string { return a.addr })
	a.admit = admission.New(svc.Config().Server)
	for _, rt := range a.routeTable() {
		a.register(rt)
	}
	a.debug = &table{mux: http.NewServeMux(), routes: map[string]route{}}
	for _, rt := range a.debugRouteTable() {
		a.registerOn(a.debug, rt)
	}
	return a
}

// SetAddr records the address actually listened on (after ":0" resolves).
func (a *API) SetAddr(addr string) { a.addr = addr }

// Handler returns the API with its middleware: request ids, panic recovery,
// JSON for the router's own 404/405 answers, request logging, and the
// browser guard (guard.go) before auth. GET /health is answered first,
// with only what it needs (health.go: serveHealth).
func (a *API) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No answer is ever read as anything but what it says it is.
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if isHealthCheck(r) {
			a.serveHealth(w, r)
			return
		}
		if e := checkCallerHeaders(r); e != nil {
			writeError(w, e)
			return
		}
		start := time.Now()
		reqID := firstHeader(r, "X-Request-Id", "X-Cairn-Request-Id", "X-Signet-Request-Id")
		if reqID == "" {
			reqID = core.NewID()
		}
		r.Header.Set("X-Request-Id", reqID) // actorOf reads the one canonical name
		w.Header().Set("X-Request-Id", reqID)
		rw := &statusWriter{ResponseWriter: w}
		if r.URL.Path != "/health" { // background work yields to requests (core/foreground.go)
			defer a.svc.Foreground().Enter()()
		}
		_, pattern := a.mux.Handler(r)
		defer a.recordRequest(r, pattern, rw, start)
		if r.URL.Path != "/health" { // /health answers whatever the load (a method it does not serve lands here)
			perm := a.routes[pattern].access.perm
			release, ok := a.admit.Enter(r.Context(), writePerms[perm])
			if !ok {
				a.refuse(rw, perm)
				return
			}
			defer release()
		}
		defer func() {
			if p := recover(); p != nil {
				a.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				if !rw.wroteHeader {
					writeError(rw, &core.Error{Code: core.CodeInternal, Message: "internal error"})
				}
			}
			a.log.Debug("http", "method", r.Method, "path", r.URL.Path, "route", r.Pattern, "status", rw.status, "ms", time.Since(start).Milliseconds(), "request_id", reqID)
		}()
		if refusal, handled := a.guard.check(rw, r); refusal != nil {
			a.log.Warn("refused browser request", "code", refusal.Code, "method", r.Method, "path", r.URL.Path,
				"host", r.Host, "origin", r.Header.Get("Origin"), "request_id", reqID)
			writeError(rw, refusal)
			return
		} else if handled {
			return
		}
		a.auth.wrap(a.mux).ServeHTTP(rw, r)
	})
}

// statusWriter records the status and turns the router's plain-text 404 and
// 405 answers into the API's JSON error shape.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	swallow     bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader, w.status = true, code
	// The router answers unknown paths and methods in plain text; every
	// handler here writes JSON, so plain text means the router spoke.
	if (code == http.StatusMethodNotAllowed || code == http.StatusNotFound) &&
		strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.swallow = true
		body := map[string]any{"error": "no such route", "code": core.CodeNotFound}
		if code == http.StatusMethodNotAllowed {
			body = map[string]any{"error": "method not allowed; allowed: " + w.Header().Get("Allow"), "code": "method_not_allowed"}
		}
		writeJSONRaw(w.ResponseWriter, code, body)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (export
// extends its write deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSONRaw(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func firstHeader(r *http.Request, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(r.Header.Get(n)); v != "" {
			return v
		}
	}
	return ""
}

// CodeHeaderTooLarge is a caller header over maxCallerHeader (431).
const CodeHeaderTooLarge = "header_too_large"

// callerHeaders name the caller; what they say is stored (history's actor,
// session and request ids, a memory's updated_by), so each is bounded and
// must be a clean one-line identifier.
var callerHeaders = []string{"X-Cairn-Actor", "X-Signet-Actor", "X-Cairn-Actor-Type", "X-Signet-Actor-Type",
	"X-Cairn-Session-Id", "X-Signet-Session-Id", "X-Request-Id", "X-Cairn-Request-Id", "X-Signet-Request-Id"}

// maxCallerHeader is the longest value of a caller header, in bytes.
const maxCallerHeader = 256

// checkCallerHeaders refuses a request whose caller headers are too long
// (431 header_too_large) or hold control or invisible characters (400),
// naming the header.
func checkCallerHeaders(r *http.Request) *core.Error {
	for _, name := range callerHeaders {
		for _, v := range r.Header.Values(name) {
			if len(v) > maxCallerHeader {
				return &core.Error{Code: CodeHeaderTooLarge, Message: fmt.Sprintf("header %s is %d bytes; at most %d are allowed",
					name, len(v), maxCallerHeader), Extra: map[string]any{"field": name}}
			}
			if e := core.CheckIdentifiers(nil, name, v); e != nil {
				return e
			}
		}
	}
	return nil
}

// actorOf resolves who is calling: the actor headers, then the body's
// changed_by, then "api".
func actorOf(r *http.Request, b body) core.Actor {
	a := core.Actor{
		Name:      firstHeader(r, "X-Cairn-Actor", "X-Signet-Actor"),
		Type:      firstHeader(r, "X-Cairn-Actor-Type", "X-Signet-Actor-Type"),
		SessionID: firstHeader(r, "X-Cairn-Session-Id", "X-Signet-Session-Id"),
		RequestID: r.Header.Get("X-Request-Id"),
	}
	if a.Name == "" && b != nil {
		if s, ok, _ := b.str("changed_by", "changedBy"); ok {
			a.Name = strings.TrimSpace(s)
		}
	}
	if a.Name == "" {
		a.Name = "api"
	}
	return a.Normalized()
}

func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := core.AsError(err)
	if f := a.svc.DB().NoteFault(err); f != storage.FaultNone {
		// The file failed, not the request: /health reports it, the error
		// ring keeps it, and the log has the cause.
		a.log.Error("storage fault", "fault", f, "method", r.Method, "path", r.URL.Path, "err", err)
		a.svc.Analytics().RecordError(analytics.ErrorEvent{Stage: analytics.StageStorage, Code: analytics.CodeStorageError,
			Message: e.Code + ": " + err.Error(), RequestID: r.Header.Get("X-Request-Id")})
	} else if e.Code == core.CodeInternal {
		a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, e)
}

func (a *API) status(w http.ResponseWriter, r *http.Request) {
	stats, err := a.svc.Stats(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	queue, err := a.app.Ops.QueueCounts(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cfg := a.svc.Config()
	out := a.overview(r)
	for k, v := range map[string]any{
		"status":        "running",
		"version":       a.version,
		"pid":           os.Getpid(),
		"uptime":        time.Since(a.started).Seconds(),
		"startedAt":     storage.FormatTime(a.started),
		"addr":          a.addr,
		"authMode":      cfg.Auth.Mode,
		"schemaVersion": storage.SchemaVersion(),
		"pipeline": map[string]any{
			"mode":            a.svc.PipelineMode(),
			"enabled":         cfg.Pipeline.Enabled,
			"shadowMode":      cfg.Pipeline.ShadowMode,
			"mutationsFrozen": a.svc.MutationsFrozen(),
		},
		"memories":  stats,
		"queue":     queue,
		"embedding": a.embeddingSummary(),
	} {
		out[k] = v
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) embeddingSummary() map[string]any {
	out := map[string]any{"provider": a.svc.Config().Embedding.Provider}
	if e := a.app.Vectors.Embedder(); e != nil {
		out["model"], out["available"] = e.Model(), a.app.Vectors.ProviderHealthy()
	} else {
		out["provider"] = "none"
	}
	return out
}

func (a *API) remember(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	in, e := rememberInputFrom(b)
	if e == nil {
		e = a.resolveProject(r, &in.Project)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	transcript, _, e := b.str("transcript")
	if e != nil {
		writeError(w, e)
		return
	}
	harness, _, e := b.str("harness")
	if e != nil {
		writeError(w, e)
		return
	}
	if transcript != "" && in.SessionID == "" {
		writeError(w, core.Invalid("session_id", "a transcript needs the session it belongs to: session_id"))
		return
	}
	res, err := a.svc.Remember(r.Context(), in, actorOf(r, b))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if transcript == "" {
		writeJSON(w, http.StatusOK, res.Response())
		return
	}
	// A transcript sent with a remember is stored as session end stores it
	// (docs/design/pipeline.md, "Session transcripts").
	n, err := a.app.Sessions.RememberTranscript(r.Context(), sessions.Ref{Key: in.SessionID, Harness: harness,
		Project: in.Project}, transcript)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, _ := json.Marshal(res.Response())
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	if m != nil {
		m["transcript_chars"] = n
	}
	writeJSON(w, http.StatusOK, m)
}

// rememberInputFrom reads a remember body: content is required, every other field optional.
func rememberInputFrom(b body) (core.RememberInput, *core.Error) {
	var in core.RememberInput
	raw, name := b.field("content")
	if raw == nil {
		return in, core.Invalid("content", "content is required")
	}
	if json.Unmarshal(raw, &in.Content) != nil {
		return in, core.Invalid(name, "content must be a string")
	}
	var e *core.Error
	str := func(dst *string, names ...string) {
		if e == nil {
			*dst, _, e = b.str(names...)
		}
	}
	str(&in.Type, "type")
	str(&in.Who, "who")
	str(&in.Project, "project")
	str(&in.SessionID, "session_id", "sessionId")
	str(&in.SourceType, "source_type", "sourceType")
	str(&in.SourceID, "source_id", "sourceId")
	str(&in.Category, "category")
	str(&in.Why, "why")
	str(&in.IdempotencyKey, "idempotency_key", "idempotencyKey")
	str(&in.RuntimePath, "runtime_path", "runtimePath")
	str(&in.Key, "key")
	str(&in.Scope, "scope")
	if e != nil {
		return in, e
	}
	if in.Importance, e = b.number("importance"); e != nil {
		return in, e
	}
	if in.Confidence, e = b.number("confidence"); e != nil {
		return in, e
	}
	if in.Pinned, e = b.boolean("pinned"); e != nil {
		return in, e
	}
	tags, e := b.tags("tags")
	if e != nil {
		return in, e
	}
	if tags != nil {
		in.Tags = *tags
	}
	return in, nil
}

func (a *API) recall(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	in, e := recallInputFrom(b)
	if e == nil {
		e = a.resolveProject(r, &in.Filter.Project)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	in.NoTracking = in.NoTracking || readOnlyCaller(r) // a reader leaves no trace
	res, err := a.svc.Recall(r.Context(), in)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func recallInputFrom(b body) (core.RecallInput, *core.Error) {
	var in core.RecallInput
	q, ok, e := b.str("query")
	if e != nil {
		return in, e
	}
	if !ok || strings.TrimSpace(q) == "" {
		return in, core.Invalid("query", "query is required")
	}
	in.Query = q
	if in.KeywordQuery, _, e = b.str("keyword_query", "keywordQuery"); e != nil {
		return in, e
	}
	if in.Mode, _, e = b.str("mode"); e != nil {
		return in, e
	}
	explain, e := b.boolean("explain")
	if e != nil {
		return in, e
	}
	in.Explain = explain != nil && *explain
	expand, e := b.boolean("expand")
	if e != nil {
		return in, e
	}
	in.Expand = expand != nil && *expand
	track, e := b.boolean("track")
	if e != nil {
		return in, e
	}
	in.NoTracking = track != nil && !*track
	if raw, _ := b.field("limit"); raw != nil {
		n, err := b.integer("limit")
		if err != nil || n == nil || *n < 1 || *n > core.MaxRecallLimit {
			return in, core.Invalid("limit", "limit must be an integer from 1 to %d", core.MaxRecallLimit)
		}
		in.Limit = int(*n)
	}
	f := &in.Filter
	str := func(dst *string, names ...string) {
		if e == nil {
			*dst, _, e = b.str(names...)
		}
	}
	str(&f.Type, "type")
	str(&f.Who, "who")
	str(&f.Project, "project")
	str(&f.SourceType, "source_type", "sourceType")
	str(&f.Scope, "scope")
	f.Scope = strings.ToLower(strings.TrimSpace(f.Scope))
	var since, until string
	str(&since, "since")
	str(&until, "until")
	if e != nil {
		return in, e
	}
	if f.Since, e = parseTimeParam("since", since, false); e != nil {
		return in, e
	}
	if f.Until, e = parseTimeParam("until", until, true); e != nil {
		return in, e
	}
	tags, e := b.tags("tags")
	if e != nil {
		return in, e
	}
	if tags != nil {
		f.Tags = *tags
	}
	if f.Pinned, e = b.boolean("pinned"); e != nil {
		return in, e
	}
	imp, e := b.number("importance_min", "importanceMin")
	if e != nil || (imp != nil && !core.ValidUnit(*imp)) {
		return in, core.Invalid("importance_min", "importance_min must be a number between 0 and 1")
	}
	f.ImportanceMin = imp
	return in, nil
}

func (a *API) get(w http.ResponseWriter, r *http.Request) {
	incl, _ := parseBool(r.URL.Query().Get("include_deleted"))
	m, err := a.svc.Get(r.Context(), r.PathValue("id"), incl)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// queryLimit reads an integer query parameter within [min, max].
func queryInt(r *http.Request, name string, def, min, max int) (int, *core.Error) {
	s := strings.TrimSpace(r.URL.Query().Get(name))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		return 0, core.Invalid(name, "%s must be an integer from %d to %d", name, min, max)
	}
	return n, nil
}

// memoryFilter is filterFromQuery with its project resolved to an
// identity (a name, alias or folder as the caller gave it).
func (a *API) memoryFilter(r *http.Request) (storage.MemoryFilter, *core.Error) {
	f, e := filterFromQuery(r)
	if e == nil {
		e = a.resolveProject(r, &f.Project)
	}
	return f, e
}

// filterFromQuery reads the shared list filters from URL parameters.
func filterFromQuery(r *http.Request) (storage.MemoryFilter, *core.Error) {
	q := r.URL.Query()
	f := storage.MemoryFilter{
		Type:       strings.TrimSpace(q.Get("type")),
		Who:        strings.TrimSpace(q.Get("who")),
		Project:    strings.TrimSpace(q.Get("project")),
		SourceType: strings.TrimSpace(firstNonEmpty(q.Get("source_type"), q.Get("sourceType"))),
		Scope:      strings.ToLower(strings.TrimSpace(q.Get("scope"))),
	}
	if e := core.CheckFilter(storage.MemoryFilter{Scope: f.Scope}); e != nil {
		return f, e
	}
	if t := q.Get("tags"); t != "" {
		f.Tags = text.SplitTags(t)
		if e := core.CheckTags("tags", f.Tags); e != nil {
			return f, e
		}
	}
	if p := q.Get("pinned"); p != "" {
		v, ok := parseBool(p)
		if !ok {
			return f, core.Invalid("pinned", "pinned must be true or false")
		}
		f.Pinned = &v
	}
	if s := firstNonEmpty(q.Get("importance_min"), q.Get("importanceMin")); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !core.ValidUnit(x) {
			return f, core.Invalid("importance_min", "importance_min must be a number between 0 and 1")
		}
		f.ImportanceMin = &x
	}
	var e *core.Error
	if f.Since, e = parseTimeParam("since", q.Get("since"), false); e != nil {
		return f, e
	}
	if f.Until, e = parseTimeParam("until", q.Get("until"), true); e != nil {
		return f, e
	}
	if v, _ := parseBool(q.Get("include_deleted")); v {
		f.IncludeDeleted = true
	}
	if v, _ := parseBool(q.Get("only_deleted")); v {
		f.OnlyDeleted = true
	}
	return f, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// projectCounts is GET /api/memories/projects: how many memories the
// list filters select in each project ("" for no project).
func (a *API) projectCounts(w http.ResponseWriter, r *http.Request) {
	f, e := a.memoryFilter(r)
	if e != nil {
		writeError(w, e)
		return
	}
	n, err := a.app.Ops.ProjectCounts(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"projects": n})
}

func (a *API) list(w http.ResponseWriter, r *http.Request) {
	f, e := a.memoryFilter(r)
	if e != nil {
		writeError(w, e)
		return
	}
	if paged, _ := parseBool(r.URL.Query().Get("paged")); paged {
		p, count, e := pageFromQuery(r)
		if e != nil {
			writeError(w, e)
			return
		}
		res, err := a.svc.ListPage(r.Context(), f, p, count)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
		return
	}
	limit, e := queryInt(r, "limit", 100, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	offset, e := queryInt(r, "offset", 0, 0, 1<<30)
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.List(r.Context(), f, limit, offset)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) patch(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	p, e := patchFrom(b, r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.Modify(r.Context(), p, actorOf(r, b))
	writeMutation(w, res, err)
}

func patchFrom(b body, id string) (core.Patch, *core.Error) {
	p := core.Patch{ID: id}
	var e *core.Error
	if id == "" {
		s, _, err := b.str("id")
		if err != nil {
			return p, err
		}
		p.ID = s
	}
	if p.Reason, _, e = b.str("reason"); e != nil {
		return p, e
	}
	if raw, _ := b.field("if_version", "ifVersion"); raw != nil {
		v, err := b.integer("if_version", "ifVersion")
		if err != nil || v == nil || *v < 1 {
			return p, core.Invalid("if_version", "if_version must be a positive integer")
		}
		p.IfVersion = v
	}
	if raw, name := b.field("content"); raw != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return p, core.Invalid(name, "content must be a string")
		}
		p.Content = &s
	}
	strPtr := func(dst **string, name string) {
		if e != nil {
			return
		}
		if s, ok, err := b.str(name); err != nil {
			e = err
		} else if ok {
			*dst = &s
		}
	}
	strPtr(&p.Type, "type")
	strPtr(&p.Who, "who")
	strPtr(&p.Project, "project")
	if e != nil {
		return p, e
	}
	if p.Tags, e = b.tags("tags"); e != nil {
		return p, e
	}
	if p.Importance, e = b.number("importance"); e != nil {
		return p, core.Invalid("importance", "importance must be a finite number between 0 and 1")
	}
	if p.Pinned, e = b.boolean("pinned"); e != nil {
		return p, e
	}
	return p, nil
}

// optionalBody reads a JSON body if one was sent; DELETE and recover accept
// their fields in the body or the query string.
func (a *API) optionalBody(w http.ResponseWriter, r *http.Request) (body, *core.Error) {
	if r.ContentLength == 0 && r.Header.Get("Transfer-Encoding") == "" {
		return body{}, nil
	}
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil && e.Message == "Invalid JSON body: the body is empty" {
		return body{}, nil
	}
	return b, e
}

// reasonVersion reads reason and if_version from the body or the query.
func reasonVersion(r *http.Request, b body) (string, *int64, *core.Error) {
	reason, _, e := b.str("reason")
	if e != nil {
		return "", nil, e
	}
	if reason == "" {
		reason = r.URL.Query().Get("reason")
	}
	var ver *int64
	if raw, _ := b.field("if_version", "ifVersion"); raw != nil {
		v, err := b.integer("if_version", "ifVersion")
		if err != nil || v == nil || *v < 1 {
			return "", nil, core.Invalid("if_version", "if_version must be a positive integer")
		}
		ver = v
	} else if s := firstNonEmpty(r.URL.Query().Get("if_version"), r.URL.Query().Get("ifVersion")); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return "", nil, core.Invalid("if_version", "if_version must be a positive integer")
		}
		ver = &n
	}
	return reason, ver, nil
}

func (a *API) delete(w http.ResponseWriter, r *http.Request) {
	b, e := a.optionalBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, ver, e := reasonVersion(r, b)
	if e != nil {
		writeError(w, e)
		return
	}
	force, e := b.boolean("force")
	if e != nil {
		writeError(w, e)
		return
	}
	in := core.ForgetInput{ID: r.PathValue("id"), Reason: reason, IfVersion: ver}
	if force != nil {
		in.Force = *force
	} else if v, ok := parseBool(r.URL.Query().Get("force")); ok {
		in.Force = v
	}
	res, err := a.svc.Forget(r.Context(), in, actorOf(r, b))
	writeMutation(w, res, err)
}

func (a *API) recover(w http.ResponseWriter, r *http.Request) {
	b, e := a.optionalBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, ver, e := reasonVersion(r, b)
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.Recover(r.Context(), core.RecoverInput{ID: r.PathValue("id"), Reason: reason, IfVersion: ver}, actorOf(r, b))
	writeMutation(w, res, err)
}

func (a *API) modifyBatch(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	patches, e := patchesFrom(b)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _, e := b.str("reason")
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.ModifyBatch(r.Context(), patches, reason, actorOf(r, b))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// patchesFrom reads the patches of a batch modify; the auth gate reads
// them with it too. A malformed patch becomes an invalid_request result of
// its own; the other patches still apply.
func patchesFrom(b body) ([]core.Patch, *core.Error) {
	raw, _ := b.field("patches")
	if raw == nil {
		return nil, core.Invalid("patches", "patches[] is required")
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, core.Invalid("patches", "patches must be an array of objects")
	}
	patches := make([]core.Patch, len(items))
	for i, item := range items {
		pb, perr := parseBody(item)
		if perr != nil {
			patches[i].Malformed = core.Invalid("patches", "patch %d must be a JSON object", i)
			continue
		}
		p, perr := patchFrom(pb, "")
		if perr == nil && strings.TrimSpace(p.ID) == "" {
			perr = core.Invalid("id", "Patch id is required")
		}
		p.Malformed = perr
		patches[i] = p
	}
	return patches, nil
}

func (a *API) forgetBatch(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	in, e := forgetInputFrom(b)
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.ForgetBatch(r.Context(), in, actorOf(r, b))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res.Response())
}

func forgetInputFrom(b body) (core.BatchForgetInput, *core.Error) {
	var in core.BatchForgetInput
	var e *core.Error
	str := func(dst *string, names ...string) {
		if e == nil {
			*dst, _, e = b.str(names...)
		}
	}
	str(&in.Mode, "mode")
	str(&in.Query, "query")
	str(&in.Match, "match")
	str(&in.Reason, "reason")
	str(&in.ConfirmToken, "confirm_token", "confirmToken")
	str(&in.Filter.Type, "type")
	str(&in.Filter.Who, "who")
	str(&in.Filter.Project, "project")
	str(&in.Filter.SourceType, "source_type", "sourceType")
	var since, until string
	str(&since, "since")
	str(&until, "until")
	if e != nil {
		return in, e
	}
	if in.Filter.Since, e = parseTimeParam("since", since, false); e != nil {
		return in, e
	}
	if in.Filter.Until, e = parseTimeParam("until", until, true); e != nil {
		return in, e
	}
	tags, e := b.tags("tags")
	if e != nil {
		return in, e
	}
	if tags != nil {
		in.Filter.Tags = *tags
	}
	if in.IDs, e = b.strList("ids"); e != nil {
		return in, e
	}
	if raw, _ := b.field("limit"); raw != nil {
		n, err := b.integer("limit")
		if err != nil || n == nil || *n < 1 {
			return in, core.Invalid("limit", "limit must be a positive integer")
		}
		in.Limit = int(min(*n, 1<<20))
	}
	force, e := b.boolean("force")
	if e != nil {
		return in, e
	}
	in.Force = force != nil && *force
	in.IfVersionGiven = b.has("if_version", "ifVersion")
	return in, nil
}

func (a *API) memoryHistory(w http.ResponseWriter, r *http.Request) {
	limit, e := queryInt(r, "limit", 200, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	id := r.PathValue("id")
	hist, err := a.svc.MemoryHistory(r.Context(), id, limit)
	if errors.Is(err, core.ErrNotFound) {
		writeError(w, &core.Error{Code: core.CodeNotFound, Message: "Not found", Extra: map[string]any{"memoryId": id}})
		return
	} else if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"memoryId": id, "count": len(hist), "history": hist})
}

// pageFromQuery reads a paged list's parameters: limit, order (newest or
// oldest first), one of cursor_before (with inclusive), cursor_after or
// cursor_last, and count.
func pageFromQuery(r *http.Request) (storage.PageQuery, bool, *core.Error) {
	q := r.URL.Query()
	var p storage.PageQuery
	var e *core.Error
	if p.Limit, e = queryInt(r, "limit", 100, 1, core.MaxPageLimit); e != nil {
		return p, false, e
	}
	p.Before, p.After = q.Get("cursor_before"), q.Get("cursor_after")
	p.Inclusive, _ = parseBool(q.Get("inclusive"))
	p.Last, _ = parseBool(q.Get("cursor_last"))
	switch q.Get("order") {
	case "", "newest":
	case "oldest":
		p.Oldest = true
	default:
		return p, false, core.Invalid("order", "order must be newest or oldest")
	}
	if (p.Before != "" && p.After != "") || (p.Last && p.Before+p.After != "") {
		return p, false, core.Invalid("cursor_before", "give one of cursor_before, cursor_after and cursor_last")
	}
	count, _ := parseBool(q.Get("count"))
	return p, count, nil
}

// historyPage serves GET /api/history?paged=true: the History pane's
// search (exact event and actor, mem: a loose memory id, text: words that
// must each appear) a page at a time by cursor.
func (a *API) historyPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, count, e := pageFromQuery(r)
	if e != nil {
		writeError(w, e)
		return
	}
	f := storage.HistorySearch{Event: q.Get("event"), Actor: q.Get("actor"), Memory: q.Get("mem"), Text: q["text"]}
	res, err := a.svc.SearchHistoryPage(r.Context(), f, p, count)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) history(w http.ResponseWriter, r *http.Request) {
	if paged, _ := parseBool(r.URL.Query().Get("paged")); paged {
		a.historyPage(w, r)
		return
	}
	limit, e := queryInt(r, "limit", 100, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	q := r.URL.Query()
	f := storage.HistoryFilter{MemoryID: firstNonEmpty(q.Get("memory_id"), q.Get("memoryId")), Event: q.Get("event"),
		Actor: q.Get("actor")}
	if f.Before, e = parseTimeParam("before", q.Get("before"), false); e != nil {
		writeError(w, e)
		return
	}
	hist, err := a.svc.History(r.Context(), f, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(hist), "history": hist})
}

func (a *API) export(w http.ResponseWriter, r *http.Request) {
	f, e := a.memoryFilter(r)
	if e != nil {
		writeError(w, e)
		return
	}
	// Nothing is sent until the first 64 KiB are encoded (or the export
	// ends), so a failure before that is a real error answer, not an empty
	// 200.
	out := &exportStream{w: w, rc: http.NewResponseController(w), timeout: a.svc.Config().Server.WriteTimeout.D()}
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err := a.app.Transfer.Export(r.Context(), f, func(m *transfer.ExportRecord) error { return enc.Encode(m) })
	if err != nil {
		if !out.started {
			a.fail(w, r, err)
			return
		}
		// Headers are gone; a truncated stream is detected by the client
		// through the missing trailer line.
		a.log.Error("export", "err", err)
		return
	}
	_ = enc.Encode(map[string]any{"_end": true})
	_ = bw.Flush()
}

// exportStream starts the NDJSON answer at its first write and pushes the
// write deadline forward as it goes: a long export is not cut by
// server.write_timeout while it makes progress.
type exportStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	started bool
}

func (s *exportStream) Write(p []byte) (int, error) {
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "application/x-ndjson")
	}
	if s.timeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout)) // not supported by recorders; fine
	}
	return s.w.Write(p)
}

func (a *API) importMemories(w http.ResponseWriter, r *http.Request) {
	limit := max(a.svc.Config().Server.MaxBodyBytes, 64<<20)
	body := http.MaxBytesReader(w, r.Body, limit)
	recs, e := ReadImportLines(body)
	if e != nil {
		writeError(w, e)
		return
	}
	actor := actorOf(r, nil)
	res, err := a.app.Transfer.Import(r.Context(), recs, actor)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// importSignet is POST /api/memories/import/signet {"path", "embedding_model",
// "dry_run"}: `cairn import --from signet` while this cairn holds the
// store. The file is on this machine, so only a local caller may name one;
// it is opened read-only.
func (a *API) importSignet(w http.ResponseWriter, r *http.Request) {
	if !remoteIsLoopback(r) {
		writeError(w, &core.Error{Code: auth.CodeForbidden, Message: "a Signet import names a file on cairn's machine: run it there"})
		return
	}
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	var opt transfer.SignetOptions
	var path string
	if e == nil {
		path, _, e = b.str("path")
	}
	if e == nil && !filepath.IsAbs(path) {
		e = core.Invalid("path", "path must be the absolute path of a Signet memories.db")
	}
	if e == nil {
		opt.EmbeddingModel, _, e = b.str("embedding_model")
	}
	var dry *bool
	if e == nil {
		dry, e = b.boolean("dry_run")
	}
	if e != nil {
		writeError(w, e)
		return
	}
	opt.DryRun = dry != nil && *dry
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		writeError(w, core.Invalid("path", "no Signet memories.db at %s", path))
		return
	}
	rep, err := a.app.Transfer.ImportSignetFile(r.Context(), path, opt, actorOf(r, nil))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// Serve serves the API on ln until ctx ends, then shuts it down, letting
// requests in flight finish for up to timeout.
func (a *API) Serve(ctx context.Context, ln net.Listener, timeout time.Duration) error {
	srv := a.server()
	hctx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	go a.runHealth(hctx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	stopHealth()
	a.Wait() // no refresh may outlive the API: the store closes next
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// readHeaderTimeout bounds reading a request's headers.
const readHeaderTimeout = 10 * time.Second

// server is the http.Server of Serve, with the configured timeouts: a
// request must arrive whole within server.read_timeout (a trickled body is
// cut) and be answered within server.write_timeout.
func (a *API) server() *http.Server {
	cfg := a.svc.Config().Server
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	read := or(cfg.ReadTimeout.D(), config.DefaultServerReadTimeout)
	return &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: min(readHeaderTimeout, read),
		ReadTimeout:       read,
		WriteTimeout:      or(cfg.WriteTimeout.D(), config.DefaultServerWriteTimeout),
		IdleTimeout:       or(cfg.IdleTimeout.D(), config.DefaultServerIdleTimeout),
	}
}
