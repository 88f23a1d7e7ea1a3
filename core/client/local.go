package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/core/wire"
)

// LocalOptions configure a Local client.
type LocalOptions struct {
	// Actor is who the client's writes are recorded as.
	Actor core.Actor
	// ImportActor is who Import records its memories as; the zero value
	// is Actor.
	ImportActor core.Actor
	// Close, when set, is what Close releases: the store and its lock,
	// for a command that opened them for this client.
	Close func() error
}

// InProcess is a Client over an App in this process: every call is the
// core function the API's handler calls.
type InProcess struct {
	app  *app.App
	svc  *core.Service // app.Service
	opts LocalOptions
}

// Local returns a Client over ap.
func Local(ap *app.App, opts LocalOptions) *InProcess {
	if opts.ImportActor.Name == "" {
		opts.ImportActor = opts.Actor
	}
	return &InProcess{app: ap, svc: ap.Service, opts: opts}
}

// Describe implements Client.
func (l *InProcess) Describe() string { return "database " + l.svc.DB().Path() }

// Addr implements Client: an in-process client calls no API.
func (l *InProcess) Addr() string { return "" }

// Close implements Client.
func (l *InProcess) Close() error {
	if l.opts.Close != nil {
		return l.opts.Close()
	}
	return nil
}

// Subscribe streams the service's committed writes until stop is called
// (core.Service.Subscribe): what an in-process caller watches instead of
// polling. It is not part of Client; the API has no event stream.
func (l *InProcess) Subscribe() (events <-chan core.Event, stop func()) { return l.svc.Subscribe() }

// Health implements Client: the store answers a read (the trigger-kept
// totals row).
func (l *InProcess) Health(ctx context.Context) error {
	_, _, err := l.svc.MemoryTotals(ctx)
	return err
}

// Status implements Client with what is cheap to count in process: the
// totals come from the trigger-kept totals row, not a scan, so a status
// costs the same on 100 memories and on 100,000.
func (l *InProcess) Status(ctx context.Context) (*wire.Status, error) {
	cfg := l.svc.Config()
	st := &wire.Status{AuthMode: cfg.Auth.Mode, Pipeline: wire.PipelineStatus{Mode: l.svc.PipelineMode()},
		Embedding: wire.EmbeddingSummary{Provider: cfg.Embedding.Provider}}
	live, deleted, err := l.svc.MemoryTotals(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory counts: %w", err)
	}
	st.Memories.Total, st.Memories.Deleted = int(live), int(deleted)
	st.Counts.Memories, st.Counts.Deleted = live, deleted
	if st.Queue, err = l.app.Ops.QueueCounts(ctx); err != nil {
		return nil, err
	}
	n, err := l.app.Pipeline.CountProposals(ctx, wire.ProposalPending)
	if err != nil {
		return nil, err
	}
	st.Counts.PendingProposals = int64(n)
	return st, nil
}

// Remember implements Client; Raw is the answer the API would send.
func (l *InProcess) Remember(ctx context.Context, in core.RememberInput) (*wire.Remembered, error) {
	res, err := l.svc.Remember(ctx, in, l.opts.Actor)
	if err != nil {
		return nil, err
	}
	out := &wire.Remembered{}
	switch r := res.Response().(type) {
	case core.ChunkedResponse:
		out.Chunked, out.IDs, out.GroupID = r.Chunked, r.IDs, r.GroupID
	case core.RememberResponse:
		if m := r.Memory; m != nil {
			out.ID, out.Type, out.Tags, out.Pinned, out.Importance = m.ID, m.Type, m.Tags, m.Pinned, m.Importance
		}
		out.Embedded, out.Deduped, out.Superseded = r.Embedded, r.Deduped, r.Superseded
	}
	if out.Raw, err = json.Marshal(res.Response()); err != nil {
		return nil, err
	}
	return out, nil
}

// Recall implements Client.
func (l *InProcess) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	return l.svc.Recall(ctx, in)
}

// Get implements Client.
func (l *InProcess) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
	return l.svc.Get(ctx, id, includeDeleted)
}

// List implements Client.
func (l *InProcess) List(ctx context.Context, f core.MemoryFilter, limit, offset int) (*core.ListResult, error) {
	return l.svc.List(ctx, f, limit, offset)
}

// ProjectCounts implements Client.
func (l *InProcess) ProjectCounts(ctx context.Context, f core.MemoryFilter) (map[string]int, error) {
	return l.app.Ops.ProjectCounts(ctx, f)
}

// Recent implements Client.
func (l *InProcess) Recent(ctx context.Context, f core.MemoryFilter, limit int) ([]*core.Memory, error) {
	return l.svc.RecentMemories(ctx, f, limit)
}

