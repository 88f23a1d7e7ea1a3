package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

const (
	evilOrigin    = "https://evil.example"
	trustedOrigin = "https://dash.example.com"
)

// TestBrowserCrossOriginWritesRefused: a page on another site can send a
// text/plain POST without a preflight; the API must refuse it before it
// stores, forgets or mints anything.
func TestBrowserCrossOriginWritesRefused(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "a memory a web page would like to forget")
	before := e.State(t)
	plain := func(origin string) http.Header {
		h := apitest.Hdr("Content-Type", "text/plain;charset=UTF-8", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors")
		if origin != "" {
			h.Set("Origin", origin)
		}
		return h
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/memory/remember", `{"content":"planted by a web page","pinned":true}`},
		{"POST", "/api/memory/forget", `{"tags":"x","mode":"execute","force":true}`},
		{"PATCH", "/api/memory/" + id, `{"reason":"web","content":"rewritten by a web page"}`},
		{"DELETE", "/api/memory/" + id, `{"reason":"web","force":true}`},
		{"POST", "/api/hooks/session-end", `{"harness":"x","transcript_path":"/etc/passwd"}`},
		{"POST", "/api/memories/import", `{"content":"imported by a web page"}`},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	} {
		for _, origin := range []string{evilOrigin, "null"} {
			r := e.Do(t, c.method, c.path, c.body, plain(origin))
			r.WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
			if r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatalf("%s %s: a refused origin got CORS headers", c.method, c.path)
			}
		}
		// Without an Origin (a script or a rebound page's navigation),
		// the cross-site fetch metadata is enough to refuse.
		e.Do(t, c.method, c.path, c.body, plain("")).WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
		// And outside a browser a text/plain body is still not JSON.
		h := apitest.Hdr("Content-Type", "text/plain")
		e.Do(t, c.method, c.path, c.body, h).WantErr(t, http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedMediaType)
		h = apitest.Hdr("Content-Type", "application/x-www-form-urlencoded")
		e.Do(t, c.method, c.path, "content=x", h).WantErr(t, http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedMediaType)
	}
	// A cross-site GET (an <img> or a navigation) cannot export either.
	e.Do(t, "GET", "/api/memories/export", nil, apitest.Hdr("Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors")).
		WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	e.Do(t, "GET", "/api/memories", nil, apitest.Hdr("Origin", evilOrigin)).WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	e.Unchanged(t, before)

	// A page on another loopback port is as foreign as any site (issue
	// 29): a dev server's page may not write, nor read.
	e.Do(t, "POST", "/api/memory/remember", `{"content":"sent by a local page"}`,
		apitest.Hdr("Content-Type", "application/json; charset=utf-8", "Origin", "http://localhost:5173", "Sec-Fetch-Site", "same-site")).
		WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	e.Do(t, "GET", "/api/memories", nil, apitest.Hdr("Origin", "http://127.0.0.1:3850", "Sec-Fetch-Site", "same-origin")).
		WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	// JSON with a charset and same-site fetch metadata passes.
	r := e.Do(t, "POST", "/api/memory/remember", `{"content":"sent by a local tool"}`,
		apitest.Hdr("Content-Type", "application/json; charset=utf-8", "Sec-Fetch-Site", "same-site")).Want(t, 200)
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("a request without an origin got CORS headers: %v", r.Header)
	}
	// A write without a body needs no Content-Type.
	e.Do(t, "POST", "/api/memory/"+id+"/recover?reason=test", nil, nil).WantErr(t, http.StatusConflict, "not_deleted")
}

