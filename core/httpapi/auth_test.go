package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
)

func TestAuthTeamMode(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("team"))
	if h := e.Get(t, "/health").Want(t, 200); h.JSON["counts"] != nil || h.JSON["providers"] != nil || h.JSON["health"] == nil {
		t.Fatalf("team /health tells an anonymous caller what it holds: %s", h)
	}
	r := e.Get(t, "/api/memories").WantErr(t, 401, auth.CodeUnauthorized)
	if r.Header.Get("WWW-Authenticate") != "Bearer" || r.Str("error") != "authentication required" {
		t.Fatalf("401: %s %v", r, r.Header)
	}
	tok := e.Token(t, "agent", "")
	for name, c := range map[string]struct {
		h    http.Header
		want string
	}{
		"malformed": {apitest.Bearer("nonsense"), "malformed token"},
		"forged":    {apitest.Bearer(strings.Split(tok, ".")[0] + ".AAAA"), "invalid signature"},
		"basic":     {apitest.Hdr("Authorization", "Basic dTpw"), "authentication required: use Authorization: Bearer <token>"},
	} {
		r := e.Do(t, "GET", "/api/memories", nil, c.h).WantErr(t, 401, auth.CodeUnauthorized)
		if r.Str("error") != c.want {
			t.Errorf("%s: %s", name, r)
		}
	}
	// A valid token's subject becomes the actor.
	r = e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "team memory one"}, apitest.Bearer(tok)).Want(t, 200)
	id := r.Str("id")
	h := e.Do(t, "GET", "/api/memory/"+id+"/history", nil, apitest.Bearer(tok)).Want(t, 200).List(t, "history")
	sub := e.Do(t, "GET", "/api/auth/whoami", nil, apitest.Bearer(tok)).Want(t, 200).JSON["claims"].(map[string]any)["sub"]
	if len(h) == 0 || h[0]["changedBy"] != sub || !strings.HasPrefix(sub.(string), "token:agent:") {
		t.Fatalf("actor: %v (sub %v)", h, sub)
	}
	// Expiry against the service clock.
	e.Clock.Advance(2 * time.Hour)
	e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(tok)).WantErr(t, 401, auth.CodeUnauthorized)
	if r := e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(tok)); r.Str("error") != "token expired" {
		t.Fatalf("expired: %s", r)
	}
	// whoami
	tok = e.Token(t, "readonly", "")
	r = e.Do(t, "GET", "/api/auth/whoami", nil, apitest.Bearer(tok)).Want(t, 200)
	if !r.Bool("authenticated") || r.Str("mode") != "team" || r.JSON["claims"].(map[string]any)["role"] != "readonly" {
		t.Fatalf("whoami: %s", r)
	}
	// hooks and MCP are guarded too
	e.Post(t, "/api/hooks/remember", map[string]any{"content": "x"}).WantErr(t, 401, auth.CodeUnauthorized)
	e.Post(t, "/api/hooks/session-start", map[string]any{}).WantErr(t, 401, auth.CodeUnauthorized)
	e.Post(t, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).WantErr(t, 401, auth.CodeUnauthorized)
	e.Do(t, "POST", "/api/hooks/remember", map[string]any{"content": "x"}, apitest.Bearer(tok)).WantErr(t, 403, auth.CodeForbidden)
	// /mcp lets a reader in (its writing tools refuse it: TestReadersLeaveNoTrace).
	for role, h := range map[string]http.Header{"readonly": apitest.Bearer(tok), "agent": apitest.Bearer(e.Token(t, "agent", ""))} {
		if r := e.Do(t, "POST", "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, h); r.Status == 401 || r.Status == 403 {
			t.Fatalf("%s on /mcp: %s", role, r)
		}
	}
}

func TestAuthPermissionMatrix(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("team"), func(c *config.Config) { c.Auth.RateAdmin = 1000 })
	id := e.MustIDAs(t, "matrix memory")
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
		tok := e.Token(t, role, "")
		for _, rt := range routes {
			r := e.Do(t, rt.method, rt.path, rt.body, apitest.Bearer(tok))
			if auth.RoleHas(role, rt.perm) {
				if r.Status == 401 || r.Status == 403 {
					t.Errorf("%s %s %s: %s", role, rt.method, rt.path, r)
				}
			} else {
				r.WantErr(t, 403, auth.CodeForbidden)
				if want := "role '" + role + "' lacks '" + rt.perm + "' permission"; r.Str("error") != want {
					t.Errorf("%s: %q, want %q", rt.path, r.Str("error"), want)
				}
			}
		}
	}
	// The issued token works.
	r := e.Do(t, "POST", "/api/auth/token", map[string]any{"role": "agent", "scope": map[string]any{"project": "p"}, "ttlSeconds": 60}, apitest.Bearer(e.Token(t, "admin", ""))).Want(t, 200)
	if r.Str("expiresAt") == "" {
		t.Fatalf("token: %s", r)
	}
	w := e.Do(t, "GET", "/api/auth/whoami", nil, apitest.Bearer(r.Str("token"))).Want(t, 200)
	if c := w.JSON["claims"].(map[string]any); c["sub"] != "token:agent:"+c["jti"].(string) || c["scope"].(map[string]any)["project"] != "p" {
		t.Fatalf("whoami: %s", w)
	}
	e.Do(t, "POST", "/api/auth/token", map[string]any{"role": "god"}, apitest.Bearer(e.Token(t, "admin", ""))).WantErr(t, 400, core.CodeInvalidRequest)
}

