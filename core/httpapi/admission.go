package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core"
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
// latency. /health never waits (Handler).
type admission struct {
	turns chan struct{}
	wait  time.Duration
}

func newAdmission(cfg config.ServerConfig) *admission {
	n := cfg.MaxConcurrent
	if n <= 0 {
		n = 4 * runtime.GOMAXPROCS(0)
	}
	wait := cfg.QueueTimeout.D()
	if wait <= 0 {
		wait = config.DefaultServerQueueTimeout
	}
	return &admission{turns: make(chan struct{}, n), wait: wait}
}

// enter waits for a turn; release gives it back. ok is false when none
// came in time (or ctx ended).
func (a *admission) enter(ctx context.Context) (release func(), ok bool) {
	select {
	case a.turns <- struct{}{}:
		return a.leave, true
	default:
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case a.turns <- struct{}{}:
		return a.leave, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

func (a *admission) leave() { <-a.turns }

// refuse answers 503 overloaded with Retry-After.
func (a *admission) refuse(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(overloadRetryAfter.Seconds())))
	writeError(w, &core.Error{Code: CodeOverloaded,
		Message: fmt.Sprintf("cairn is busy: %d requests are being served and this one waited %s for a turn; retry after %s",
			cap(a.turns), a.wait, overloadRetryAfter)})
}