// TestBrowserHostChecked: with DNS rebinding a page's own name points at
// 127.0.0.1 and its requests are same-origin; the Host header gives it
// away, on every route.
func TestBrowserHostChecked(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, func(c *config.Config) { c.Server.AllowedHosts = []string{"cairn.lan"} })
	e.MustID(t, "a memory behind a rebound name")
	before := e.State(t)
	for _, host := range []string{"evil.example", "evil.example:3850", "localhost.evil.example", "127.0.0.1.nip.io:3850"} {
		h := apitest.Hdr("Host", host)
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/memories", nil},
			{"GET", "/api/memories/export", nil},
			{"GET", "/api/sessions", nil},
			{"GET", "/health", nil},
			{"POST", "/api/memory/remember", map[string]any{"content": "planted through a rebound name", "pinned": true}},
			{"POST", "/api/memory/recall", map[string]any{"query": "memory"}},
			{"POST", "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}},
		} {
			r := e.Do(t, c.method, c.path, c.body, h)
			r.WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenHost)
			if !strings.Contains(r.Str("error"), "server.allowed_hosts") {
				t.Fatalf("the refusal does not say how to allow a host: %s", r)
			}
		}
	}
	e.Unchanged(t, before)
	for _, host := range []string{"localhost:3850", "LOCALHOST", "127.0.0.1", "[::1]:3850", "10.0.0.5:3850", "cairn.lan:3850", "cairn.lan"} {
		e.Do(t, "GET", "/api/memories", nil, apitest.Hdr("Host", host)).Want(t, 200)
	}
}

// TestBrowserTrustedOrigin: an origin listed in server.allowed_origins is
// answered with CORS headers, its preflight included.
func TestBrowserTrustedOrigin(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, func(c *config.Config) { c.Server.AllowedOrigins = []string{"https://Dash.Example.com"} })
	pre := e.Do(t, "OPTIONS", "/api/memory/remember", nil, apitest.Hdr("Origin", trustedOrigin,
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type"))
	if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != trustedOrigin ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Fatalf("preflight: %d %v", pre.Status, pre.Header)
	}
	r := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "sent by the trusted dashboard"},
		apitest.Hdr("Origin", trustedOrigin, "Sec-Fetch-Site", "cross-site")).Want(t, 200)
	if r.Header.Get("Access-Control-Allow-Origin") != trustedOrigin {
		t.Fatalf("no CORS header for a trusted origin: %v", r.Header)
	}
	// Trust is for that origin only.
	e.Do(t, "OPTIONS", "/api/memory/remember", nil, apitest.Hdr("Origin", "https://dash.example.com.evil.example",
		"Access-Control-Request-Method", "POST")).WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "x"}, apitest.Hdr("Origin", "http://dash.example.com")).
		WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
}

// TestHybridBrowserIsNotLocalAdmin: in hybrid mode a loopback connection
// is the owner, but not when a browser makes it: a trusted page cannot
// mint a token, list or forget without one.
func TestHybridBrowserIsNotLocalAdmin(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.AuthMode(auth.ModeHybrid),
		func(c *config.Config) { c.Server.AllowedOrigins = []string{trustedOrigin} })
	mint := map[string]any{"role": "admin", "ttlSeconds": 365 * 24 * 3600}
	// A page on another loopback port is refused before auth.
	e.Do(t, "POST", "/api/auth/token", mint, apitest.Hdr("Origin", "http://localhost:8080")).WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
	for _, h := range []http.Header{
		apitest.Hdr("Origin", trustedOrigin),
		apitest.Hdr("Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "cors"),
		apitest.Hdr("Sec-Fetch-Dest", "empty"),
	} {
		r := e.Do(t, "POST", "/api/auth/token", mint, h).WantErr(t, http.StatusUnauthorized, auth.CodeUnauthorized)
		if r.Str("token") != "" {
			t.Fatalf("a browser request minted a token: %s", r)
		}
		e.Do(t, "GET", "/api/memories", nil, h).WantErr(t, http.StatusUnauthorized, auth.CodeUnauthorized)
		e.Do(t, "POST", "/api/memory/forget", map[string]any{"tags": "x"}, h).WantErr(t, http.StatusUnauthorized, auth.CodeUnauthorized)
	}
	// The same connection without browser headers is the local owner.
	if r := e.Do(t, "POST", "/api/auth/token", mint, nil).Want(t, 200); r.Str("token") == "" {
		t.Fatalf("local owner got no token: %s", r)
	}
	// A browser with a token is judged by the token.
	e.Do(t, "GET", "/api/memories", nil, apitest.Hdr("Origin", trustedOrigin, "Authorization", "Bearer "+e.Token(t, "readonly", ""))).Want(t, 200)
}
