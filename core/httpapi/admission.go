package httpapi

import (
	"net/http"
	"strconv"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/httpapi/admission"
)

// CodeOverloaded is the answer to a request that found every turn taken
// for server.queue_timeout (core/httpapi/admission): nothing was done;
// retry after Retry-After.
const CodeOverloaded = "overloaded"

// writePerms are the permissions of the routes that take write turns.
var writePerms = map[string]bool{auth.PermRemember: true, auth.PermModify: true, auth.PermForget: true,
	auth.PermRecover: true, auth.PermDocuments: true, auth.PermConnectors: true}

// refuse answers 503 overloaded with Retry-After, for a request of perm.
func (a *API) refuse(w http.ResponseWriter, perm string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(admission.RetryAfter.Seconds())))
	writeError(w, &core.Error{Code: CodeOverloaded, Message: a.admit.Refusal(writePerms[perm])})
}
