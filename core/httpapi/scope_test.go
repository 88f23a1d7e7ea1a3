package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The scope tests share one setup: project alpha is the token's, project
// beta is someone else's. Everything of beta carries betaMarker, so a
// leak is a response that contains it.
const (
	projA      = "alpha"
	projB      = "beta"
	betaMarker = "BETAMARKER"
	betaKey    = "session-of-beta"
)

type scopeFixture struct {
	e        *apitest.Env
	memA     string // a memory of alpha
	memB     string // a memory of beta
	jobB     string // the extraction job of memB
	sessJobB string // the transcript extraction job of beta's session
	jobA     string
	admin    http.Header
}

func newScopeFixture(t testing.TB, mode string, mods ...func(*config.Config)) *scopeFixture {
	t.Helper()
	mods = append([]func(*config.Config){apitest.AuthMode(mode), func(c *config.Config) {
		c.Auth.RateAdmin, c.Auth.RateForget, c.Auth.RateModify, c.Auth.RateBatchForget = 10000, 10000, 10000, 10000
	}}, mods...)
	e := apitest.NewStoreEnv(t, mods...) // recorder requests come from 192.0.2.1: never loopback
	f := &scopeFixture{e: e, admin: apitest.Bearer(e.Token(t, "admin", ""))}
	f.memA = e.MustIDAs(t, "alpha keeps its kettles in the shed", "project", projA)
	f.memB = e.MustIDAs(t, betaMarker+" beta keeps its kettles in the vault", "project", projB, "session_id", betaKey)
	e.Do(t, "POST", "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projB, "session_key": betaKey}, f.admin).Want(t, 200)
	r := e.Do(t, "POST", "/api/hooks/session-end", map[string]any{"harness": "claude-code", "project": projB, "session_key": betaKey,
		"transcript": "User: where are the kettles?\nAssistant: " + betaMarker + " in the vault"}, f.admin).Want(t, 200)
	f.sessJobB = r.Str("jobId")
	f.jobB = f.jobOf(t, f.memB)
	f.jobA = f.jobOf(t, f.memA)
	if f.sessJobB == "" || f.jobB == "" || f.jobA == "" {
		t.Fatalf("fixture jobs: %q %q %q", f.sessJobB, f.jobB, f.jobA)
	}
	return f
}

func (f *scopeFixture) jobOf(t testing.TB, memID string) string {
	t.Helper()
	var id string
	if err := f.e.RO.QueryRow(`SELECT id FROM memory_jobs WHERE memory_id = ? ORDER BY created_at LIMIT 1`, memID).Scan(&id); err != nil {
		t.Fatalf("job of %s: %v", memID, err)
	}
	return id
}

// betaState is everything of beta a request of alpha's token must leave
// as it was.
func (f *scopeFixture) betaState(t testing.TB) string {
	t.Helper()
	var mems, sess, tr string
	var inj int
	q := f.e.RO
	if err := q.QueryRow(`SELECT COALESCE(string_agg(d, ';' ORDER BY r), '') FROM (SELECT rid AS r, id || ':' || version || ':' || is_deleted || ':' ||
		COALESCE(project, '') || ':' || COALESCE(who, '') || ':' || importance || ':' || content_hash AS d FROM memories
		WHERE COALESCE(project, '') = ? OR id = ?) s`, projB, f.memB).Scan(&mems); err != nil {
		t.Fatal(err)
	}
	if err := q.QueryRow(`SELECT key || ':' || harness || ':' || COALESCE(project, '') || ':' || COALESCE(ended_at, '') || ':' ||
		prompt_count FROM sessions WHERE key = ?`, betaKey).Scan(&sess); err != nil {
		t.Fatal(err)
	}
	if err := q.QueryRow(`SELECT content || ':' || created_at FROM session_transcripts WHERE session_key = ?`, betaKey).Scan(&tr); err != nil {
		t.Fatal(err)
	}
	if err := q.QueryRow(`SELECT count(*) FROM session_injections WHERE session_key = ?`, betaKey).Scan(&inj); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("memories=%s session=%s transcript=%s injections=%d", mems, sess, tr, inj)
}

func scopeDenials(e *apitest.Env) int {
	_, summary := e.Svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageMutation})
	return summary[analytics.CodeMutationScopeDenied]
}

