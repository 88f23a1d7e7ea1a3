package pane

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
)

// Status is the service state shown in the status bar. Zero values mean
// unknown and are not shown.
type Status struct {
	Addr      string // API address
	AuthMode  string // local, team, hybrid
	Pipeline  string // disabled, shadow, controlled-write, frozen
	Embedding string // configured embedding provider, when known
	Memories  int
	Deleted   int
	// Queue is pending+leased jobs; QueueKnown is false when the client
	// cannot tell (an API that reports no queue).
	Queue      int
	QueueKnown bool
	// DeadJobs are jobs out of attempts, waiting for a person.
	DeadJobs int
	// PendingProposals wait for a decision.
	PendingProposals int
	// Learned are the memories learned from sessions since the person
	// last looked (the Learned view, L in Recall).
	Learned int
	// Health is what could be measured, e.g. "db 2ms" (the store's count
	// queries) or "api 5ms" (GET /health); empty when nothing answered.
	Health string
}

// Snapshot reads the status bar's state through c. addr is the API this
// process serves when c is in process (shown in the status bar); a remote
// client shows its own address. In process, Health is the round trip of
// the counts, which come from the trigger-kept totals row, not a scan; over
// HTTP it is the round trip of GET /health.
func Snapshot(ctx context.Context, c client.Client, addr string) (Status, error) {
	if c.Addr() == "" {
		return localSnapshot(ctx, c, addr)
	}
	st := Status{Addr: c.Addr()}
	start := time.Now()
	if err := c.Health(ctx); err != nil {
		return st, err
	}
	st.Health = "api " + roundMS(time.Since(start))
	s, err := c.Status(ctx)
	if err != nil {
		return st, err
	}
	st.AuthMode, st.Pipeline = s.AuthMode, s.Pipeline.Mode
	st.Memories, st.Deleted = s.Memories.Total, s.Memories.Deleted
	if s.Queue != nil {
		st.Queue, st.QueueKnown = s.Queue["pending"]+s.Queue["leased"], true
		st.DeadJobs = s.Queue["dead"]
	}
	// One row and the count of all: the same number the Proposals pane
	// shows.
	ps, err := c.Proposals(ctx, wire.ProposalFilter{State: wire.ProposalPending}, 1)
	if err != nil {
		return st, err
	}
	st.PendingProposals = ps.Total
	// A cairn older than the Learned view answers 404: no count, no error.
	if l, err := c.Learned(ctx, 0); err == nil {
		st.Learned = l.Count
	}
	return st, nil
}

// RefreshStatusMsg asks the shell to re-read the status bar's snapshot
// now: a pane changed what it counts by a write the live change stream
// does not carry (a proposal rejected).
type RefreshStatusMsg struct{}

// PendingCounter is implemented by a pane that lists the pending
// proposals (Proposals): while it is on screen the status bar shows its
// count, read by the same refresh as its list, so the two never disagree.
// known is false while the pane holds no such count (not loaded yet, or
// listing decided proposals).
type PendingCounter interface {
	PendingProposals() (n int, known bool)
}

func localSnapshot(ctx context.Context, c client.Client, addr string) (Status, error) {
	st := Status{Addr: addr}
	start := time.Now()
	s, err := c.Status(ctx)
	if err != nil {
		return st, err
	}
	st.Health = "db " + roundMS(time.Since(start))
	st.AuthMode, st.Pipeline, st.Embedding = s.AuthMode, s.Pipeline.Mode, s.Embedding.Provider
	st.Memories, st.Deleted = s.Memories.Total, s.Memories.Deleted
	st.Queue, st.QueueKnown = s.Queue["pending"]+s.Queue["leased"], true
	st.DeadJobs = s.Queue["dead"]
	st.PendingProposals = int(s.Counts.PendingProposals)
	l, err := c.Learned(ctx, 0)
	if err != nil {
		return st, err
	}
	st.Learned = l.Count
	return st, nil
}

func roundMS(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
