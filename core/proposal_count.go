package core

import (
	"context"
	"fmt"
)

const countProposalsQuery = `SELECT count(*) FROM pipeline_proposals WHERE state = ?`

// CountProposals counts proposals in state (one indexed query), for status
// bars that only need to say how many wait for a decision.
func (s *Service) CountProposals(ctx context.Context, state string) (int, error) {
	var n int
	if err := s.db.Reader().QueryRowContext(ctx, countProposalsQuery, state).Scan(&n); err != nil {
		return 0, fmt.Errorf("count proposals: %w", err)
	}
	return n, nil
}
