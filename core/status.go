package core

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// QueueCounts counts memory_jobs by status (pending, leased, completed,
// failed, dead), every status present even when zero.
func (s *Service) QueueCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{"pending": 0, "leased": 0, "completed": 0, "failed": 0, "dead": 0}
	counts, err := storage.CountJobsByStatus(ctx, s.db.Reader())
	if err != nil {
		return nil, fmt.Errorf("queue counts: %w", err)
	}
	for st, n := range counts {
		out[st] = n
	}
	return out, nil
}

// ProviderState is the extraction provider as the pipeline last saw it.
type ProviderState struct {
	Provider      string // the provider the workers resolved
	Available     bool
	ProviderError string // why the provider is not available
	LastError     string // the pipeline's last job error
}

// Provider returns the extraction provider's state.
func (r *PipelineRuntime) Provider() ProviderState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ProviderState{Provider: r.provider, Available: r.providerAvailable, ProviderError: r.providerError, LastError: r.lastError}
}

// MemoryTotals returns the live and deleted memory counts (cheap: a
// trigger-kept row).
func (s *Service) MemoryTotals(ctx context.Context) (live, deleted int64, err error) {
	total, deleted, err := storage.MemoryCounts(ctx, s.db.Reader())
	return total - deleted, deleted, err
}

// PendingProposals counts the proposals waiting for a decision.
func (s *Service) PendingProposals(ctx context.Context) (int64, error) {
	n, err := storage.CountProposals(ctx, s.db.Reader(), storage.ProposalPending)
	return int64(n), err
}

// Publish tells the service's subscribers (the TUI) about a change made
// outside the memory write path (a repair).
func (s *Service) Publish(ev Event) { s.events.publish(ev) }
