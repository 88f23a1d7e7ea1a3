package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/core/wire"
)

// Client is cairn as its callers reach it: the store in this process
// (Local) or the API of the cairn that holds it (HTTP). Every method does
// I/O; both implementations return the same types and the same *core.Error
// codes.
type Client interface {
	// Describe names what the client reaches, for messages: "database
	// PATH", or "the running cairn (pid N) at http://ADDR".
	Describe() string
	// Addr is the API address the client calls, host:port; empty in
	// process.
	Addr() string
	// Close releases what the client holds (the store and its lock, for
	// a command that opened them).
	Close() error

	// Health reports whether cairn answers: GET /health, or a read of the
	// store.
	Health(ctx context.Context) error
	// Status is the state a status bar shows (wire.Status says what the
	// local client fills).
	Status(ctx context.Context) (*wire.Status, error)

	// Remember stores a memory (or the chunks of a long one).
	Remember(ctx context.Context, in core.RememberInput) (*wire.Remembered, error)
	// Recall ranks live memories for a query.
	Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error)
	// Get returns one memory; includeDeleted also finds a forgotten one.
	Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error)
	// List returns the page of limit memories matching f after the first
	// offset ones, newest first, with the totals.
	List(ctx context.Context, f core.MemoryFilter, limit, offset int) (*core.ListResult, error)
	// Recent returns up to limit memories matching f, newest first: List
	// without the counts, which cost a scan in process.
	Recent(ctx context.Context, f core.MemoryFilter, limit int) ([]*core.Memory, error)
	// Page returns one page of the memories matching f, newest first, by
	// cursor (a page costs the same anywhere in the list), each with its
	// cursor; with count, also how many f selects.
	Page(ctx context.Context, f core.MemoryFilter, p core.PageQuery, count bool) (*core.MemoryPage, error)
	Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error)
	Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error)
	// ForgetBatch previews what a batch forget selects, or executes it.
	ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error)
	Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error)
	// MemoryHistory is one memory's events, oldest first.
	MemoryHistory(ctx context.Context, id string, limit int) ([]*wire.HistoryEntry, error)
	// MemoryStamp is a short text that changes whenever something the
	// memory's detail shows changes (its fields, access count, history,
	// entities, attributes, successors), whether or not an event said so:
	// one cheap read, to tell when to read the memory again.
	MemoryStamp(ctx context.Context, id string) (string, error)
	// History is the audit trail, newest first.
	History(ctx context.Context, f core.HistoryFilter, limit int) ([]*wire.HistoryEntry, error)
	// SearchHistory is the audit trail filtered as the History pane does,
	// newest first: exact event and actor, a loose memory id (the short id
	// the UI shows works) and free-text words.
	SearchHistory(ctx context.Context, f core.HistorySearch, limit int) ([]*wire.HistoryEntry, error)
	// HistoryPage is SearchHistory one page at a time by cursor, each
	// event with its cursor; with count, also how many match.
	HistoryPage(ctx context.Context, f core.HistorySearch, p core.PageQuery, count bool) (*core.HistoryPage, error)
	// Export hands fn each memory matching f as one JSON line of the
	// export format.
	Export(ctx context.Context, f core.MemoryFilter, fn func(json.RawMessage) error) error
	// Import writes the checked lines of an export (raw holds each line's
	// bytes by its number), reporting how many are done as it goes. A
	// failed import returns what was written before it with the error.
	Import(ctx context.Context, lines []transfer.ImportLine, raw map[int][]byte, progress func(done int)) (*transfer.ImportResult, error)

	// Jobs returns queue rows matching f (live first, then newest; from
	// f.Offset) with the counts of the whole queue by status and by type
	// and how many rows f selects.
	Jobs(ctx context.Context, f wire.JobFilter, limit int) (*wire.JobsPage, error)
	// Job returns one job with its payload, result and error.
	Job(ctx context.Context, id string) (*wire.Job, error)
	// RetryJob makes a job waiting out its backoff due now, or returns a
	// dead one to the queue.
	RetryJob(ctx context.Context, id string) (*wire.Job, error)
	// Proposals returns a page of the pipeline proposals matching f,
	// newest first (from f.Offset), and how many f selects.
	Proposals(ctx context.Context, f wire.ProposalFilter, limit int) (*wire.ProposalsPage, error)
	Proposal(ctx context.Context, id string) (*wire.Proposal, error)
	// ApproveProposal applies a pending proposal.
	ApproveProposal(ctx context.Context, id, reason string) (*wire.Proposal, error)
	// RejectProposal rejects a pending proposal; reason is required.
	RejectProposal(ctx context.Context, id, reason string) (*wire.Proposal, error)
	// ReopenProposal undoes a decision: the proposal is pending again.
	// It touches no memory: revert what an approval applied first.
	ReopenProposal(ctx context.Context, id, reason string) (*wire.Proposal, error)

	// Diagnostics returns the health report. The service shares one
	// report for wire.DiagnosticsTTL; fresh asks for one measured after
	// the call began (the score after a repair).
	Diagnostics(ctx context.Context, fresh bool) (*wire.DiagnosticsReport, error)
	// Repair runs one repair. Gate denials and a run already in progress
	// come back as *core.Error.
	Repair(ctx context.Context, action string, opts wire.RepairOptions) (*wire.RepairResult, error)
	// Maintenance lists the repairs the current report calls for, halted
	// ones marked.
	Maintenance(ctx context.Context) ([]wire.Recommendation, error)
	// Latency summarises each operation with a latency histogram.
	Latency(ctx context.Context) (map[string]wire.LatencySummary, error)
	// LatencySamples are op's recent latencies in milliseconds, oldest
	// first.
	LatencySamples(ctx context.Context, op string) ([]float64, error)
	// RecentErrors returns up to limit entries of the error ring, newest
	// first.
	RecentErrors(ctx context.Context, limit int) ([]wire.ErrorEvent, error)

	// Connectors returns every connector with its state, oldest first.
	Connectors(ctx context.Context) ([]*wire.Connector, error)
	// SyncConnector syncs connector id now. A sync that ran but failed
	// returns what it did and the error, both.
	SyncConnector(ctx context.Context, id string) (*wire.SyncResult, error)
	// MemoryEntities lists the entities memory id mentions, most mentioned
	// first.
	MemoryEntities(ctx context.Context, memoryID string) ([]graph.Entity, error)
	// GraphEntity returns one entity with its relations, neighbours and
	// the memories that mention it, narrowed by q.
	GraphEntity(ctx context.Context, id string, q graph.Query) (*graph.Detail, error)
	// Learned is what cairn learned from sessions since the person last
	// looked: how many, and the newest limit of them (0: the count only).
	Learned(ctx context.Context, limit int) (*ops.Learned, error)
	// ReviewLearned keeps learned memories (no longer new) and marks
	// them seen (ops.LearnedReview), and returns what is new after it.
	ReviewLearned(ctx context.Context, in ops.LearnedReview, limit int) (*ops.Learned, error)
	// ModelUsage is a chosen model's calls and tokens per day over the
	// last week, with the daily budget.
	ModelUsage(ctx context.Context) (*wire.ModelUsageReport, error)
	// Session returns an agent session with its checkpoints, the memories
	// it was offered and its continuity score.
	Session(ctx context.Context, key string) (*sessions.Info, error)
}

