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
