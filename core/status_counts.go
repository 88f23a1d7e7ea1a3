package core

import (
	"context"

	"github.com/cairnmem/cairn/storage"
)

// ProviderState is the extraction provider as the pipeline last saw it.
type ProviderState struct {
	Provider  string // the provider the workers resolved
	Available bool
	// Error is the provider's own error, else the pipeline's last error.
	Error string
}

// Provider returns the extraction provider's state.
func (r *PipelineRuntime) Provider() ProviderState {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.providerError
	if e == "" {
		e = r.lastError
	}
	return ProviderState{Provider: r.provider, Available: r.providerAvailable, Error: e}
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
