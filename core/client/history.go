package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/wire"
)

// historyScan is how many of the newest events the HTTP client reads to
// apply the filters the API does not have (a loose memory id, free text):
// the API's cap on one page.
const historyScan = 1000

// SearchHistory implements Client. The API filters by event and actor
// (and an exact memory id); the loose memory id and the words are matched
// here among the newest historyScan events of that selection.
func (c *Remote) SearchHistory(ctx context.Context, f core.HistorySearch, limit int) ([]*wire.HistoryEntry, error) {
	exact := core.HistoryFilter{Event: f.Event, Actor: f.Actor}
	scan := limit
	if f.Memory != "" || len(f.Text) > 0 {
		scan = historyScan
	}
	page, err := c.History(ctx, exact, scan)
	if err != nil {
		return nil, err
	}
	out := make([]*wire.HistoryEntry, 0, min(limit, len(page)))
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

// HistoryPage implements Client with GET /api/history?paged=true, which
// applies every part of f.
func (c *Remote) HistoryPage(ctx context.Context, f core.HistorySearch, p core.PageQuery, count bool) (*core.HistoryPage, error) {
	q := url.Values{}
	for k, v := range map[string]string{"event": f.Event, "actor": f.Actor, "mem": f.Memory} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for _, w := range f.Text {
		q.Add("text", w)
	}
	pageQuery(p, count, q)
	var out core.HistoryPage
	if err := c.do(ctx, http.MethodGet, withQuery("/api/history", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MatchHistory reports whether e matches f's loose parts (the memory id and
// the words) as the store's history search does; the HTTP client applies
// it to the events the API returned.
func MatchHistory(f core.HistorySearch, e *wire.HistoryEntry) bool {
	if f.Memory != "" {
		short := e.MemoryID[max(0, len(e.MemoryID)-wire.ShortIDLen):]
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