// A probe is one request of alpha's token against something of beta.
type probe struct {
	method, path string
	body         any
	// refuse: the answer is 403 or 404. Otherwise the request is confined:
	// it may succeed, within alpha.
	refuse bool
}

func rpcToolCall(tool string, args map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
}

// probes are, by route pattern, the requests the matrix sends. Every route
// of the table must have at least one: a new route fails the matrix until
// someone decides how a scoped token is confined on it.
func (f *scopeFixture) probes() map[string][]probe {
	b, hookB := f.memB, map[string]any{"harness": "claude-code", "project": projB, "session_key": betaKey}
	hook := func(extra map[string]any) []probe {
		foreign, fresh := map[string]any{}, map[string]any{"harness": "claude-code", "project": projB, "session_key": "fresh-of-alpha"}
		for k, v := range hookB {
			foreign[k] = v
		}
		for k, v := range extra {
			foreign[k], fresh[k] = v, v
		}
		return []probe{{body: foreign, refuse: true}, {body: fresh}}
	}
	return map[string][]probe{
		"GET /health":                          {{path: "/health"}},
		"GET /api/status":                      {{path: "/api/status"}},
		"POST /api/auth/token":                 {{body: map[string]any{"role": "operator", "scope": map[string]any{"project": projB}}, refuse: true}},
		"GET /api/auth/whoami":                 {{path: "/api/auth/whoami"}},
		"POST /api/memory/remember":            {{body: map[string]any{"content": "probe remember lands in alpha", "project": projB}}},
		"POST /api/memory/save":                {{body: map[string]any{"content": "probe save lands in alpha", "project": projB}}},
		"POST /api/memory/recall":              {{body: map[string]any{"query": "kettles vault", "project": projB}}, {body: map[string]any{"query": "kettles", "expand": true}, refuse: true}},
		"GET /api/memory/search":               {{path: "/api/memory/search?q=kettles+vault&project=" + projB}, {path: "/api/memory/search?q=kettles&projects=" + projB}},
		"GET /memory/search":                   {{path: "/memory/search?q=kettles+vault&project=" + projB}},
		"GET /memory/similar":                  {{path: "/memory/similar?id=" + b, refuse: true}},
		"GET /api/embeddings":                  {{path: "/api/embeddings", refuse: true}},
		"GET /api/embeddings/status":           {{path: "/api/embeddings/status"}},
		"GET /api/memories":                    {{path: "/api/memories?project=" + projB}, {path: "/api/memories?include_deleted=true"}},
		"GET /api/memories/export":             {{path: "/api/memories/export?project=" + projB}},
		"POST /api/memories/import":            {{body: apitest.RawBody(`{"id":"` + b + `","content":"overwritten","project":"beta"}` + "\n"), refuse: true}},
		"GET /api/memories/projects":           {{path: "/api/memories/projects?project=" + projB}, {path: "/api/memories/projects"}},
		"POST /api/memories/import/signet":     {{body: map[string]any{"path": "/nonexistent/memories.db"}, refuse: true}},
		"POST /api/memory/modify":              {{body: map[string]any{"reason": "probe", "patches": []any{map[string]any{"id": b, "importance": 0.11}}}, refuse: true}, {body: map[string]any{"reason": "probe", "patches": []any{map[string]any{"id": f.memA, "project": projB}}}, refuse: true}},
		"POST /api/memory/forget":              {{body: map[string]any{"reason": "probe", "ids": []string{b}}, refuse: true}, {body: map[string]any{"reason": "probe", "mode": "preview", "project": projB, "query": "vault"}}, {body: map[string]any{"reason": "probe", "mode": "execute", "project": projB, "query": "vault", "confirm_token": "x"}}},
		"GET /api/memory/{id}":                 {{path: "/api/memory/" + b, refuse: true}},
		"PATCH /api/memory/{id}":               {{path: "/api/memory/" + b, body: map[string]any{"reason": "probe", "importance": 0.11}, refuse: true}, {path: "/api/memory/" + f.memA, body: map[string]any{"reason": "probe", "project": projB}, refuse: true}},
		"DELETE /api/memory/{id}":              {{path: "/api/memory/" + b + "?reason=probe", refuse: true}},
		"GET /api/memory/{a}/{b}":              {{path: "/api/memory/" + b + "/history", refuse: true}, {path: "/api/memory/jobs/" + f.jobB, refuse: true}, {path: "/api/memory/jobs/" + f.sessJobB, refuse: true}},
		"POST /api/memory/{id}/recover":        {{path: "/api/memory/" + b + "/recover", body: map[string]any{"reason": "probe"}, refuse: true}},
		"GET /api/history":                     {{path: "/api/history?memory_id=" + b, refuse: true}},
		"/mcp":                                 f.mcpProbes(),
		"POST /api/hooks/session-start":        hook(nil),
		"POST /api/hooks/user-prompt-submit":   hook(map[string]any{"prompt": "where are the kettles kept in the vault"}),
		"POST /api/hooks/recall":               hook(map[string]any{"query": "kettles vault"}),
		"POST /api/hooks/session-end":          hook(map[string]any{"transcript": "User: overwrite beta's transcript"}),
		"POST /api/hooks/session-transcript":   hook(map[string]any{"transcript": "User: overwrite beta's transcript"}),
		"POST /api/hooks/remember":             hook(map[string]any{"content": "hook probe lands in alpha"}),
		"POST /api/hooks/pre-compaction":       hook(map[string]any{"transcript": "User: overwrite beta's transcript"}),
		"POST /api/hooks/compaction-complete":  hook(map[string]any{"summary": "compaction probe lands in alpha"}),
		"GET /api/sessions":                    {{path: "/api/sessions?project=" + projB}},
		"GET /api/sessions/{key}":              {{path: "/api/sessions/" + betaKey, refuse: true}},
		"POST /api/sessions/{key}/checkpoints": {{path: "/api/sessions/" + betaKey + "/checkpoints", body: map[string]any{"note": "probe"}, refuse: true}},
		"GET /api/proposals":                   {{path: "/api/proposals", refuse: true}},
		"GET /api/proposals/{id}":              {{path: "/api/proposals/x", refuse: true}},
		"POST /api/proposals/{id}/approve":     {{path: "/api/proposals/x/approve", body: map[string]any{"reason": "probe"}, refuse: true}},
		"POST /api/proposals/{id}/reject":      {{path: "/api/proposals/x/reject", body: map[string]any{"reason": "probe"}, refuse: true}},
		"POST /api/proposals/{id}/reopen":      {{path: "/api/proposals/x/reopen", body: map[string]any{"reason": "probe"}, refuse: true}},
		"GET /api/jobs":                        {{path: "/api/jobs?memory_id=" + b, refuse: true}},
		"GET /api/jobs/{id}":                   {{path: "/api/jobs/" + f.jobB, refuse: true}, {path: "/api/jobs/" + f.sessJobB, refuse: true}},
		"POST /api/jobs/{id}/retry":            {{path: "/api/jobs/" + f.jobB + "/retry", refuse: true}},
		"GET /api/pipeline/status":             {{path: "/api/pipeline/status", refuse: true}},
		"GET /api/learned":                     {{path: "/api/learned", refuse: true}},
		"POST /api/learned/review":             {{path: "/api/learned/review", body: map[string]any{"seenThrough": "2026-03-01T12:00:00.000Z"}, refuse: true}},
		"GET /api/graph/entities":              {{path: "/api/graph/entities?q=kettle", refuse: true}},
		"GET /api/graph/entities/{id}":         {{path: "/api/graph/entities/x?project=" + projB, refuse: true}},
		"GET /api/repair":                      {{path: "/api/repair", refuse: true}},
		"GET /api/repair/embedding-gaps":       {{path: "/api/repair/embedding-gaps", refuse: true}},
		"GET /api/repair/dedup-stats":          {{path: "/api/repair/dedup-stats", refuse: true}},
		"POST /api/repair/{action}":            {{path: "/api/repair/requeue-dead", body: map[string]any{}, refuse: true}},
		"GET /api/maintenance":                 {{path: "/api/maintenance", refuse: true}},
		"POST /api/maintenance/run":            {{body: map[string]any{}, refuse: true}},
		"GET /api/diagnostics":                 {{path: "/api/diagnostics", refuse: true}},
		"GET /api/diagnostics/{domain}":        {{path: "/api/diagnostics/queue", refuse: true}},
		"GET /api/analytics/usage":             {{path: "/api/analytics/usage", refuse: true}},
		"GET /api/analytics/errors":            {{path: "/api/analytics/errors", refuse: true}},
		"GET /api/analytics/latency":           {{path: "/api/analytics/latency", refuse: true}},
		"GET /api/analytics/latency/samples":   {{path: "/api/analytics/latency/samples?op=recall", refuse: true}},
		"POST /api/documents":                  {{body: map[string]any{"source_type": "text", "content": "probe document", "title": "probe"}, refuse: true}},
		"GET /api/documents":                   {{path: "/api/documents", refuse: true}},
		"GET /api/documents/{id}":              {{path: "/api/documents/x", refuse: true}},
		"GET /api/documents/{id}/chunks":       {{path: "/api/documents/x/chunks", refuse: true}},
		"DELETE /api/documents/{id}":           {{path: "/api/documents/x", refuse: true}},
		"GET /api/connectors":                  {{path: "/api/connectors", refuse: true}},
		"POST /api/connectors":                 {{body: map[string]any{"provider": "filesystem", "root": "/etc"}, refuse: true}},
		"GET /api/connectors/{id}":             {{path: "/api/connectors/x", refuse: true}},
		"POST /api/connectors/{id}/sync":       {{path: "/api/connectors/x/sync", body: map[string]any{}, refuse: true}},
		"DELETE /api/connectors/{id}":          {{path: "/api/connectors/x", refuse: true}},
	}
}

