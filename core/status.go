package core

import (
	"context"
	"fmt"
)

// QueueCounts counts memory_jobs by status (pending, leased, completed,
// failed, dead), every status present even when zero.
func (s *Service) QueueCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{"pending": 0, "leased": 0, "completed": 0, "failed": 0, "dead": 0}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT status, count(*) FROM memory_jobs GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("queue counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}
