package core

import (
	"context"

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
