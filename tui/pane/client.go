package pane

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
)

// The UI reaches cairn through a core/client.Client: in this process
// (client.Local with LocalOptions) or over the API of another cairn that holds the database
// (Remote, "client mode"). The panes call the same methods either way; what
// only the UI needs on top (the status bar's snapshot, the live changes)
// is in status.go and changes.go.

// Actor is who the UI's writes are recorded as in history.
var Actor = core.Actor{Name: "tui", Type: core.ActorOperator}

// CallTimeout bounds one client call so a wedged store or a dead peer
// cannot leave a spinner running forever.
const CallTimeout = 30 * time.Second

// CallContext returns a context for one client call.
func CallContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), CallTimeout)
}

// LocalOptions are the options of the UI's client in this process
// (client.Local over the composition root's App, which main builds).
var LocalOptions = client.LocalOptions{Actor: Actor}

// Remote is the UI's client over the API at addr (host:port). API error
// bodies come back as *core.Error, so the panes handle both alike.
func Remote(addr string) *client.Remote {
	return client.HTTP(addr, client.Options{Actor: Actor, Timeout: CallTimeout})
}

// How much the panes load at a time.
const (
	// RecallLimit is how many results the Recall pane asks for.
	RecallLimit = 50
	// HistoryLimit is how many audit events the History pane loads, and
	// how many of one memory's events the Recall pane shows.
	HistoryLimit = 200
	// JobsLimit is how many queue rows the Jobs pane loads (the API's cap).
	JobsLimit = 1000
	// ProposalsLimit is how many proposals the Proposals pane loads (the
	// API's cap).
	ProposalsLimit = 1000
	// RequeueAllLimit bounds one "requeue all dead jobs" run.
	RequeueAllLimit = 1000
	// EntityLimit is how many relations and memories the entity view
	// loads.
	EntityLimit = 50
	// ErrorsLimit is how many entries of the error ring the Diagnostics
	// pane shows.
	ErrorsLimit = 10
)

// Bulk is what a bulk action did: what each call that succeeded
// returned, how many failed, and the first failure.
type Bulk[T any] struct {
	Done   []T
	Failed int
	Err    error
}

// RunEach calls call for every item in order, each with a CallContext of
// its own (a wedged call cannot hold up the rest past CallTimeout), and
// gathers what they did: the panes' bulk forget, drop and decide.
func RunEach[I, T any](items []I, call func(ctx context.Context, it I) (T, error)) Bulk[T] {
	var b Bulk[T]
	for _, it := range items {
		ctx, cancel := CallContext()
		got, err := call(ctx, it)
		cancel()
		if err != nil {
			b.Failed++
			if b.Err == nil {
				b.Err = err
			}
			continue
		}
		b.Done = append(b.Done, got)
	}
	return b
}
