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
