package httpapi

import (
	"fmt"
	"net/http"
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
	scope   scopeKind // how a project-scoped token is confined
}

// Permissions beside the roles' own (auth.Perm*).
const (
	permPublic  = "public"   // no token needed at all
	permAnyRole = "any-role" // any valid token
)

type scopeKind int

const (
	scopeNone    scopeKind = iota // not project data, or scoped elsewhere
	scopeQuery                    // force the "project" query parameter
	scopeBody                     // force the "project" field of a JSON body
	scopeID                       // the memory named by {id} must be in scope
	scopeIDWrite                  // as scopeID, for a mutation
	scopeBatch                    // ids/patches in the body must be in scope
	scopeDenied                   // not available to project-scoped tokens
)

// adminOnly is the access of a route that changes the installation.
var adminOnly = access{perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied}

// routeTable is the whole API.
func (a *API) routeTable() []route {
	h := func(p string, fn http.HandlerFunc, ac access) route {
		return route{pattern: p, handler: fn, access: ac}
	}
	return []route{
		h("GET /health", a.health, access{perm: permPublic}),
		h("GET /api/status", a.status, access{perm: auth.PermRecall}),
		h("POST /api/auth/token", a.authToken, access{perm: auth.PermAdmin, limiter: "admin"}),
		h("GET /api/auth/whoami", a.whoami, access{perm: permAnyRole}),

		// Memories.
		h("POST /api/memory/remember", a.remember, access{perm: auth.PermRemember, scope: scopeBody}),
		h("POST /api/memory/save", a.remember, access{perm: auth.PermRemember, scope: scopeBody}),
		h("POST /api/memory/recall", a.recall, access{perm: auth.PermRecall, scope: scopeBody}),
		h("GET /api/memory/search", a.searchGET(core.DefaultRecallLimit), access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /memory/search", a.searchGET(20), access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /memory/similar", a.similar, access{perm: auth.PermRecall, scope: scopeDenied}),
		h("GET /api/embeddings", a.embeddings, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/embeddings/status", a.embeddingStatus, access{perm: auth.PermDiagnostics}),
		h("GET /api/memories", a.list, access{perm: auth.PermRecall, scope: scopeQuery}),
		h("GET /api/memories/export", a.export, access{perm: auth.PermRecall, scope: scopeQuery}),
		h("POST /api/memories/import", a.importMemories, access{perm: auth.PermAdmin, limiter: "admin"}),
		h("POST /api/memory/modify", a.modifyBatch, access{perm: auth.PermModify, limiter: "modify", scope: scopeBatch}),
		h("POST /api/memory/forget", a.forgetBatch, access{perm: auth.PermForget, limiter: "batchForget", scope: scopeBatch}),
		h("GET /api/memory/{id}", a.get, access{perm: auth.PermRecall, scope: scopeID}),
		h("PATCH /api/memory/{id}", a.patch, access{perm: auth.PermModify, limiter: "modify", scope: scopeIDWrite}),
		h("DELETE /api/memory/{id}", a.delete, access{perm: auth.PermForget, limiter: "forget", scope: scopeIDWrite}),
		a.memorySubroute(),
		h("POST /api/memory/{id}/recover", a.recover, access{perm: auth.PermRecover, scope: scopeIDWrite}),
		h("GET /api/history", a.history, access{perm: auth.PermDiagnostics, scope: scopeDenied}),

		// Agents: MCP and the hooks.
		{pattern: "/mcp", handler: a.mcpHandler(), access: access{perm: auth.PermRemember, scope: scopeDenied}},
		h("POST /api/hooks/session-start", a.hookSessionStart, access{perm: auth.PermRecall}),
		h("POST /api/hooks/user-prompt-submit", a.hookUserPrompt, access{perm: auth.PermRecall}),
		h("POST /api/hooks/recall", a.hookRecall, access{perm: auth.PermRecall}),
		h("POST /api/hooks/session-end", a.hookSessionEnd, access{perm: auth.PermRemember}),
		h("POST /api/hooks/remember", a.hookRemember, access{perm: auth.PermRemember}),
		h("POST /api/hooks/pre-compaction", a.hookPreCompaction, access{perm: auth.PermRemember}),
		h("POST /api/hooks/compaction-complete", a.hookCompactionComplete, access{perm: auth.PermRemember}),
		h("GET /api/sessions", a.listSessions, access{perm: auth.PermRecall}),
		h("GET /api/sessions/{key}", a.getSession, access{perm: auth.PermRecall}),

		// The pipeline: proposals, jobs, the graph.
		h("GET /api/proposals", a.listProposals, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("GET /api/proposals/{id}", a.getProposal, access{perm: auth.PermDiagnostics, scope: scopeDenied}),
		h("POST /api/proposals/{id}/approve", a.approveProposal, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("POST /api/proposals/{id}/reject", a.rejectProposal, access{perm: auth.PermModify, limiter: "modify", scope: scopeDenied}),
		h("GET /api/jobs", a.listJobs, access{perm: auth.PermDiagnostics}),
		h("GET /api/jobs/{id}", a.getJob, access{perm: auth.PermDocuments}),
		h("POST /api/jobs/{id}/retry", a.retryJob, access{perm: auth.PermAdmin, limiter: "admin"}),
		h("GET /api/pipeline/status", a.pipelineStatus, access{perm: auth.PermDiagnostics}),
		h("GET /api/graph/entities", a.graphEntities, access{perm: auth.PermRecall, scope: scopeDenied}),

		// Operations: repairs, maintenance, diagnostics, analytics.
		h("GET /api/repair", a.repairList, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("GET /api/repair/embedding-gaps", a.repairEmbeddingGaps, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("GET /api/repair/dedup-stats", a.repairDedupStats, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("POST /api/repair/{action}", a.repairRun, adminOnly),
		h("GET /api/maintenance", a.maintenance, access{perm: auth.PermAdmin, scope: scopeDenied}),
		h("POST /api/maintenance/run", a.runMaintenance, adminOnly),
		h("GET /api/diagnostics", a.diagnostics, access{perm: auth.PermDiagnostics}),
		h("GET /api/diagnostics/{domain}", a.diagnosticsDomain, access{perm: auth.PermDiagnostics}),
		h("GET /api/analytics/usage", a.analyticsUsage, access{perm: auth.PermAnalytics}),
		h("GET /api/analytics/errors", a.analyticsErrors, access{perm: auth.PermAnalytics}),
		h("GET /api/analytics/latency", a.analyticsLatency, access{perm: auth.PermAnalytics}),
		h("GET /api/analytics/latency/samples", a.analyticsLatencySamples, access{perm: auth.PermAnalytics}),

		// Documents (reference section 2.5).
		h("POST /api/documents", a.createDocument, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("GET /api/documents", a.listDocuments, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("GET /api/documents/{id}", a.getDocument, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("GET /api/documents/{id}/chunks", a.documentChunks, access{perm: auth.PermDocuments, scope: scopeDenied}),
		h("DELETE /api/documents/{id}", a.deleteDocument, access{perm: auth.PermDocuments, limiter: "forget", scope: scopeDenied}),
	}
}

// memorySubroute serves GET /api/memory/jobs/{id} and
// GET /api/memory/{id}/history: they overlap in the router's eyes (neither
// is more specific), so one pattern serves both and dispatches on the
// segments, and so does its access.
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
				return access{perm: auth.PermDocuments}
			case "history":
				return access{perm: auth.PermRecall, scope: scopeID}
			}
			return access{perm: permAnyRole}
		},
	}
}

// memorySub names the endpoint a GET /api/memory/{a}/{b} request is for
// ("jobs", "history", "recover" or "") and the id it names. It reads the
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
	case second == "history":
		return "history", first
	case second == "recover":
		return "recover", first
	}
	return "", ""
}

// register adds rt to the router. A route without a declared permission is
// a programming error: it panics at start-up rather than serve unguarded.
func (a *API) register(rt route) {
	if rt.access.perm == "" && rt.pick == nil {
		panic(fmt.Sprintf("httpapi: route %q declares no permission", rt.pattern))
	}
	if _, dup := a.routes[rt.pattern]; dup {
		panic(fmt.Sprintf("httpapi: route %q registered twice", rt.pattern))
	}
	a.mux.Handle(rt.pattern, rt.handler)
	a.routes[rt.pattern] = rt
}
