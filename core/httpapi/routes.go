package httpapi

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
)

// A route is one entry of the API: the router pattern, the handler and
// what a caller needs to reach it. Every route is declared in routeTable,
// with its access beside its handler, so the two cannot drift apart.
type route struct {
	pattern string
	handler http.Handler
	access  access
	// pick, when set, chooses the access per request, for a pattern that
	// serves several endpoints.
	pick func(r *http.Request) access
}

// access is what a caller needs to reach a route when auth.mode is team or
// hybrid (local mode lets every loopback caller through).
type access struct {
	perm    string    // a role permission, or permPublic / permAnyRole
	limiter string    // the rate-limit bucket, "" for none
	scope   scopeKind // how a scoped token is confined; every route declares one
}

// Permissions beside the roles' own (auth.Perm*).
const (
	permPublic  = "public"   // no token needed at all
	permAnyRole = "any-role" // any valid token
)

// scopeKind says how a token with a scope (auth.TokenScope: project, agent,
// user) is confined on a route; the auth gate applies it (auth.go). Its
// zero value is no kind at all: a route must say, or it is not served.
type scopeKind int

const (
	scopeUnset       scopeKind = iota // a route that forgot to say: refused at registration
	scopeGlobal                       // holds nothing of any project (health, status, whoami)
	scopeDenied                       // not available to scoped tokens (installation-wide data)
	scopeQuery                        // a list or search: the "project" query parameter is forced
	scopeSessions                     // the session list: forced to the project (and agent)
	scopeSession                      // the session named by {key} must be in scope, else 404
	scopeCreate                       // a write: the body's project (and who) are forced
	scopeSearch                       // a recall body: project forced, expand refused
	scopeMemory                       // the memory named by the path must be in scope, else 404
	scopeMemoryWrite                  // as scopeMemory for a change (403); PATCH may not move it out
	scopeModifyBatch                  // every patch's memory in scope, none moved out
	scopeForgetBatch                  // the filter forced, every id in scope
	scopeHook                         // project (and harness, who) forced; the session key must be in scope
	scopeJob                          // the job named by the path must be about a memory or session in scope, else 404
	scopeMCP                          // each MCP tool confines itself (mcp.go)
)

var scopeNames = map[scopeKind]string{
	scopeGlobal: "global", scopeDenied: "denied", scopeQuery: "query", scopeSessions: "sessions",
	scopeSession: "session", scopeCreate: "create", scopeSearch: "search", scopeMemory: "memory",
	scopeMemoryWrite: "memory-write", scopeModifyBatch: "modify-batch", scopeForgetBatch: "forget-batch",
	scopeHook: "hook", scopeJob: "job", scopeMCP: "mcp",
}

func (k scopeKind) String() string {
	if n, ok := scopeNames[k]; ok {
		return n
	}
	return fmt.Sprintf("scope(%d)", int(k))
}

// adminOnly is the access of a route that changes the installation.
var adminOnly = access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}

