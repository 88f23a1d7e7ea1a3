package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

func TestRegisterRefusesRouteWithoutPermission(t *testing.T) {
	a := &API{mux: http.NewServeMux(), routes: map[string]route{}}
	defer func() {
		if recover() == nil {
			t.Fatal("a route without a permission was registered")
		}
		if _, ok := a.routes["GET /open"]; ok {
			t.Fatal("the refused route is in the table")
		}
	}()
	a.register(route{pattern: "GET /open", handler: http.NotFoundHandler()})
}

// TestRouteTableAccess checks every route's permission is one the roles
// know (a typo would close a route to everyone, or open it) and that the
// router and the auth gate see the same table.
func TestRouteTableAccess(t *testing.T) {
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "m.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := NewAPI(app.New(db, config.DefaultConfig(), app.Options{}), "test", "")
	table := a.routeTable()
	if len(a.routes) != len(table) {
		t.Fatalf("%d routes registered, %d in the table", len(a.routes), len(table))
	}
	known := func(p string) bool { return p == permPublic || p == permAnyRole || auth.RoleHas("admin", p) }
	for _, rt := range table {
		if rt.pick != nil {
			continue
		}
		if !known(rt.access.perm) {
			t.Errorf("%s: unknown permission %q", rt.pattern, rt.access.perm)
		}
		if rt.access.perm == permPublic && rt.pattern != "GET /health" {
			t.Errorf("%s is public", rt.pattern)
		}
	}
	// The one pattern that serves two endpoints gives each its own access,
	// also when an id hides a slash (the router reads escaped segments).
	for path, want := range map[string]access{
		"/api/memory/jobs/x":        {perm: auth.PermDocuments, scope: scopeJob},
		"/api/memory/x/history":     {perm: auth.PermRecall, scope: scopeMemory},
		"/api/memory/a%2Fb/history": {perm: auth.PermRecall, scope: scopeMemory},
		"/api/memory/x/stamp":       {perm: auth.PermRecall, scope: scopeMemory},
		"/api/memory/x/other":       {perm: permAnyRole, scope: scopeGlobal},
	} {
		r, _ := http.NewRequest("GET", path, nil)
		_, pattern := a.mux.Handler(r)
		rt := a.routes[pattern]
		if pattern != "GET /api/memory/{a}/{b}" || rt.pick == nil || rt.pick(r) != want {
			t.Errorf("%s: pattern %q, want %+v", path, pattern, want)
		}
	}
}

// TestDebugRoutes: the profiler has a table of its own, declared and
// registered like the API's (an admin's routes, refused to scoped tokens),
// served only by DebugHandler: never by the API's handler, in local mode
// to anyone (the listener is loopback only), in team mode to an admin.
func TestDebugRoutes(t *testing.T) {
	for _, mode := range []string{auth.ModeLocal, auth.ModeTeam} {
		t.Run(mode, func(t *testing.T) {
			db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "m.db"), NoBackup: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			cfg := config.DefaultConfig()
			cfg.Auth.Mode = mode
			a := NewAPI(app.New(db, cfg, app.Options{}), "test", "")
			table := a.debugRouteTable()
			if len(table) == 0 || len(a.debug.routes) != len(table) {
				t.Fatalf("%d debug routes registered, %d in the table", len(a.debug.routes), len(table))
			}
			for _, rt := range table {
				if rt.access != (access{perm: auth.PermAdmin, scope: scopeDenied}) {
					t.Errorf("%s: %+v", rt.pattern, rt.access)
				}
				if _, ok := a.routes[rt.pattern]; ok {
					t.Errorf("%s is in the API's table", rt.pattern)
				}
			}
			get := func(h http.Handler, tok string) *httptest.ResponseRecorder {
				r := httptest.NewRequest("GET", "/debug/pprof/goroutine?debug=1", nil)
				r.RemoteAddr, r.Host = "127.0.0.1:40000", "127.0.0.1:6060"
				if tok != "" {
					r.Header.Set("Authorization", "Bearer "+tok)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			if w := get(a.Handler(), ""); w.Code == http.StatusOK || strings.Contains(w.Body.String(), "goroutine profile") {
				t.Fatalf("the API's handler served the profiler: %d", w.Code)
			}
			w := get(a.DebugHandler(), "")
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("the profiler's answer has no nosniff: %v", w.Header())
			}
			// The profiler checks Host and Origin as the API does (issue
			// 29): a rebound name, a web page, another local page.
			for _, h := range [][2]string{{"Host", "evil.example:6060"}, {"Origin", "https://evil.example"},
				{"Origin", "http://localhost:8000"}, {"Sec-Fetch-Site", "cross-site"}} {
				r := httptest.NewRequest("GET", "/debug/pprof/goroutine?debug=1", nil)
				r.RemoteAddr, r.Host = "127.0.0.1:40000", "127.0.0.1:6060"
				if h[0] == "Host" {
					r.Host = h[1]
				} else {
					r.Header.Set(h[0], h[1])
				}
				rec := httptest.NewRecorder()
				a.DebugHandler().ServeHTTP(rec, r)
				if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "goroutine profile") {
					t.Errorf("%s: %s: %d %.100s", mode, h, rec.Code, rec.Body)
				}
			}
			if mode == auth.ModeLocal {
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "goroutine profile") {
					t.Fatalf("local mode: %d %.200s", w.Code, w.Body)
				}
				return
			}
			if w.Code != http.StatusUnauthorized {
				t.Fatalf("team mode without a token: %d", w.Code)
			}
			secret, err := auth.LoadOrCreateSecret(filepath.Join(filepath.Dir(db.Path()), "auth-secret"))
			if err != nil {
				t.Fatal(err)
			}
			for role, want := range map[string]int{"agent": http.StatusForbidden, "admin": http.StatusOK} {
				tok, err := auth.SignToken(secret, auth.NewClaims(role, auth.TokenScope{}, time.Hour, time.Now()))
				if err != nil {
					t.Fatal(err)
				}
				if w := get(a.DebugHandler(), tok); w.Code != want {
					t.Errorf("team mode, %s token: %d, want %d", role, w.Code, want)
				}
			}
		})
	}
}
