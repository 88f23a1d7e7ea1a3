package admission

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// RetryAfter is the Retry-After of a refused request.
const RetryAfter = time.Second

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

// Gate bounds the requests served at once (server.max_concurrent).
// A request waits for a turn at most server.queue_timeout, so under a
// load the machine cannot serve, callers learn it at once with a 503
// instead of queueing for seconds, and those admitted keep their
// latency. Writes (remember, modify, forget, documents) take turns of
// their own: they are short, and a crowd of searches must not refuse
// them. /health never waits (Handler).
type Gate struct {
	reads, writes chan struct{}
	// cpu are the slots admitted reads run in (one per CPU, see above):
	// an admitted read waits for one behind at most the other admitted
	// reads, and at most server.queue_timeout: a read that holds its slot
	// for long (an export streaming to a slow reader) delays the others
	// that long, then they run without one.
	cpu  chan struct{}
	wait time.Duration
}

// New is the gate of cfg's limits.
func New(cfg config.ServerConfig) *Gate {
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
	return &Gate{reads: make(chan struct{}, n), writes: make(chan struct{}, 4*n),
		cpu: make(chan struct{}, min(n, baseProcs)), wait: wait}
}

// turns returns the turns of writes or of reads.
func (a *Gate) turns(write bool) chan struct{} {
	if write {
		return a.writes
	}
	return a.reads
}

// Enter waits for a turn of a write or of a read; release gives it back.
// ok is false when none came in time (or ctx ended).
func (a *Gate) Enter(ctx context.Context, write bool) (release func(), ok bool) {
	turns := a.turns(write)
	leave := func() { <-turns }
	select {
	case turns <- struct{}{}:
		return a.run(ctx, write, leave)
	default:
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case turns <- struct{}{}:
		return a.run(ctx, write, leave)
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// run takes a CPU slot for an admitted read (see above); leave gives the
// turn back.
func (a *Gate) run(ctx context.Context, write bool, leave func()) (release func(), ok bool) {
	if write {
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

// Refusal says why a write's or a read's request found no turn.
func (a *Gate) Refusal(write bool) string {
	kind := "reads"
	if write {
		kind = "writes"
	}
	return fmt.Sprintf("cairn is busy: %d %s are being served and this one waited %s for a turn; retry after %s",
		cap(a.turns(write)), kind, a.wait, RetryAfter)
}