// routeTable is the whole API.
func (a *API) routeTable() []route {
	h := func(p string, fn http.HandlerFunc, ac access) route {
		return route{pattern: p, handler: fn, access: ac}
	}
	return []route{
		h("GET /health", a.health, access{perm: permPublic, scope: scopeGlobal}),
		h("GET /api/status", a.status, access{perm: auth.PermRecall, scope: scopeGlobal}),
		h("POST /api/auth/token", a.authToken, access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}),
		h("GET /api/auth/whoami", a.whoami, access{perm: permAnyRole, scope: scopeGlobal}),

		// Memories.
		h("POST /api/memory/remember", a.remember, access{perm: auth.PermRemember, scope: scopeCreate}),
		h("POST /api/memory/save", a.remember, access{perm: auth.PermRemember, scope: scopeCreate}),
		h("POST /api/memory/recall", a.recall, access{perm: auth.PermRecall, scope: scopeSearch}),
		h("GET /api/memory/search", a.searchGET(core.DefaultRecallLimit), access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /memory/search", a.searchGET(20), access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /memory/similar", a.similar, access{perm: auth.PermRecall, scope: scopeDenied}),
		h("GET /api/embeddings", a.embeddings, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/embeddings/status", a.embeddingStatus, access{perm: auth.PermDiagnostics, scope: scopeGlobal}),
		h("GET /api/memories", a.list, access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /api/memories/projects", a.projectCounts, access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /api/memories/export", a.export, access{perm: auth.PermRecall, scope: scopeQuery}),
		h("POST /api/memories/import", a.importMemories, access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}),
		h("POST /api/memories/import/signet", a.importSignet, access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}),
		h("POST /api/memory/modify", a.modifyBatch, access{perm: auth.PermModify, limiter: "modify", scope: scopeModifyBatch}),
		h("POST /api/memory/forget", a.forgetBatch, access{perm: auth.PermForget, limiter: "batchForget", scope: scopeForgetBatch}),
		h("GET /api/memory/{id}", a.get, access{perm: auth.PermRecall, scope: scopeMemory}),
		h("PATCH /api/memory/{id}", a.patch, access{perm: auth.PermModify, limiter: "modify", scope: scopeMemoryWrite}),
		h("DELETE /api/memory/{id}", a.delete, access{perm: auth.PermForget, limiter: "forget", scope: scopeMemoryWrite}),
		a.memorySubroute(),
		h("POST /api/memory/{id}/recover", a.recover, access{perm: auth.PermRecover, scope: scopeMemoryWrite}),
		h("GET /api/history", a.history, access{perm: auth.PermDiagnostics, scope: scopeDenied}),

		// Agents: MCP and the hooks.
		{pattern: "/mcp", handler: a.mcpHandler(), access: access{perm: auth.PermRecall, scope: scopeMCP}}, // each writing tool checks its own permission (mcpAllowed)
		h("POST /api/hooks/session-start", a.hookSessionStart, access{perm: auth.PermRecall, scope: scopeHook}),
		h("POST /api/hooks/user-prompt-submit", a.hookUserPrompt, access{perm: auth.PermRecall, scope: scopeHook}),
		h("POST /api/hooks/recall", a.hookRecall, access{perm: auth.PermRecall, scope: scopeHook}),
		h("POST /api/hooks/session-end", a.hookSessionEnd, access{perm: auth.PermRemember, scope: scopeHook}),
		h("POST /api/hooks/session-transcript", a.hookSessionTranscript, access{perm: auth.PermRemember, scope: scopeHook}),
		h("POST /api/hooks/remember", a.hookRemember, access{perm: auth.PermRemember, scope: scopeHook}),
		h("POST /api/hooks/pre-compaction", a.hookPreCompaction, access{perm: auth.PermRemember, scope: scopeHook}),
		h("POST /api/hooks/compaction-complete", a.hookCompactionComplete, access{perm: auth.PermRemember, scope: scopeHook}),
		h("GET /api/sessions", a.listSessions, access{perm: auth.PermRecall, scope: scopeSessions}),
		h("GET /api/sessions/{key}", a.getSession, access{perm: auth.PermRecall, scope: scopeSession}),
		h("POST /api/sessions/{key}/checkpoints", a.checkpointSession, access{perm: auth.PermRemember, scope: scopeSession}),

		// The pipeline: proposals, jobs, the graph.
		h("GET /api/proposals", a.listProposals, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/proposals/{id}", a.getProposal, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("POST /api/proposals/{id}/approve", a.approveProposal, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("POST /api/proposals/{id}/reject", a.rejectProposal, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("POST /api/proposals/{id}/reopen", a.reopenProposal, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("GET /api/jobs", a.listJobs, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/jobs/{id}", a.getJob, access{perm: auth.PermDocuments, scope: scopeJob}),
		h("POST /api/jobs/{id}/retry", a.retryJob, access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}),
		h("GET /api/pipeline/status", a.pipelineStatus, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/learned", a.learned, access{perm: auth.PermRecall, scope: scopeDenied}),
		h("POST /api/learned/review", a.learned, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("GET /api/graph/entities", a.graphEntities, access{perm: auth.PermRecall, scope: scopeDenied}),
		h("GET /api/graph/entities/{id}", a.graphEntity, access{perm: auth.PermRecall, scope: scopeDenied}),

		// Operations: repairs, maintenance, diagnostics, analytics.
		h("GET /api/repair", a.repairList, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("GET /api/repair/embedding-gaps", a.repairEmbeddingGaps, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("GET /api/repair/dedup-stats", a.repairDedupStats, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("POST /api/repair/{action}", a.repairRun, adminOnly),
		h("GET /api/maintenance", a.maintenance, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("POST /api/maintenance/run", a.runMaintenance, adminOnly),
		h("GET /api/diagnostics", a.diagnostics, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/diagnostics/{domain}", a.diagnosticsDomain, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/analytics/usage", a.analyticsUsage, access{perm: auth.PermAnalytics, scope: scopeDenied}),
		h("GET /api/analytics/errors", a.analyticsErrors, access{perm: auth.PermAnalytics, scope: scopeDenied}),
		h("GET /api/analytics/latency", a.analyticsLatency, access{perm: auth.PermAnalytics, scope: scopeDenied}),
		h("GET /api/analytics/latency/samples", a.analyticsLatencySamples, access{perm: auth.PermAnalytics, scope: scopeDenied}),

		// Documents (docs/design/pipeline.md, "Document ingest").
		h("POST /api/documents", a.createDocument, access{perm: auth.PermDocuments, limiter: limiterDocuments, scope: scopeDenied}),
		h("GET /api/documents", a.listDocuments, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("GET /api/documents/{id}", a.getDocument, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("GET /api/documents/{id}/chunks", a.documentChunks, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("DELETE /api/documents/{id}", a.deleteDocument, access{perm: auth.PermDocuments, limiter: "forget", scope: scopeDenied}),

		// Connectors (docs/design/pipeline.md, "Connectors").
		h("GET /api/connectors", a.listConnectors, access{perm: auth.PermConnectors, scope: scopeDenied}),
		h("POST /api/connectors", a.createConnector, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("GET /api/connectors/{id}", a.getConnector, access{perm: auth.PermConnectors, scope: scopeDenied}),
		h("POST /api/connectors/{id}/sync", a.syncConnector, access{perm: auth.PermConnectors, scope: scopeDenied}),
		h("DELETE /api/connectors/{id}", a.deleteConnector, access{perm: auth.PermAdmin, limiter: "forget", scope: scopeDenied}),
	}
}

// memorySubroute serves GET /api/memory/jobs/{id}, /api/memory/{id}/history
// and /api/memory/{id}/stamp (core.Service.MemoryStamp): they overlap in
// the router's eyes, so one pattern serves them, dispatching on the segments.
func (a *API) memorySubroute() route {
	return route{
		pattern: "GET /api/memory/{a}/{b}",
		handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			kind, id := memorySub(r)
			switch kind {
			case "jobs":
				r.SetPathValue("id", id)
				a.getJob(w, r)
			case "history":
				r.SetPathValue("id", id)
				a.memoryHistory(w, r)
			case "stamp":
				if stamp, err := a.svc.MemoryStamp(r.Context(), id); err != nil {
					a.fail(w, r, err)
				} else {
					writeJSON(w, http.StatusOK, map[string]any{"memoryId": id, "stamp": stamp})
				}
			case "recover":
				w.Header().Set("Allow", "POST")
				writeError(w, &core.Error{Code: core.CodeMethodNotAllowed, Message: "method not allowed; allowed: POST"})
			default:
				writeError(w, &core.Error{Code: core.CodeNotFound, Message: "no such route"})
			}
		}),
		pick: func(r *http.Request) access {
			switch kind, _ := memorySub(r); kind {
			case "jobs":
				return access{perm: auth.PermDocuments, scope: scopeJob}
			case "history", "stamp":
				return access{perm: auth.PermRecall, scope: scopeMemory}
			}
			return access{perm: permAnyRole, scope: scopeGlobal} // answers 404 or 405, nothing more
		},
	}
}

// memorySub names the endpoint a GET /api/memory/{a}/{b} request is for
// ("jobs", "history", "stamp", "recover" or "") and the id it names. It reads the
// escaped path segment by segment as the router does, so the auth gate
// (before routing) and the handler (after) always agree.
func memorySub(r *http.Request) (kind, id string) {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	if len(segs) != 4 {
		return "", ""
	}
	first, err1 := url.PathUnescape(segs[2])
	second, err2 := url.PathUnescape(segs[3])
	switch {
	case err1 != nil || err2 != nil:
		return "", ""
	case first == "jobs":
		return "jobs", second
	case second == "history" || second == "stamp":
		return second, first
	case second == "recover":
		return "recover", first
	}
	return "", ""
}

// table is a router with the routes it serves by pattern: the API's own
// (API.mux, API.routes) or the profiler's (API.debug).
type table struct {
	mux    *http.ServeMux
	routes map[string]route
}

// register adds rt to the API's router (registerOn).
func (a *API) register(rt route) {
	a.registerOn(&table{mux: a.mux, routes: a.routes}, rt)
}

// registerOn adds rt to t's router behind the auth gate's guard (which
// runs after routing, so it reads the path values the handler will read).
// A route without a declared permission or scope is a programming error:
// it panics at start-up rather than serve unguarded.
func (a *API) registerOn(t *table, rt route) {
	if rt.pick == nil && rt.access.perm == "" {
		panic(fmt.Sprintf("httpapi: route %q declares no permission", rt.pattern))
	}
	if rt.pick == nil && rt.access.scope == scopeUnset {
		panic(fmt.Sprintf("httpapi: route %q declares no scope", rt.pattern))
	}
	if _, dup := t.routes[rt.pattern]; dup {
		panic(fmt.Sprintf("httpapi: route %q registered twice", rt.pattern))
	}
	t.mux.Handle(rt.pattern, a.auth.guard(rt))
	t.routes[rt.pattern] = rt
}

// debugRouteTable is the profiler (Go's net/http/pprof), served only by
// DebugHandler on a listener of its own (cairn serve --debug-addr), never
// by the API's: the heap and goroutine dumps show memories' text, so the
// routes are the installation's admin's.
func (a *API) debugRouteTable() []route {
	debug := access{perm: auth.PermAdmin, scope: scopeDenied}
	h := func(p string, fn http.HandlerFunc) route { return route{pattern: p, handler: fn, access: debug} }
	return []route{
		h("/debug/pprof/", pprof.Index),
		h("/debug/pprof/cmdline", pprof.Cmdline),
		h("/debug/pprof/profile", pprof.Profile),
		h("/debug/pprof/symbol", pprof.Symbol),
		h("/debug/pprof/trace", pprof.Trace),
	}
}

// DebugHandler serves the profiler's routes (debugRouteTable) behind the
// browser guard and the auth gate: in local mode (and to a local caller in
// hybrid mode) as before, in team mode to an admin's token. The guard is
// the API's (guard.go), with no origin of its own: a rebound name or a
// page's request is refused as it is by the API.
func (a *API) DebugHandler() http.Handler {
	guard := newBrowserGuard(a, func() string { return "" })
	inner := a.auth.wrap(a.debug.mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if refusal, handled := guard.check(w, r); refusal != nil {
			writeError(w, refusal)
			return
		} else if handled {
			return
		}
		inner.ServeHTTP(w, r)
	})
}
