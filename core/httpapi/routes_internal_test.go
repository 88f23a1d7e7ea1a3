package httpapi

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

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
