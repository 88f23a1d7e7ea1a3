package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// DuplicateMerge is the deduplicate repair's change to one cluster of
// live duplicates (core/ops chooses the keeper and the tags).
type DuplicateMerge struct {
	Keeper     string   // the memory kept
	Duplicates []string // the memories retired in its favour
	// Tags are the keeper's tags after the merge (its own and those its
	// duplicates add); nil leaves them.
	Tags []string
	// Reason and Meta go into each duplicate's deleted event.
	Reason string
	Meta   map[string]any
}

// MergeDuplicatesTx writes a deduplication inside tx: each duplicate is
// soft-deleted without a version increment (nothing about the row changed
// but its being a duplicate) with a deleted event, and the keeper gets its
// new tags with a version increment. The caller records the merge on the
// keeper (AddHistory) and, after the commit, updates the vector index and
// tells subscribers.
func (s *Service) MergeDuplicatesTx(ctx context.Context, tx storage.Tx, d DuplicateMerge, actor Actor) error {
	now := s.Timestamp()
	for _, id := range d.Duplicates {
		m, err := liveMemory(ctx, tx, id)
		if err != nil {
			return err
		}
		m.IsDeleted, m.DeletedAt = true, now
		m.UpdatedAt, m.UpdatedBy = now, s.redact.Name(actor.Name)
		if err := storage.UpdateMemory(ctx, tx, m); err != nil {
			return err
		}
		old := m.Content
		if err := s.AddHistory(ctx, tx, m.ID, storage.EventDeleted, &old, nil, actor, d.Reason, d.Meta); err != nil {
			return err
		}
	}
	if d.Tags == nil {
		return nil
	}
	k, err := liveMemory(ctx, tx, d.Keeper)
	if err != nil {
		return err
	}
	k.Tags = d.Tags
	k.Version++
	k.UpdatedAt, k.UpdatedBy = now, s.redact.Name(actor.Name)
	return storage.UpdateMemory(ctx, tx, k)
}

// liveMemory reads memory id inside tx; a missing or deleted memory is
// not found.
func liveMemory(ctx context.Context, tx storage.Tx, id string) (*storage.Memory, error) {
	m, err := storage.GetMemory(ctx, tx, id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && m.IsDeleted) {
		return nil, fmt.Errorf("memory %s: %w", id, ErrNotFound)
	}
	return m, err
}
