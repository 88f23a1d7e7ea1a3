package backend

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// Local is a Backend over an App in this process.
type Local struct {
	app  *app.App
	svc  *core.Service // app.Service
	addr string
}

// NewLocal returns a Backend over ap; addr is where this process serves
// the API (shown in the status bar), empty if it does not.
func NewLocal(ap *app.App, addr string) *Local { return &Local{app: ap, svc: ap.Service, addr: addr} }

// Mode implements Backend.
func (l *Local) Mode() string { return "local" }

// Recall implements Backend.
func (l *Local) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	// Browsing is not use: searching as you type would count every
	// keystroke as an access and keep every memory from decaying.
	in.NoTracking = true
	return l.svc.Recall(ctx, in)
}

// List implements Backend.
func (l *Local) List(ctx context.Context, f storage.MemoryFilter, limit int) ([]*core.Memory, error) {
	return l.svc.RecentMemories(ctx, f, limit)
}

// Get implements Backend.
func (l *Local) Get(ctx context.Context, id string) (*core.Memory, error) {
	return l.svc.Get(ctx, id, true)
}

// Remember implements Backend.
func (l *Local) Remember(ctx context.Context, in core.RememberInput) (*core.Memory, error) {
	res, err := l.svc.Remember(ctx, in, Actor)
	if err != nil {
		return nil, err
	}
	if res.Memory == nil && len(res.IDs) > 0 {
		return l.svc.Get(ctx, res.IDs[0], true)
	}
	return res.Memory, nil
}

// Modify implements Backend.
func (l *Local) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return l.svc.Modify(ctx, p, Actor)
}

// Forget implements Backend.
func (l *Local) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return l.svc.Forget(ctx, in, Actor)
}

// Recover implements Backend.
func (l *Local) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return l.svc.Recover(ctx, in, Actor)
}

// MemoryHistory implements Backend.
func (l *Local) MemoryHistory(ctx context.Context, id string) ([]*core.HistoryEntry, error) {
	return l.svc.MemoryHistory(ctx, id, HistoryLimit)
}

// History implements Backend.
func (l *Local) History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*core.HistoryEntry, error) {
	return l.svc.History(ctx, f, limit)
}

// SearchHistory implements Backend.
func (l *Local) SearchHistory(ctx context.Context, f storage.HistorySearch, limit int) ([]*core.HistoryEntry, error) {
	return l.svc.SearchHistory(ctx, f, limit)
}

// Status implements Backend. Health is the round trip of the count query:
// a real measurement of the store, not a placeholder. The counts come from
// the trigger-kept totals row, not a scan, so the status bar costs the
// same on 100 memories and on 100,000.
func (l *Local) Status(ctx context.Context) (Status, error) {
	cfg := l.svc.Config()
	st := Status{Addr: l.addr, AuthMode: cfg.Auth.Mode, Pipeline: l.svc.PipelineMode(), Embedding: cfg.Embedding.Provider}
	start := time.Now()
	live, deleted, err := l.svc.MemoryTotals(ctx)
	if err != nil {
		return st, fmt.Errorf("memory counts: %w", err)
	}
	st.Health = "db " + roundMS(time.Since(start))
	st.Memories, st.Deleted = int(live), int(deleted)
	q, err := l.app.Ops.QueueCounts(ctx)
	if err != nil {
		return st, err
	}
	st.Queue, st.QueueKnown = q["pending"]+q["leased"], true
	st.DeadJobs = q["dead"]
	if st.PendingProposals, err = l.app.Pipeline.CountProposals(ctx, storage.ProposalPending); err != nil {
		return st, err
	}
	return st, nil
}

// Jobs implements Backend.
func (l *Local) Jobs(ctx context.Context, f jobs.Filter, limit int) (*JobsPage, error) {
	jobs, err := l.app.Jobs.List(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	byStatus, byType, err := l.app.Jobs.Counts(ctx)
	if err != nil {
		return nil, err
	}
	return &JobsPage{Jobs: jobs, ByStatus: byStatus, ByType: byType}, nil
}

// Job implements Backend.
func (l *Local) Job(ctx context.Context, id string) (*storage.Job, error) {
	return l.app.Jobs.Get(ctx, id)
}

// RetryJob implements Backend.
func (l *Local) RetryJob(ctx context.Context, id string) (*storage.Job, error) {
	return l.app.Jobs.Retry(ctx, id)
}

// RequeueDead implements Backend.
func (l *Local) RequeueDead(ctx context.Context, id string, limit int) (*ops.RepairResult, error) {
	return l.app.Ops.Repair(ctx, ops.RepairRequeueDead, Actor, ops.RepairOptions{JobID: id, BatchSize: limit, Reason: "requeued from the TUI"})
}

// ReleaseLeases implements Backend.
func (l *Local) ReleaseLeases(ctx context.Context) (*ops.RepairResult, error) {
	return l.app.Ops.Repair(ctx, ops.RepairReleaseLeases, Actor, ops.RepairOptions{Reason: "released from the TUI"})
}

// Proposals implements Backend.
func (l *Local) Proposals(ctx context.Context, f pipeline.ProposalFilter, limit int) ([]*storage.Proposal, error) {
	return l.app.Pipeline.ListProposals(ctx, f, limit)
}

// Proposal implements Backend.
func (l *Local) Proposal(ctx context.Context, id string) (*storage.Proposal, error) {
	return l.app.Pipeline.GetProposal(ctx, id)
}

// ApproveProposal implements Backend.
func (l *Local) ApproveProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return l.app.Pipeline.ApproveProposal(ctx, id, Actor, reason)
}

// RejectProposal implements Backend.
func (l *Local) RejectProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return l.app.Pipeline.RejectProposal(ctx, id, Actor, reason)
}

// Changes implements Backend with the service's event stream.
func (l *Local) Changes() (<-chan Change, func()) {
	events, stop := l.svc.Subscribe()
	out := make(chan Change, 16)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range events {
			select {
			case out <- Change{Kind: string(ev.Kind), MemoryID: ev.MemoryID, Actor: ev.Actor}:
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(done)
			stop()
		})
	}
}

func roundMS(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
