package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
)

// recordScopeDenied puts a request the auth gate refused for its token's
// scope (a 403; an out-of-scope read answers 404 and is not a refusal to
// report) in the error ring as MUTATION_SCOPE_DENIED.
func (a *API) recordScopeDenied(r *http.Request, sub string, e *core.Error) {
	if StatusOf(e.Code) != http.StatusForbidden {
		return
	}
	a.svc.RecordRefusal(analytics.CodeMutationScopeDenied, r.Method+" "+r.URL.Path+": "+e.Message,
		core.Actor{Name: sub, RequestID: r.Header.Get("X-Request-Id")}, "")
}
