package httpapi

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// Routes exposes the route table to the external scope tests.
type Routes struct{ a *API }

// RouteScope is what a route declares.
type RouteScope struct {
	Pattern string
	Perm    string // "" for a route that picks its access per request
	Scope   string // "" for a route that picks its access per request
}

// NewRoutes builds an API over a throwaway store to read its routes.
func NewRoutes(tb testing.TB) Routes {
	tb.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(tb.TempDir(), "routes.db"), NoBackup: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return Routes{NewAPI(app.New(db, config.DefaultConfig(), app.Options{}), "test", "")}
}

// Table lists the route table.
func (rs Routes) Table() []RouteScope {
	var out []RouteScope
	for _, rt := range rs.a.routeTable() {
		r := RouteScope{Pattern: rt.pattern}
		if rt.pick == nil {
			r.Perm, r.Scope = rt.access.perm, rt.access.scope.String()
		}
		out = append(out, r)
	}
	return out
}

// ScopeOf names the route serving method and path and the scope it
// declares for that request.
func (rs Routes) ScopeOf(method, path string) (pattern, scope string) {
	r, _ := http.NewRequest(method, path, nil)
	_, pattern = rs.a.mux.Handler(r)
	rt, ok := rs.a.routes[pattern]
	switch {
	case !ok:
		return pattern, ""
	case rt.pick != nil:
		return pattern, rt.pick(r).scope.String()
	}
	return pattern, rt.access.scope.String()
}
