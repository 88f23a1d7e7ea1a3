package core

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// RecentMemories returns up to limit memories matching f, newest first.
// It is List without the total count and the store statistics, which scan
// every row: the terminal UI lists recent memories on every refresh and
// reads the counts separately, less often.
func (s *Service) RecentMemories(ctx context.Context, f storage.MemoryFilter, limit int) ([]*Memory, error) {
	rows, err := storage.ListMemories(ctx, s.db.Reader(), f, limit, 0)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	out := make([]*Memory, len(rows))
	for i, m := range rows {
		out[i] = viewOf(m)
	}
	return out, nil
}
