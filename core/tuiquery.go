package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/storage"
)

// SearchHistory is the terminal UI's History filter over the audit trail:
// History with a loose memory id (its start, or the start of the short id
// the UI shows) and free-text words, newest first.
func (s *Service) SearchHistory(ctx context.Context, f storage.HistorySearch, limit int) ([]*HistoryEntry, error) {
	rows, err := storage.SearchHistory(ctx, s.db.Reader(), f, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*HistoryEntry, len(rows))
	for i, h := range rows {
		out[i] = historyEntry(h)
	}
	return out, nil
}

// ListPage returns one page of the memories matching f, newest first,
// each with its cursor; with count, also how many f selects (the
// trigger-kept totals when f only picks live or deleted memories, else a
// count of the rows).
func (s *Service) ListPage(ctx context.Context, f storage.MemoryFilter, p storage.PageQuery, count bool) (*MemoryPage, error) {
	if e := CheckFilter(f); e != nil {
		return nil, e
	}
	if p.Limit < 1 || p.Limit > MaxPageLimit {
		return nil, Invalid("limit", "limit must be an integer from 1 to %d", MaxPageLimit)
	}
	r := s.db.Reader()
	rows, cursors, err := storage.ListMemoriesPage(ctx, r, f, p)
	if err != nil {
		return nil, pageError(err)
	}
	out := &MemoryPage{Memories: make([]*Memory, len(rows)), Cursors: cursors, Total: -1}
	for i, m := range rows {
		out.Memories[i] = ViewOf(m)
	}
	if out.Cursors == nil {
		out.Cursors = []string{}
	}
	if count {
		if out.Total, err = s.countMemories(ctx, f); err != nil {
			return nil, fmt.Errorf("count memories: %w", err)
		}
	}
	return out, nil
}

// MaxPageLimit is the most rows one page holds.
const MaxPageLimit = 1000

// pageError names a malformed cursor as the field it came in.
func pageError(err error) error {
	if strings.HasPrefix(err.Error(), "cursor ") {
		return Invalid("cursor", "%s", err.Error())
	}
	return err
}

// countMemories counts what f selects; only-live and only-deleted are the
// kept totals.
func (s *Service) countMemories(ctx context.Context, f storage.MemoryFilter) (int, error) {
	bare := f.Type == "" && len(f.Tags) == 0 && f.Who == "" && f.Project == "" && f.SourceType == "" &&
		f.Pinned == nil && f.ImportanceMin == nil && f.Since == "" && f.Until == "" && f.Scope == "" && len(f.IDs) == 0
	if bare && !f.IncludeDeleted {
		live, deleted, err := s.MemoryTotals(ctx)
		if f.OnlyDeleted {
			return int(deleted), err
		}
		return int(live), err
	}
	return storage.CountMemories(ctx, s.db.Reader(), f)
}

// SearchHistoryPage is SearchHistory one page at a time, each event with
// its cursor; with count, also how many events match.
func (s *Service) SearchHistoryPage(ctx context.Context, f storage.HistorySearch, p storage.PageQuery, count bool) (*HistoryPage, error) {
	if p.Limit < 1 || p.Limit > MaxPageLimit {
		return nil, Invalid("limit", "limit must be an integer from 1 to %d", MaxPageLimit)
	}
	r := s.db.Reader()
	rows, cursors, err := storage.SearchHistoryPage(ctx, r, f, p)
	if err != nil {
		return nil, pageError(err)
	}
	out := &HistoryPage{History: make([]*HistoryEntry, len(rows)), Cursors: cursors, Total: -1}
	for i, h := range rows {
		out.History[i] = historyEntry(h)
	}
	if out.Cursors == nil {
		out.Cursors = []string{}
	}
	if count {
		if out.Total, err = storage.CountHistory(ctx, r, f); err != nil {
			return nil, fmt.Errorf("count history: %w", err)
		}
	}
	return out, nil
}