func (f *scopeFixture) mcpProbes() []probe {
	b := f.memB
	return []probe{
		{body: rpcToolCall("memory_get", map[string]any{"id": b})},
		{body: rpcToolCall("memory_search", map[string]any{"query": "kettles vault", "project": projB})},
		{body: rpcToolCall("memory_list", map[string]any{"project": projB})},
		{body: rpcToolCall("memory_store", map[string]any{"content": "mcp probe lands in alpha", "project": projB})},
		{body: rpcToolCall("memory_modify", map[string]any{"id": b, "reason": "probe", "importance": 0.11})},
		{body: rpcToolCall("memory_forget", map[string]any{"id": b, "reason": "probe"})},
	}
}

// globalRoutes are the routes that hold nothing of any project; the
// matrix refuses a route declared global that is not listed here.
var globalRoutes = map[string]bool{
	"GET /health": true, "GET /api/status": true, "GET /api/auth/whoami": true, "GET /api/embeddings/status": true,
}

// TestScopeMatrix sends, for every route of the route table, requests of a
// token scoped to project alpha against what belongs to project beta, in
// team mode and in hybrid mode from a non-loopback client. Each must be
// refused (403 or 404, recorded as MUTATION_SCOPE_DENIED) or confined to
// alpha; none may answer with anything of beta or change it.
func TestScopeMatrix(t *testing.T) {
	routes := httpapi.NewRoutes(t)
	for _, mode := range []string{auth.ModeTeam, auth.ModeHybrid} {
		t.Run(mode, func(t *testing.T) {
			f := newScopeFixture(t, mode)
			e := f.e
			tok := apitest.Bearer(e.Token(t, "operator", projA))
			tok.Set("Accept", "application/json, text/event-stream")
			probes := f.probes()
			for _, rt := range routes.Table() {
				ps := probes[rt.Pattern]
				if len(ps) == 0 {
					t.Errorf("route %q has no scope probe: add one to TestScopeMatrix", rt.Pattern)
					continue
				}
				delete(probes, rt.Pattern)
				if rt.Scope == "global" && !globalRoutes[rt.Pattern] {
					t.Errorf("route %q is declared global (open to every scoped token): list it in globalRoutes only if it holds no project's data", rt.Pattern)
				}
				method, path, _ := strings.Cut(rt.Pattern, " ")
				if path == "" {
					method, path = "POST", method
				}
				for _, p := range ps {
					pm, pp := method, path
					if p.method != "" {
						pm = p.method
					}
					if p.path != "" {
						pp = p.path
					}
					if pattern, _ := routes.ScopeOf(pm, pp); pattern != rt.Pattern {
						t.Fatalf("probe %s %s reaches %q, not %q", pm, pp, pattern, rt.Pattern)
					}
					f.run(t, tok, rt.Pattern, pm, pp, p)
				}
			}
			for pattern := range probes {
				t.Errorf("probe for %q, which is not in the route table", pattern)
			}
		})
	}
}

