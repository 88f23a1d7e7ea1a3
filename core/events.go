package core

import (
	"context"
	"sync"
)

// EventKind names what happened to a memory.
type EventKind string

// Event kinds published after each committed write.
const (
	EventCreated   EventKind = "created"
	EventUpdated   EventKind = "updated"
	EventDeleted   EventKind = "deleted"
	EventRecovered EventKind = "recovered"
)

// Event tells subscribers (the TUI) that a write committed. It carries ids,
// not rows: a subscriber re-reads what it shows.
type Event struct {
	Kind     EventKind
	MemoryID string
	Actor    string
}

// broker fans events out to subscribers without ever blocking a writer: a
// subscriber whose buffer is full misses events and is told so by a
// Dropped event, after which it should refresh.
type broker struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
}

// subscriberBuffer is how many events a slow subscriber may fall behind.
const subscriberBuffer = 256

// Subscribe returns a channel of events and a function that ends the
// subscription and closes the channel.
func (s *Service) Subscribe() (<-chan Event, func()) {
	b := &s.events
	ch := make(chan Event, subscriberBuffer)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[chan Event]struct{}{}
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, ch)
			b.mu.Unlock()
			close(ch)
		})
	}
}

func (b *broker) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- ev:
		default: // full: this subscriber refreshes on its next event
		}
	}
}

// changes are what a write changed, for what follows its commit.
type changes struct {
	actor  string
	sync   []string // memories whose index entries follow their rows
	embed  bool     // content wants a vector: wake the embedding tracker
	events []Event  // told to subscribers, in order
}

// add records a change of kind to each of ids.
func (c *changes) add(kind EventKind, ids ...string) {
	for _, id := range ids {
		c.events = append(c.events, Event{Kind: kind, MemoryID: id, Actor: c.actor})
	}
}

// committed does what follows a write's commit: the vector index follows
// the rows it touched, the embedding tracker wakes when content wants a
// vector, and subscribers hear of each change.
func (s *Service) committed(ctx context.Context, c changes) {
	s.vectors.SyncVectors(ctx, c.sync...)
	if c.embed {
		s.vectors.EmbedSoon()
	}
	for _, ev := range c.events {
		s.events.publish(ev)
	}
}
