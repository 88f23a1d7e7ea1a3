package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
)

// CodeOverloaded is the answer to a request that found every turn taken
// for server.queue_timeout: nothing was done; retry after Retry-After.
const CodeOverloaded = "overloaded"

// overloadRetryAfter is the Retry-After of an overloaded answer.
const overloadRetryAfter = time.Second

// admission bounds the requests served at once (server.max_concurrent).
// A request waits for a turn at most server.queue_timeout, so under a
// load the machine cannot serve, callers learn it at once with a 503
// instead of queueing for seconds, and those admitted keep their
// latency. Writes (remember, modify, forget, documents) take turns of
// their own: they are short, and a crowd of searches must not refuse
// them. /health never waits (Handler).
type admission struct {
	reads, writes chan struct{}
	wait          time.Duration
}

// writePerms are the permissions of the routes that take write turns.
var writePerms = map[string]bool{auth.PermRemember: true, auth.PermModify: true, auth.PermForget: true,
	auth.PermRecover: true, auth.PermDocuments: true, auth.PermConnectors: true}

func newAdmission(cfg config.ServerConfig) *admission {
	n := cfg.MaxConcurrent
	if n <= 0 {
		n = 2 * runtime.GOMAXPROCS(0)
	}
	wait := cfg.QueueTimeout.D()
	if wait <= 0 {
		wait = config.DefaultServerQueueTimeout
	}
	// Writes mostly wait for the writer, where the more that wait the
	// more share a commit: they get more turns.
	return &admission{reads: make(chan struct{}, n), writes: make(chan struct{}, 4*n), wait: wait}
}

// enter waits for a turn of the kind perm needs; release gives it back.
// ok is false when none came in time (or ctx ended).
func (a *admission) enter(ctx context.Context, perm string) (release func(), ok bool) {
	turns := a.reads
	if writePerms[perm] {
		turns = a.writes
	}
	leave := func() { <-turns }
	select {
	case turns <- struct{}{}:
		return leave, true
	default:
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case turns <- struct{}{}:
		return leave, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// refuse answers 503 overloaded with Retry-After.
func (a *admission) refuse(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(overloadRetryAfter.Seconds())))
	writeError(w, &core.Error{Code: CodeOverloaded,
		Message: fmt.Sprintf("cairn is busy: %d requests are being served and this one waited %s for a turn; retry after %s",
			cap(a.reads), a.wait, overloadRetryAfter)})
}