// Page implements Client.
func (l *InProcess) Page(ctx context.Context, f core.MemoryFilter, p core.PageQuery, count bool) (*core.MemoryPage, error) {
	return l.svc.ListPage(ctx, f, p, count)
}

// Modify implements Client.
func (l *InProcess) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	return l.svc.Modify(ctx, p, l.opts.Actor)
}

// Forget implements Client.
func (l *InProcess) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	return l.svc.Forget(ctx, in, l.opts.Actor)
}

// ForgetBatch implements Client.
func (l *InProcess) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	return l.svc.ForgetBatch(ctx, in, l.opts.Actor)
}

// Recover implements Client.
func (l *InProcess) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	return l.svc.Recover(ctx, in, l.opts.Actor)
}

// MemoryHistory implements Client.
func (l *InProcess) MemoryHistory(ctx context.Context, id string, limit int) ([]*wire.HistoryEntry, error) {
	return l.svc.MemoryHistory(ctx, id, limit)
}

// MemoryStamp implements Client.
func (l *InProcess) MemoryStamp(ctx context.Context, id string) (string, error) {
	return l.svc.MemoryStamp(ctx, id)
}

// History implements Client.
func (l *InProcess) History(ctx context.Context, f core.HistoryFilter, limit int) ([]*wire.HistoryEntry, error) {
	return l.svc.History(ctx, f, limit)
}

// SearchHistory implements Client.
func (l *InProcess) SearchHistory(ctx context.Context, f core.HistorySearch, limit int) ([]*wire.HistoryEntry, error) {
	return l.svc.SearchHistory(ctx, f, limit)
}

// HistoryPage implements Client.
func (l *InProcess) HistoryPage(ctx context.Context, f core.HistorySearch, p core.PageQuery, count bool) (*core.HistoryPage, error) {
	return l.svc.SearchHistoryPage(ctx, f, p, count)
}

// Export implements Client: each record as the API's export streams it.
func (l *InProcess) Export(ctx context.Context, f core.MemoryFilter, fn func(json.RawMessage) error) error {
	return l.app.Transfer.Export(ctx, f, func(m *transfer.ExportRecord) error {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return fn(line)
	})
}

// Import implements Client. The store takes every line at once: it writes
// them in batches, preparing the next batch while it writes one.
func (l *InProcess) Import(ctx context.Context, lines []transfer.ImportLine, _ map[int][]byte, progress func(done int)) (*transfer.ImportResult, error) {
	if progress == nil {
		progress = func(int) {}
	}
	return l.app.Transfer.ImportProgress(ctx, lines, l.opts.ImportActor, progress)
}

// ImportSignet implements SignetImporter, recording the memories as
// ImportActor.
func (l *InProcess) ImportSignet(ctx context.Context, path string, opt transfer.SignetOptions) (*transfer.SignetReport, error) {
	return l.app.Transfer.ImportSignetFile(ctx, path, opt, l.opts.ImportActor)
}

// Jobs implements Client.
func (l *InProcess) Jobs(ctx context.Context, f wire.JobFilter, limit int) (*wire.JobsPage, error) {
	rows, err := l.app.Jobs.List(ctx, jobs.Filter(f), limit)
	if err != nil {
		return nil, err
	}
	byStatus, byType, err := l.app.Jobs.Counts(ctx)
	if err != nil {
		return nil, err
	}
	total, err := l.app.Jobs.Count(ctx, jobs.Filter(f))
	if err != nil {
		return nil, err
	}
	page := &wire.JobsPage{Jobs: make([]*wire.Job, len(rows)), Counts: byStatus, ByType: byType, Total: total}
	for i, j := range rows {
		page.Jobs[i] = new(wire.Job(*j))
	}
	return page, nil
}

// Job implements Client.
func (l *InProcess) Job(ctx context.Context, id string) (*wire.Job, error) {
	j, err := l.app.Jobs.Get(ctx, id)
	if err != nil || j == nil {
		return nil, err
	}
	return new(wire.Job(*j)), nil
}

// RetryJob implements Client.
func (l *InProcess) RetryJob(ctx context.Context, id string) (*wire.Job, error) {
	j, err := l.app.Jobs.Retry(ctx, id)
	if err != nil || j == nil {
		return nil, err
	}
	return new(wire.Job(*j)), nil
}

// Proposals implements Client.
func (l *InProcess) Proposals(ctx context.Context, f wire.ProposalFilter, limit int) (*wire.ProposalsPage, error) {
	rows, err := l.app.Pipeline.ListProposals(ctx, pipeline.ProposalFilter(f), limit)
	if err != nil {
		return nil, err
	}
	total, err := l.app.Pipeline.CountMatching(ctx, pipeline.ProposalFilter(f))
	if err != nil {
		return nil, err
	}
	out := &wire.ProposalsPage{Proposals: make([]*wire.Proposal, len(rows)), Total: total}
	for i, p := range rows {
		out.Proposals[i] = new(wire.Proposal(*p))
	}
	return out, nil
}

