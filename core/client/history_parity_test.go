package client_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// TestSearchHistoryBothBackends checks the History pane's filter on the
// real store, in process and over the API: the short id the UI shows (and
// its start) selects a memory's events, words are free text over content,
// reason and actor (not an actor name), and LIKE's wildcards are literal.
func TestSearchHistoryBothBackends(t *testing.T) {
	svc, backends := opsBackends(t)
	ctx := context.Background()
	agent := core.Actor{Name: "claude-code", Type: core.ActorAgent}
	var ids []string
	for _, c := range []string{"the webshop deploy needs VPN access", "atlas uses 100% of its quota", "postgres listens on 5433"} {
		res, err := svc.Remember(ctx, core.RememberInput{Content: c}, agent)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	content := "postgres listens on 5433 in staging"
	if _, err := svc.Modify(ctx, core.Patch{ID: ids[2], Content: &content, Reason: "clarify the environment"}, core.Actor{Name: "ops-bot", Type: core.ActorAgent}); err != nil {
		t.Fatal(err)
	}
	short := ids[2][len(ids[2])-storage.ShortIDLen:]
	cases := []struct {
		name string
		f    core.HistorySearch
		want []string // memory ids, newest event first
	}{
		{"short id", core.HistorySearch{Memory: short}, []string{ids[2], ids[2]}},
		{"short id start", core.HistorySearch{Memory: short[:5]}, []string{ids[2], ids[2]}},
		{"full id", core.HistorySearch{Memory: ids[0]}, []string{ids[0]}},
		{"id start", core.HistorySearch{Memory: ids[1][:30]}, []string{ids[1]}},
		{"word in content", core.HistorySearch{Text: []string{"vpn"}}, []string{ids[0]}},
		{"word in reason", core.HistorySearch{Text: []string{"environment"}}, []string{ids[2]}},
		{"word is an actor", core.HistorySearch{Text: []string{"ops-bot"}}, []string{ids[2]}},
		{"every word must match", core.HistorySearch{Text: []string{"postgres", "staging"}}, []string{ids[2]}},
		{"percent is literal", core.HistorySearch{Text: []string{"%"}}, []string{ids[1]}},
		{"underscore is literal", core.HistorySearch{Text: []string{"_"}}, nil},
		{"event and text", core.HistorySearch{Event: "updated", Text: []string{"postgres"}}, []string{ids[2]}},
		{"actor exact", core.HistorySearch{Actor: "ops"}, nil},
	}
	for name, b := range backends {
		for _, c := range cases {
			got, err := b.SearchHistory(ctx, c.f, 50)
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.name, err)
			}
			var mems []string
			for _, e := range got {
				mems = append(mems, e.MemoryID)
			}
			if !slices.Equal(mems, c.want) {
				t.Errorf("%s %s: events of %v, want %v", name, c.name, mems, c.want)
			}
		}
	}
}
