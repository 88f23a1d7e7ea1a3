package core_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
)

func authMode(mode string) func(*config.Config) {
	return func(c *config.Config) { c.Auth.Mode = mode }
}

// secret returns the env's signing secret (created on first use).
func (e *env) secret(tb testing.TB) []byte {
	tb.Helper()
	s, err := auth.LoadOrCreateSecret(filepath.Join(filepath.Dir(e.db.Path()), "auth-secret"))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (e *env) token(tb testing.TB, role, project string) string {
	tb.Helper()
	t, err := auth.SignToken(e.secret(tb), auth.NewClaims(role, auth.TokenScope{Project: project}, time.Hour, e.clock.Now()))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func bearer(tok string) http.Header { return hdr("Authorization", "Bearer "+tok) }

func TestAuthTeamMode(t *testing.T) {
	e := newStoreEnv(t, authMode("team"))
	if h := e.get(t, "/health").want(t, 200); h.JSON["counts"] != nil || h.JSON["providers"] != nil || h.JSON["health"] == nil {
		t.Fatalf("team /health tells an anonymous caller what it holds: %s", h)
	}
	r := e.get(t, "/api/memories").wantErr(t, 401, auth.CodeUnauthorized)
	if r.Header.Get("WWW-Authenticate") != "Bearer" || r.str("error") != "authentication required" {
		t.Fatalf("401: %s %v", r, r.Header)
	}
	tok := e.token(t, "agent", "")
	for name, c := range map[string]struct {
		h    http.Header
		want string
	}{
		"malformed": {bearer("nonsense"), "malformed token"},
		"forged":    {bearer(strings.Split(tok, ".")[0] + ".AAAA"), "invalid signature"},
		"basic":     {hdr("Authorization", "Basic dTpw"), "authentication required: use Authorization: Bearer <token>"},
	} {
		r := e.do(t, "GET", "/api/memories", nil, c.h).wantErr(t, 401, auth.CodeUnauthorized)
		if r.str("error") != c.want {
			t.Errorf("%s: %s", name, r)
		}
	}
	// A valid token's subject becomes the actor.
	r = e.do(t, "POST", "/api/memory/remember", map[string]any{"content": "team memory one"}, bearer(tok)).want(t, 200)
	id := r.str("id")
	h := e.do(t, "GET", "/api/memory/"+id+"/history", nil, bearer(tok)).want(t, 200).list(t, "history")
	if len(h) == 0 || h[0]["changedBy"] != "token:agent" {
		t.Fatalf("actor: %v", h)
	}
	// Expiry against the service clock.
	e.clock.Advance(2 * time.Hour)
	e.do(t, "GET", "/api/memories", nil, bearer(tok)).wantErr(t, 401, auth.CodeUnauthorized)
	if r := e.do(t, "GET", "/api/memories", nil, bearer(tok)); r.str("error") != "token expired" {
		t.Fatalf("expired: %s", r)
	}
	// whoami
	tok = e.token(t, "readonly", "")
	r = e.do(t, "GET", "/api/auth/whoami", nil, bearer(tok)).want(t, 200)
	if !r.boolean("authenticated") || r.str("mode") != "team" || r.JSON["claims"].(map[string]any)["role"] != "readonly" {
		t.Fatalf("whoami: %s", r)
	}
	// hooks and MCP are guarded too
	e.post(t, "/api/hooks/remember", map[string]any{"content": "x"}).wantErr(t, 401, auth.CodeUnauthorized)
	e.post(t, "/api/hooks/session-start", map[string]any{}).wantErr(t, 401, auth.CodeUnauthorized)
	e.post(t, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).wantErr(t, 401, auth.CodeUnauthorized)
	e.do(t, "POST", "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, bearer(tok)).wantErr(t, 403, auth.CodeForbidden)
	e.do(t, "POST", "/api/hooks/remember", map[string]any{"content": "x"}, bearer(tok)).wantErr(t, 403, auth.CodeForbidden)
	agent := e.token(t, "agent", "")
	if r := e.do(t, "POST", "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, bearer(agent)); r.Status == 401 || r.Status == 403 {
		t.Fatalf("agent on /mcp: %s", r)
	}
}

func TestAuthPermissionMatrix(t *testing.T) {
	e := newStoreEnv(t, authMode("team"), func(c *config.Config) { c.Auth.RateAdmin = 1000 })
	id := e.mustIDAs(t, "matrix memory")
	routes := []struct {
		perm, method, path string
		body               any
	}{
		{"remember", "POST", "/api/memory/remember", map[string]any{"content": "matrix remember"}},
		{"recall", "GET", "/api/memories", nil},
		{"modify", "PATCH", "/api/memory/" + id, map[string]any{"importance": 0.5, "reason": "t"}},
		{"recover", "POST", "/api/memory/" + id + "/recover", map[string]any{}},
		{"forget", "DELETE", "/api/memory/nope", nil},
		{"documents", "GET", "/api/jobs/nope", nil},
		{"diagnostics", "GET", "/api/pipeline/status", nil},
		{"admin", "POST", "/api/auth/token", map[string]any{"role": "readonly"}},
	}
	for _, role := range auth.Roles {
		tok := e.token(t, role, "")
		for _, rt := range routes {
			r := e.do(t, rt.method, rt.path, rt.body, bearer(tok))
			if auth.RoleHas(role, rt.perm) {
				if r.Status == 401 || r.Status == 403 {
					t.Errorf("%s %s %s: %s", role, rt.method, rt.path, r)
				}
			} else {
				r.wantErr(t, 403, auth.CodeForbidden)
				if want := "role '" + role + "' lacks '" + rt.perm + "' permission"; r.str("error") != want {
					t.Errorf("%s: %q, want %q", rt.path, r.str("error"), want)
				}
			}
		}
	}
	// The issued token works.
	r := e.do(t, "POST", "/api/auth/token", map[string]any{"role": "agent", "scope": map[string]any{"project": "p"}, "ttlSeconds": 60}, bearer(e.token(t, "admin", ""))).want(t, 200)
	if r.str("expiresAt") == "" {
		t.Fatalf("token: %s", r)
	}
	w := e.do(t, "GET", "/api/auth/whoami", nil, bearer(r.str("token"))).want(t, 200)
	if c := w.JSON["claims"].(map[string]any); c["sub"] != "token:agent" || c["scope"].(map[string]any)["project"] != "p" {
		t.Fatalf("whoami: %s", w)
	}
	e.do(t, "POST", "/api/auth/token", map[string]any{"role": "god"}, bearer(e.token(t, "admin", ""))).wantErr(t, 400, core.CodeInvalidRequest)
}

// mustIDAs remembers content as an admin of a non-local env.
func (e *env) mustIDAs(tb testing.TB, content string, extra ...any) string {
	tb.Helper()
	body := map[string]any{"content": content}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	r := e.do(tb, "POST", "/api/memory/remember", body, bearer(e.token(tb, "admin", ""))).want(tb, 200)
	return r.str("id")
}

func TestAuthScope(t *testing.T) {
	e := newStoreEnv(t, authMode("team"))
	mine := e.mustIDAs(t, "alpha project fact about kettles", "project", "alpha")
	theirs := e.mustIDAs(t, "beta project fact about kettles", "project", "beta")
	tok := bearer(e.token(t, "agent", "alpha"))

	r := e.do(t, "GET", "/api/memories?project=beta", nil, tok).want(t, 200)
	if s := r.String(); !strings.Contains(s, mine) || strings.Contains(s, theirs) {
		t.Fatalf("list: %s", s)
	}
	r = e.do(t, "POST", "/api/memory/recall", map[string]any{"query": "kettles", "project": "beta"}, tok).want(t, 200)
	if s := r.String(); !strings.Contains(s, mine) || strings.Contains(s, theirs) {
		t.Fatalf("recall: %s", s)
	}
	r = e.do(t, "GET", "/api/memory/search?q=kettles", nil, tok).want(t, 200)
	if s := r.String(); strings.Contains(s, theirs) {
		t.Fatalf("search: %s", s)
	}
	e.do(t, "GET", "/api/memory/"+mine, nil, tok).want(t, 200)
	e.do(t, "GET", "/api/memory/"+theirs, nil, tok).wantErr(t, 404, core.CodeNotFound)
	e.do(t, "GET", "/api/memory/"+theirs+"/history", nil, tok).wantErr(t, 404, core.CodeNotFound)
	e.do(t, "PATCH", "/api/memory/"+theirs, map[string]any{"importance": 0.1, "reason": "x"}, tok).wantErr(t, 403, auth.CodeForbidden)
	e.do(t, "DELETE", "/api/memory/"+theirs, nil, tok).wantErr(t, 403, auth.CodeForbidden)
	e.do(t, "POST", "/api/memory/forget", map[string]any{"ids": []string{theirs}, "reason": "x"}, tok).wantErr(t, 403, auth.CodeForbidden)
	// A scoped remember lands in the token's project.
	r = e.do(t, "POST", "/api/memory/remember", map[string]any{"content": "sneaky write", "project": "beta"}, tok).want(t, 200)
	if r.str("project") != "alpha" {
		t.Fatalf("remember project: %s", r)
	}
	// An admin token is not narrowed.
	r = e.do(t, "GET", "/api/memories", nil, bearer(e.token(t, "admin", "alpha"))).want(t, 200)
	if !strings.Contains(r.String(), theirs) {
		t.Fatalf("admin list: %s", r)
	}
}

func TestAuthRateLimit(t *testing.T) {
	e := newStoreEnv(t, authMode("team"), func(c *config.Config) { c.Auth.RateForget = 2 })
	tok := bearer(e.token(t, "agent", ""))
	for range 2 {
		if r := e.do(t, "DELETE", "/api/memory/nope", nil, tok); r.Status == 429 {
			t.Fatalf("limited early: %s", r)
		}
	}
	e.clock.Advance(15 * time.Second)
	r := e.do(t, "DELETE", "/api/memory/nope", nil, tok).wantErr(t, 429, auth.CodeRateLimited)
	if r.Header.Get("Retry-After") != "45" {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// Another actor has its own window.
	if r := e.do(t, "DELETE", "/api/memory/nope", nil, bearer(e.token(t, "operator", ""))); r.Status == 429 {
		t.Fatalf("operator limited: %s", r)
	}
	e.clock.Advance(45 * time.Second)
	if r := e.do(t, "DELETE", "/api/memory/nope", nil, tok); r.Status == 429 {
		t.Fatalf("still limited after the window: %s", r)
	}
}

func TestAuthHybrid(t *testing.T) {
	e := newStoreEnv(t, authMode("hybrid"))
	serve := func(remote, host string, h http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/api/memories", nil)
		req.RemoteAddr = remote
		if host != "" {
			req.Host = host
		}
		for k, v := range h {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve("127.0.0.1:5555", "", nil); rec.Code != 200 {
		t.Fatalf("loopback v4: %d %s", rec.Code, rec.Body)
	}
	if rec := serve("[::1]:5555", "", nil); rec.Code != 200 {
		t.Fatalf("loopback v6: %d %s", rec.Code, rec.Body)
	}
	if rec := serve("203.0.113.9:5555", "", nil); rec.Code != 401 || rec.Header().Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("remote: %d %s", rec.Code, rec.Body)
	}
	if rec := serve("203.0.113.9:5555", "localhost", nil); rec.Code != 401 {
		t.Fatalf("spoofed Host: %d %s", rec.Code, rec.Body)
	}
	if rec := serve("203.0.113.9:5555", "127.0.0.1:3850", nil); rec.Code != 401 {
		t.Fatalf("spoofed Host: %d %s", rec.Code, rec.Body)
	}
	if rec := serve("203.0.113.9:5555", "", bearer(e.token(t, "readonly", ""))); rec.Code != 200 {
		t.Fatalf("remote with token: %d %s", rec.Code, rec.Body)
	}
	// A loopback caller that sends a token is judged by it.
	if rec := serve("127.0.0.1:5555", "", bearer("bad")); rec.Code != 401 {
		t.Fatalf("loopback bad token: %d %s", rec.Code, rec.Body)
	}
}

func TestAuthLocalModeOpen(t *testing.T) {
	e := newStoreEnv(t) // recorder RemoteAddr is not loopback; local mode does not care
	e.remember(t, "local mode memory")
	r := e.get(t, "/api/auth/whoami").want(t, 200)
	if r.boolean("authenticated") || r.str("mode") != "local" {
		t.Fatalf("whoami: %s", r)
	}
	e.post(t, "/api/auth/token", map[string]any{"role": "agent"}).wantErr(t, 400, core.CodeInvalidRequest)
}