// Proposal implements Client.
func (l *InProcess) Proposal(ctx context.Context, id string) (*wire.Proposal, error) {
	p, err := l.app.Pipeline.GetProposal(ctx, id)
	if err != nil || p == nil {
		return nil, err
	}
	return new(wire.Proposal(*p)), nil
}

// ApproveProposal implements Client: the same decision as POST
// /api/proposals/{id}/approve.
func (l *InProcess) ApproveProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	p, err := l.app.Pipeline.ApproveProposal(ctx, id, l.opts.Actor, reason)
	if err != nil || p == nil {
		return nil, err
	}
	return new(wire.Proposal(*p)), nil
}

// RejectProposal implements Client.
func (l *InProcess) RejectProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	p, err := l.app.Pipeline.RejectProposal(ctx, id, l.opts.Actor, reason)
	if err != nil || p == nil {
		return nil, err
	}
	return new(wire.Proposal(*p)), nil
}

// ReopenProposal implements Client.
func (l *InProcess) ReopenProposal(ctx context.Context, id, reason string) (*wire.Proposal, error) {
	p, err := l.app.Pipeline.ReopenProposal(ctx, id, l.opts.Actor, reason)
	if err != nil || p == nil {
		return nil, err
	}
	return new(wire.Proposal(*p)), nil
}

// Diagnostics implements Client.
func (l *InProcess) Diagnostics(ctx context.Context, fresh bool) (*wire.DiagnosticsReport, error) {
	if fresh {
		return l.app.Ops.ComputeDiagnostics(ctx)
	}
	return l.app.Ops.Diagnostics(ctx)
}

// Repair implements Client.
func (l *InProcess) Repair(ctx context.Context, action string, opts wire.RepairOptions) (*wire.RepairResult, error) {
	return l.app.Ops.Repair(ctx, action, l.opts.Actor, opts)
}

// Maintenance implements Client.
func (l *InProcess) Maintenance(ctx context.Context) ([]wire.Recommendation, error) {
	return l.app.Ops.MaintenanceRecommendations(ctx)
}

// Latency implements Client.
func (l *InProcess) Latency(context.Context) (map[string]wire.LatencySummary, error) {
	return l.svc.Analytics().LatencyAll(), nil
}

// LatencySamples implements Client.
func (l *InProcess) LatencySamples(_ context.Context, op string) ([]float64, error) {
	return l.svc.Analytics().LatencySamples(op), nil
}

// RecentErrors implements Client.
func (l *InProcess) RecentErrors(_ context.Context, limit int) ([]wire.ErrorEvent, error) {
	errs, _ := l.svc.Analytics().Errors(analytics.ErrorFilter{Limit: limit})
	out := make([]wire.ErrorEvent, len(errs))
	for i, e := range errs {
		out[i] = wire.ErrorEvent{Timestamp: e.Timestamp, Stage: e.Stage, Code: e.Code, Message: e.Message,
			RequestID: e.RequestID, MemoryID: e.MemoryID, Actor: e.Actor}
	}
	return out, nil
}

// Connectors implements Client.
func (l *InProcess) Connectors(ctx context.Context) ([]*wire.Connector, error) {
	return l.app.Connectors.List(ctx)
}

// SyncConnector implements Client.
func (l *InProcess) SyncConnector(ctx context.Context, id string) (*wire.SyncResult, error) {
	return l.app.Connectors.Sync(ctx, id)
}

// MemoryEntities implements Client.
func (l *InProcess) MemoryEntities(ctx context.Context, memoryID string) ([]graph.Entity, error) {
	return l.app.Graph.MemoryEntities(ctx, memoryID)
}

// GraphEntity implements Client.
func (l *InProcess) GraphEntity(ctx context.Context, id string, q graph.Query) (*graph.Detail, error) {
	return l.app.Graph.Entity(ctx, id, q)
}

// Session implements Client.
func (l *InProcess) Session(ctx context.Context, key string) (*sessions.Info, error) {
	return l.app.Sessions.Get(ctx, key)
}

// The two implementations are Clients.
var (
	_ Client = (*InProcess)(nil)
	_ Client = (*Remote)(nil)

	_ ProjectCounter = (*InProcess)(nil)
	_ ProjectCounter = (*Remote)(nil)
	_ SignetImporter = (*InProcess)(nil)
	_ SignetImporter = (*Remote)(nil)
)
