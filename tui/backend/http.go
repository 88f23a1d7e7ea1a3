package backend

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/storage"
)

// PollInterval is how often client mode asks the running cairn whether
// anything changed: the HTTP API has no event stream, and the newest
// history event is one cheap indexed query.
const PollInterval = 2 * time.Second

// HTTP is a Backend over the API of the cairn that holds the database.
// API error bodies come back as *core.Error, so the panes handle both
// backends alike.
type HTTP struct {
	c *client.Client
}

// NewHTTP returns a Backend for the API at addr (host:port).
func NewHTTP(addr string) *HTTP {
	return &HTTP{c: client.New(addr, client.Options{Actor: Actor, Timeout: callTimeout})}
}

// Mode implements Backend.
func (h *HTTP) Mode() string { return "client" }

// Recall implements Backend. Like Local, it leaves access counts alone.
func (h *HTTP) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	in.NoTracking = true
	return h.c.Recall(ctx, client.RecallBody(in))
}

// List implements Backend.
func (h *HTTP) List(ctx context.Context, f storage.MemoryFilter, limit int) ([]*core.Memory, error) {
	out, err := h.c.List(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	return out.Memories, nil
}

// Get implements Backend.
func (h *HTTP) Get(ctx context.Context, id string) (*core.Memory, error) {
	return h.c.Get(ctx, id, true)
}

// Remember implements Backend.
func (h *HTTP) Remember(ctx context.Context, in core.RememberInput) (*core.Memory, error) {
	out, err := h.c.Remember(ctx, client.RememberBody(in))
	if err != nil {
		return nil, err
	}
	id := out.ID
	if id == "" && len(out.IDs) > 0 {
		id = out.IDs[0]
	}
	if id == "" {
		return nil, fmt.Errorf("remember: the API answered without an id")
	}
	return h.Get(ctx, id)
}

// Modify implements Backend.
func (h *HTTP) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return h.c.Modify(ctx, p)
}

// Forget implements Backend.
func (h *HTTP) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return h.c.Forget(ctx, in)
}

// Recover implements Backend.
func (h *HTTP) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return h.c.Recover(ctx, in)
}

// MemoryHistory implements Backend.
func (h *HTTP) MemoryHistory(ctx context.Context, id string) ([]*core.HistoryEntry, error) {
	return h.c.MemoryHistory(ctx, id, HistoryLimit)
}

// History implements Backend.
func (h *HTTP) History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*core.HistoryEntry, error) {
	return h.c.History(ctx, f, limit)
}

// Status implements Backend. Health is the round trip of GET /health.
func (h *HTTP) Status(ctx context.Context) (Status, error) {
	st := Status{Addr: h.c.Addr()}
	start := time.Now()
	if err := h.c.Health(ctx); err != nil {
		return st, err
	}
	st.Health = "api " + roundMS(time.Since(start))
	s, err := h.c.Status(ctx)
	if err != nil {
		return st, err
	}
	st.AuthMode, st.Pipeline = s.AuthMode, s.Pipeline.Mode
	st.Memories, st.Deleted = s.Memories.Total, s.Memories.Deleted
	if s.Queue != nil {
		st.Queue, st.QueueKnown = s.Queue["pending"]+s.Queue["leased"], true
		st.DeadJobs = s.Queue["dead"]
	}
	// The API has no proposal count: one page of ids is enough to tell a
	// person that decisions wait.
	ps, err := h.Proposals(ctx, pipeline.ProposalFilter{State: storage.ProposalPending}, statusProposalPage)
	if err != nil {
		return st, err
	}
	st.PendingProposals, st.ProposalsCapped = len(ps), len(ps) == statusProposalPage
	return st, nil
}

// statusProposalPage is how many pending proposals client mode counts for
// the status bar before it says "100+".
const statusProposalPage = 100

// Jobs implements Backend with GET /api/jobs, which returns the counts
// with the rows.
func (h *HTTP) Jobs(ctx context.Context, f jobs.Filter, limit int) (*JobsPage, error) {
	out, err := h.c.Jobs(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	return &JobsPage{Jobs: out.Jobs, ByStatus: out.Counts, ByType: out.ByType}, nil
}

// Job implements Backend.
func (h *HTTP) Job(ctx context.Context, id string) (*storage.Job, error) {
	return h.c.Job(ctx, id)
}

// RetryJob implements Backend.
func (h *HTTP) RetryJob(ctx context.Context, id string) (*storage.Job, error) {
	return h.c.RetryJob(ctx, id)
}

// RequeueDead implements Backend.
func (h *HTTP) RequeueDead(ctx context.Context, id string, limit int) (*ops.RepairResult, error) {
	return h.c.Repair(ctx, ops.RepairRequeueDead, ops.RepairOptions{JobID: id, BatchSize: limit, Reason: "requeued from the TUI"})
}

// ReleaseLeases implements Backend.
func (h *HTTP) ReleaseLeases(ctx context.Context) (*ops.RepairResult, error) {
	return h.c.Repair(ctx, ops.RepairReleaseLeases, ops.RepairOptions{Reason: "released from the TUI"})
}

// Proposals implements Backend.
func (h *HTTP) Proposals(ctx context.Context, f pipeline.ProposalFilter, limit int) ([]*storage.Proposal, error) {
	return h.c.Proposals(ctx, f, limit)
}

// Proposal implements Backend.
func (h *HTTP) Proposal(ctx context.Context, id string) (*storage.Proposal, error) {
	return h.c.Proposal(ctx, id)
}

// ApproveProposal implements Backend.
func (h *HTTP) ApproveProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return h.c.ApproveProposal(ctx, id, reason)
}

// RejectProposal implements Backend.
func (h *HTTP) RejectProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return h.c.RejectProposal(ctx, id, reason)
}

// Changes implements Backend by polling the newest history event.
func (h *HTTP) Changes() (<-chan Change, func()) {
	out := make(chan Change, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(out)
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		last := ""
		first := true
		for {
			page, err := h.History(ctx, storage.HistoryFilter{}, 1)
			if err == nil && len(page) > 0 && page[0].ID != last {
				if !first {
					e := page[0]
					select {
					case out <- Change{Kind: e.Event, MemoryID: e.MemoryID, Actor: e.ChangedBy}:
					case <-ctx.Done():
						return
					}
				}
				last = page[0].ID
			}
			if err == nil {
				first = false
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(cancel) }
}
