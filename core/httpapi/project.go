package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/project"
)

// resolveProject gives a project a request names the identity hooks and
// the CLI give it (core/project): a config name or alias, or the display
// name of a known repository root, becomes that root; a path stays as it
// is; an ambiguous name is an error naming the candidates. A caller whose
// token is scoped to a project keeps the project as given (the scope
// check compared exactly that). Strings only: nothing on disk is looked
// at.
func (a *API) resolveProject(r *http.Request, p *string) *core.Error {
	if *p == "" || project.IsPath(*p) {
		return nil // a path names its identity itself
	}
	if info := authFrom(r.Context()); info.authenticated && info.claims.Scoped() && info.claims.Scope.Project != "" {
		return nil
	}
	id, err := a.app.Hooks.ResolveProject(r.Context(), *p)
	if err != nil {
		return core.AsError(err)
	}
	*p = id
	return nil
}
