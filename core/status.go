package core

import (
	"context"

	"github.com/cairnmem/cairn/storage"
)

// MemoryTotals returns the live and deleted memory counts (cheap: a
// trigger-kept row).
func (s *Service) MemoryTotals(ctx context.Context) (live, deleted int64, err error) {
	total, deleted, err := storage.MemoryCounts(ctx, s.db.Reader())
	return total - deleted, deleted, err
}

// Publish tells the service's subscribers (the TUI) about a change made
// outside the memory write path (a repair).
func (s *Service) Publish(ev Event) { s.events.publish(ev) }
