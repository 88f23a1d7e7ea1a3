package pane

import (
	"context"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
)

// Change is one committed write, or (MemoryID empty) "something changed,
// refresh".
type Change struct {
	Kind     string // created, updated, deleted, recovered; empty when unknown
	MemoryID string
	Actor    string
}

// PollInterval is how often client mode asks the running cairn whether
// anything changed: the HTTP API has no event stream, and the newest
// history event is one cheap indexed query.
const PollInterval = 2 * time.Second

// subscriber is a client in this process, which streams the service's
// committed writes (client.InProcess).
type subscriber interface {
	Subscribe() (<-chan core.Event, func())
}

// Changes reports writes made by anyone (agents through the API, the
// workers, this UI) until stop is called. Each value is a hint to
// refresh, not a complete log: a slow reader may miss some. In process it
// is the service's event stream; over HTTP the newest history event is
// polled every PollInterval.
func Changes(c client.Client) (changes <-chan Change, stop func()) {
	if s, ok := c.(subscriber); ok {
		return events(s)
	}
	return poll(c)
}

func events(s subscriber) (<-chan Change, func()) {
	events, stop := s.Subscribe()
	out := make(chan Change, 16)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range events {
			select {
			case out <- Change{Kind: string(ev.Kind), MemoryID: ev.MemoryID, Actor: ev.Actor}:
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(done)
			stop()
		})
	}
}

// pollWindow is how many of the newest history events one poll reads to
// tell which memories changed since the last poll.
const pollWindow = 50

func poll(c client.Client) (<-chan Change, func()) {
	out := make(chan Change, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(out)
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		last := ""
		first := true
		for {
			page, err := c.History(ctx, core.HistoryFilter{}, pollWindow)
			if err == nil && len(page) > 0 && page[0].ID != last {
				if !first {
					select {
					case out <- changedSince(page, last):
					case <-ctx.Done():
						return
					}
				}
				last = page[0].ID
			}
			if err == nil {
				first = false
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(cancel) }
}

// changedSince is what the events newer than the one with id last changed
// (page is newest first): the one memory they all touch, or (several
// memories, or last no longer in the window) a change of everything. Only
// the newest event's memory would leave an open memory stale when another
// write followed its own within one poll.
func changedSince(page []*core.HistoryEntry, last string) Change {
	e := page[0]
	c := Change{Kind: e.Event, MemoryID: e.MemoryID, Actor: e.ChangedBy}
	for _, o := range page {
		if o.ID == last {
			return c
		}
		if o.MemoryID != c.MemoryID {
			return Change{}
		}
		if o.Event != c.Kind {
			c.Kind = ""
		}
	}
	return Change{} // more than the window changed
}
