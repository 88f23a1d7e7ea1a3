package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
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

// Turns, CPUs and Ps. Go's scheduler looks at the network only when one
// of its Ps (the slots that run goroutines, one per CPU) runs out of work,
// or else every 10 ms from its monitor thread. With every P busy with
// searches, a request that arrives — /health from a hook, the next
// remember — waits up to 10 ms before the server even sees it, then behind
// the goroutines already queued: /health took 9-12 ms at the median under
// 50 clients. So an admitted read runs its handler only once it holds one
// of the CPU slots (one per CPU; the others wait for one, parked, and
// recall is CPU work, so running more at once only made each slower), and
// the server runs one P more than it has CPUs (SpareProc): that P is
// mostly idle, parked in the network poller, and takes a new request the
// moment it arrives.

// baseProcs is GOMAXPROCS as the runtime set it at start: the CPUs this
// process may use (the machine's, or its container's limit), before
// SpareProc adds one.
var baseProcs = runtime.GOMAXPROCS(0)

// SpareProc gives the Go scheduler one P more than the process has CPUs
// (see above), unless the GOMAXPROCS environment variable chose the
// number. It returns GOMAXPROCS as it is now. The API's server calls it
// at start.
func SpareProc() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	runtime.GOMAXPROCS(baseProcs + 1)
	return baseProcs + 1
}

// admission bounds the requests served at once (server.max_concurrent).
// A request waits for a turn at most server.queue_timeout, so under a
// load the machine cannot serve, callers learn it at once with a 503
// instead of queueing for seconds, and those admitted keep their
// latency. Writes (remember, modify, forget, documents) take turns of
// their own: they are short, and a crowd of searches must not refuse
// them. /health never waits (Handler).
type admission struct {
	reads, writes chan struct{}
	// cpu are the slots admitted reads run in (one per CPU, see above):
	// an admitted read waits for one behind at most the other admitted
	// reads, and at most server.queue_timeout: a read that holds its slot
	// for long (an export streaming to a slow reader) delays the others
	// that long, then they run without one.
	cpu  chan struct{}
	wait time.Duration
}

// writePerms are the permissions of the routes that take write turns.
var writePerms = map[string]bool{auth.PermRemember: true, auth.PermModify: true, auth.PermForget: true,
	auth.PermRecover: true, auth.PermDocuments: true, auth.PermConnectors: true}

func newAdmission(cfg config.ServerConfig) *admission {
	n := cfg.MaxConcurrent
	if n <= 0 {
		n = 2 * baseProcs
	}
	wait := cfg.QueueTimeout.D()
	if wait <= 0 {
		wait = config.DefaultServerQueueTimeout
	}
	// Writes mostly wait for the writer, where the more that wait the
	// more share a commit: they get more turns.
	return &admission{reads: make(chan struct{}, n), writes: make(chan struct{}, 4*n),
		cpu: make(chan struct{}, min(n, baseProcs)), wait: wait}
}

// turns returns the turns of the kind perm needs.
func (a *admission) turns(perm string) chan struct{} {
	if writePerms[perm] {
		return a.writes
	}
	return a.reads
}

// enter waits for a turn of the kind perm needs; release gives it back.
// ok is false when none came in time (or ctx ended).
func (a *admission) enter(ctx context.Context, perm string) (release func(), ok bool) {
	turns := a.turns(perm)
	leave := func() { <-turns }
	select {
	case turns <- struct{}{}:
		return a.run(ctx, perm, leave)
	default:
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case turns <- struct{}{}:
		return a.run(ctx, perm, leave)
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// run takes a CPU slot for an admitted read (see above); leave gives the
// turn back.
func (a *admission) run(ctx context.Context, perm string, leave func()) (release func(), ok bool) {
	if writePerms[perm] {
		return leave, true
	}
	select {
	case a.cpu <- struct{}{}:
		return func() { <-a.cpu; leave() }, true
	default:
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case a.cpu <- struct{}{}:
		return func() { <-a.cpu; leave() }, true
	case <-t.C:
		return leave, true // run beside the slot holders rather than starve
	case <-ctx.Done():
		leave()
		return nil, false
	}
}

// refuse answers 503 overloaded with Retry-After, for a request of perm.
func (a *admission) refuse(w http.ResponseWriter, perm string) {
	kind := "reads"
	if writePerms[perm] {
		kind = "writes"
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(overloadRetryAfter.Seconds())))
	writeError(w, &core.Error{Code: CodeOverloaded,
		Message: fmt.Sprintf("cairn is busy: %d %s are being served and this one waited %s for a turn; retry after %s",
			cap(a.turns(perm)), kind, a.wait, overloadRetryAfter)})
}