// ProjectCounter counts the memories matching f in each project (""
// for memories of no project): where they are when a project has none.
// Both clients implement it; it is not part of Client, whose wrappers
// need not carry it.
type ProjectCounter interface {
	ProjectCounts(ctx context.Context, f core.MemoryFilter) (map[string]int, error)
}

// SignetImporter imports a Signet memories.db at path (absolute, on the
// machine cairn runs on): in process, or sent to the running cairn, which
// opens the file read-only. Both clients implement it.
type SignetImporter interface {
	ImportSignet(ctx context.Context, path string, opt transfer.SignetOptions) (*transfer.SignetReport, error)
}

// TokenEnv is the environment variable clients (the CLI, the hook adapter,
// the TUI in client mode) read a token from, for a cairn in team or hybrid
// mode.
const TokenEnv = "CAIRN_TOKEN"

// AuthorizeRequest adds the token from CAIRN_TOKEN, if set, to an outgoing
// request to a cairn API.
func AuthorizeRequest(req *http.Request) {
	if tok := strings.TrimSpace(os.Getenv(TokenEnv)); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
}

// NewHTTPClient returns an *http.Client whose requests carry the token
// from CAIRN_TOKEN, for code that speaks another protocol to a cairn (the
// MCP proxy). timeout bounds each request; 0 means none.
func NewHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: tokenTransport{http.DefaultTransport}}
}

// tokenTransport adds CAIRN_TOKEN to every request it sends.
type tokenTransport struct{ next http.RoundTripper }

// RoundTrip sends a copy of req with the token added.
func (t tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	AuthorizeRequest(req)
	return t.next.RoundTrip(req)
}

// UnreachableError is a call that got no answer: nothing listens, the
// connection broke, or the deadline passed before the response headers.
type UnreachableError struct {
	URL string // the API's root
	Err error  // what the transport said
}

// Error says which cairn did not answer and why.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cairn at %s does not answer: %v", e.URL, e.Err)
}

// Unwrap returns the transport's error, so errors.Is(err,
// context.DeadlineExceeded) tells a slow answer from a refused one.
func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrTooLarge is returned (wrapped) when an answer is longer than
// Options.MaxResponse.
var ErrTooLarge = errors.New("answer too large")

// APIError is an error answer of the API: the HTTP status and the domain
// error it carried. It unwraps to the *core.Error, so errors.Is and
// errors.As work on the codes as they do in process.
type APIError struct {
	Status int
	Err    *core.Error
}

func (e *APIError) Error() string { return e.Err.Error() }

// Unwrap returns the domain error.
func (e *APIError) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status of an API error answer, 0 for any other
// error (or nil).
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
