package pipeline

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// CountProposals counts proposals in state (one indexed query), for status
// bars that only need to say how many wait for a decision.
func (s *Pipeline) CountProposals(ctx context.Context, state string) (int, error) {
	n, err := storage.CountProposals(ctx, s.svc.DB().Reader(), state)
	if err != nil {
		return 0, fmt.Errorf("count proposals: %w", err)
	}
	return n, nil
}