func (f *scopeFixture) run(t *testing.T, tok http.Header, pattern, method, path string, p probe) {
	t.Helper()
	e := f.e
	before, denials := f.betaState(t), scopeDenials(e)
	r := e.Do(t, method, path, p.body, tok)
	what := fmt.Sprintf("%s %s %v", method, path, p.body)
	if strings.Contains(string(r.Raw), betaMarker) {
		t.Errorf("%s: answer holds beta's content: %s", what, r)
	}
	if after := f.betaState(t); after != before {
		t.Errorf("%s changed beta:\nbefore %s\nafter  %s", what, before, after)
	}
	if r.Status >= 500 {
		t.Errorf("%s: %s", what, r)
	}
	if !p.refuse {
		if pattern != "/mcp" && (strings.Contains(string(r.Raw), f.memB) || strings.Contains(string(r.Raw), betaKey)) {
			t.Errorf("%s: answer names beta's memory or session: %s", what, r)
		}
		if r.Status == 403 || r.Status == 401 {
			t.Errorf("%s: a confined request was refused: %s", what, r)
		}
		return
	}
	if r.Status != 403 && r.Status != 404 {
		t.Errorf("%s: status %d, want 403 or 404: %s", what, r.Status, r)
		return
	}
	if code := r.Str("code"); code != auth.CodeForbidden && code != "not_found" {
		t.Errorf("%s: code %q: %s", what, code, r)
	}
	// A refusal for the scope (not for the role's permissions) is in the
	// error ring.
	if !strings.Contains(r.Str("error"), "lacks") && scopeDenials(e) <= denials {
		t.Errorf("%s: refusal not recorded as %s: %s", what, analytics.CodeMutationScopeDenied, r)
	}
}

// TestScopeRouteDeclarations: every route says how a scoped token is
// confined on it, and the routes that hold no project's data are few.
func TestScopeRouteDeclarations(t *testing.T) {
	routes := httpapi.NewRoutes(t)
	for _, rt := range routes.Table() {
		if rt.Scope == "" && rt.Pattern != "GET /api/memory/{a}/{b}" {
			t.Errorf("%s declares no scope", rt.Pattern)
		}
	}
	for path, want := range map[string]string{
		"/api/memory/x/history": "memory",
		"/api/memory/jobs/x":    "job",
		"/api/memory/x/other":   "global",
	} {
		if _, got := routes.ScopeOf("GET", path); got != want {
			t.Errorf("GET %s: scope %q, want %q", path, got, want)
		}
	}
}
