package backend

import (
	"context"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// historyScan is how many of the newest events client mode reads to apply
// the filters the API does not have (a loose memory id, free text): the
// API's cap on one page.
const historyScan = 1000

// SearchHistory implements Backend. The API filters by event and actor
// (and an exact memory id); the loose memory id and the words are matched
// here among the newest historyScan events of that selection.
func (h *HTTP) SearchHistory(ctx context.Context, f storage.HistorySearch, limit int) ([]*core.HistoryEntry, error) {
	exact := storage.HistoryFilter{Event: f.Event, Actor: f.Actor}
	scan := limit
	if f.Memory != "" || len(f.Text) > 0 {
		scan = historyScan
	}
	page, err := h.c.History(ctx, exact, scan)
	if err != nil {
		return nil, err
	}
	out := make([]*core.HistoryEntry, 0, min(limit, len(page)))
	for _, e := range page {
		if len(out) == limit {
			break
		}
		if MatchHistory(f, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// MatchHistory reports whether e matches f's loose parts (the memory id and
// the words) as storage.SearchHistory does; client mode applies it to the
// events the API returned.
func MatchHistory(f storage.HistorySearch, e *core.HistoryEntry) bool {
	if f.Memory != "" {
		short := e.MemoryID[max(0, len(e.MemoryID)-storage.ShortIDLen):]
		if !hasPrefixFold(e.MemoryID, f.Memory) && !hasPrefixFold(short, f.Memory) {
			return false
		}
	}
	for _, w := range f.Text {
		w = strings.ToLower(w)
		found := false
		for _, s := range []*string{e.NewContent, e.OldContent, &e.Reason, &e.ChangedBy} {
			if s != nil && strings.Contains(strings.ToLower(*s), w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