func TestAuthScope(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("team"))
	mine := e.MustIDAs(t, "alpha project fact about kettles", "project", "alpha")
	theirs := e.MustIDAs(t, "beta project fact about kettles", "project", "beta")
	tok := apitest.Bearer(e.Token(t, "agent", "alpha"))

	r := e.Do(t, "GET", "/api/memories?project=beta", nil, tok).Want(t, 200)
	if s := string(r.Raw); !strings.Contains(s, mine) || strings.Contains(s, theirs) {
		t.Fatalf("list: %s", s)
	}
	r = e.Do(t, "POST", "/api/memory/recall", map[string]any{"query": "kettles", "project": "beta"}, tok).Want(t, 200)
	if s := string(r.Raw); !strings.Contains(s, mine) || strings.Contains(s, theirs) {
		t.Fatalf("recall: %s", s)
	}
	r = e.Do(t, "GET", "/api/memory/search?q=kettles", nil, tok).Want(t, 200)
	if s := string(r.Raw); strings.Contains(s, theirs) {
		t.Fatalf("search: %s", s)
	}
	e.Do(t, "GET", "/api/memory/"+mine, nil, tok).Want(t, 200)
	e.Do(t, "GET", "/api/memory/"+theirs, nil, tok).WantErr(t, 404, core.CodeNotFound)
	e.Do(t, "GET", "/api/memory/"+theirs+"/history", nil, tok).WantErr(t, 404, core.CodeNotFound)
	e.Do(t, "PATCH", "/api/memory/"+theirs, map[string]any{"importance": 0.1, "reason": "x"}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "DELETE", "/api/memory/"+theirs, nil, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "POST", "/api/memory/forget", map[string]any{"ids": []string{theirs}, "reason": "x"}, tok).WantErr(t, 403, auth.CodeForbidden)
	// A scoped remember lands in the token's project.
	r = e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "sneaky write", "project": "beta"}, tok).Want(t, 200)
	if r.Str("project") != "alpha" {
		t.Fatalf("remember project: %s", r)
	}
	// An admin token is not narrowed.
	r = e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(e.Token(t, "admin", "alpha"))).Want(t, 200)
	if !strings.Contains(string(r.Raw), theirs) {
		t.Fatalf("admin list: %s", r)
	}
}

func TestAuthRateLimit(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("team"), func(c *config.Config) { c.Auth.RateForget = 2 })
	tok := apitest.Bearer(e.Token(t, "agent", ""))
	for range 2 {
		if r := e.Do(t, "DELETE", "/api/memory/nope", nil, tok); r.Status == 429 {
			t.Fatalf("limited early: %s", r)
		}
	}
	e.Clock.Advance(15 * time.Second)
	r := e.Do(t, "DELETE", "/api/memory/nope", nil, tok).WantErr(t, 429, auth.CodeRateLimited)
	if r.Header.Get("Retry-After") != "45" {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// Another actor has its own window.
	if r := e.Do(t, "DELETE", "/api/memory/nope", nil, apitest.Bearer(e.Token(t, "operator", ""))); r.Status == 429 {
		t.Fatalf("operator limited: %s", r)
	}
	e.Clock.Advance(45 * time.Second)
	if r := e.Do(t, "DELETE", "/api/memory/nope", nil, tok); r.Status == 429 {
		t.Fatalf("still limited after the window: %s", r)
	}
}

func TestAuthHybrid(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("hybrid"))
	serve := func(remote, host string, h http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/api/memories", nil)
		req.RemoteAddr = remote
		req.Host = "127.0.0.1:3850"
		if host != "" {
			req.Host = host
		}
		for k, v := range h {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		e.H.ServeHTTP(rec, req)
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
	if rec := serve("203.0.113.9:5555", "", apitest.Bearer(e.Token(t, "readonly", ""))); rec.Code != 200 {
		t.Fatalf("remote with token: %d %s", rec.Code, rec.Body)
	}
	// A loopback caller that sends a token is judged by it.
	if rec := serve("127.0.0.1:5555", "", apitest.Bearer("bad")); rec.Code != 401 {
		t.Fatalf("loopback bad token: %d %s", rec.Code, rec.Body)
	}
}

func TestAuthLocalModeOpen(t *testing.T) {
	e := apitest.NewStoreEnv(t) // recorder RemoteAddr is not loopback; local mode does not care
	e.Remember(t, "local mode memory")
	r := e.Get(t, "/api/auth/whoami").Want(t, 200)
	if r.Bool("authenticated") || r.Str("mode") != "local" {
		t.Fatalf("whoami: %s", r)
	}
	e.Post(t, "/api/auth/token", map[string]any{"role": "agent"}).WantErr(t, 400, core.CodeInvalidRequest)
}
