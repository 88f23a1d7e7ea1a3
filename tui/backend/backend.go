// Package backend is how the terminal UI reaches cairn: in the same process
// through core.Service (Local), or through the HTTP API of another cairn
// that holds the database (HTTP, "client mode"). The panes only see the
// Backend interface, so both behave the same wherever the API allows.
package backend

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// Actor is who the TUI's writes are recorded as in history.
var Actor = core.Actor{Name: "tui", Type: core.ActorOperator}

// Backend is everything the TUI reads and writes. Every method does I/O and
// is called from a tea.Cmd, never from Update.
type Backend interface {
	Ops   // diagnostics, repairs, maintenance, analytics (ops.go)
	Graph // connectors and the knowledge graph (graph.go)

	// Recall ranks live memories for a query (hybrid when the service has
	// a vector leg), with each hit's score parts when in.Explain is set.
	Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error)
	// List returns memories matching f, newest first.
	List(ctx context.Context, f storage.MemoryFilter, limit int) ([]*core.Memory, error)
	// Get returns one memory, deleted ones too.
	Get(ctx context.Context, id string) (*core.Memory, error)
	Remember(ctx context.Context, in core.RememberInput) (*core.Memory, error)
	Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error)
	Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error)
	Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error)
	// MemoryHistory is one memory's events, oldest first.
	MemoryHistory(ctx context.Context, id string) ([]*core.HistoryEntry, error)
	// History is the audit trail, newest first.
	History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*core.HistoryEntry, error)
	// SearchHistory is the History pane's filter over the audit trail,
	// newest first: exact event and actor, a loose memory id (the short id
	// the UI shows works) and free-text words.
	SearchHistory(ctx context.Context, f storage.HistorySearch, limit int) ([]*core.HistoryEntry, error)
	// Status is what the status bar shows.
	Status(ctx context.Context) (Status, error)
	// Changes reports writes made by anyone (agents through the API, the
	// workers, this TUI) until stop is called. Each value is a hint to
	// refresh, not a complete log: a slow reader may miss some.
	Changes() (changes <-chan Change, stop func())
	// Mode is "local" (in process) or "client" (over HTTP).
	Mode() string

	// Jobs returns queue rows matching f (live first, then newest) with
	// the counts of the whole queue by status and by type.
	Jobs(ctx context.Context, f jobs.Filter, limit int) (*JobsPage, error)
	// Job returns one job with its payload, result and error.
	Job(ctx context.Context, id string) (*storage.Job, error)
	// RetryJob makes a job waiting out its backoff due now, or returns a
	// dead one to the queue.
	RetryJob(ctx context.Context, id string) (*storage.Job, error)
	// RequeueDead returns dead jobs to the queue through the requeue-dead
	// repair: the one job id, or (id empty) up to limit of them.
	RequeueDead(ctx context.Context, id string, limit int) (*ops.RepairResult, error)
	// ReleaseLeases returns jobs leased longer than the lease timeout to
	// the queue through the release-leases repair.
	ReleaseLeases(ctx context.Context) (*ops.RepairResult, error)

	// Proposals returns pipeline proposals matching f, newest first.
	Proposals(ctx context.Context, f pipeline.ProposalFilter, limit int) ([]*storage.Proposal, error)
	// Proposal returns one proposal.
	Proposal(ctx context.Context, id string) (*storage.Proposal, error)
	// ApproveProposal applies a pending proposal as Actor, the same
	// decision as POST /api/proposals/{id}/approve.
	ApproveProposal(ctx context.Context, id, reason string) (*storage.Proposal, error)
	// RejectProposal rejects a pending proposal as Actor; reason is
	// required.
	RejectProposal(ctx context.Context, id, reason string) (*storage.Proposal, error)
}

// JobsPage is one read of the queue: the rows asked for and the counts of
// every job.
type JobsPage struct {
	Jobs []*storage.Job
	// ByStatus counts jobs by status (pending, leased, completed, failed,
	// dead); ByType by job type, then status.
	ByStatus map[string]int
	ByType   map[string]map[string]int
}

// Change is one committed write, or (MemoryID empty) "something changed,
// refresh".
type Change struct {
	Kind     string // created, updated, deleted, recovered; empty when unknown
	MemoryID string
	Actor    string
}

// Status is the service state shown in the status bar. Zero values mean
// unknown and are not shown.
type Status struct {
	Addr      string // API address
	AuthMode  string // local, team, hybrid
	Pipeline  string // disabled, shadow, controlled-write, frozen
	Embedding string // configured embedding provider, when known
	Memories  int
	Deleted   int
	// Queue is pending+leased jobs; QueueKnown is false when the backend
	// cannot tell (an API that reports no queue).
	Queue      int
	QueueKnown bool
	// DeadJobs are jobs out of attempts, waiting for a person.
	DeadJobs int
	// PendingProposals wait for a decision; ProposalsCapped says the
	// backend stopped counting at PendingProposals (client mode counts
	// one page).
	PendingProposals int
	ProposalsCapped  bool
	// Health is what the backend could measure, e.g. "db 2ms" (a query
	// round trip) or "api 5ms" (GET /health); empty when nothing answered.
	Health string
}

// RecallLimit is how many results the Recall pane asks for.
const RecallLimit = 50

// HistoryLimit is how many audit events the History pane loads.
const HistoryLimit = 200

// JobsLimit is how many queue rows the Jobs pane loads (the API's cap).
const JobsLimit = 1000

// ProposalsLimit is how many proposals the Proposals pane loads (the
// API's cap).
const ProposalsLimit = 1000

// RequeueAllLimit bounds one "requeue all dead jobs" run.
const RequeueAllLimit = 1000

// callTimeout bounds one backend call so a wedged store or a dead peer
// cannot leave a spinner running forever.
const callTimeout = 30 * time.Second

// Context returns a context for one backend call.
func Context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}
