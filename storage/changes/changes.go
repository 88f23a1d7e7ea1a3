// Package changes holds the rids of memories rows an engine saw change
// and has not handed over yet: storage/sqlite fills it from its commit
// hooks, storage/postgres from its change-feed follower, and storage's
// indexes take them (PendingMemoryChanges, TakeMemoryChanges,
// ReturnMemoryChanges). It imports nothing of cairn.
package changes

import (
	"iter"
	"sync"
	"sync/atomic"
)

// Set is a set of rids waiting to be taken; its zero value is empty and
// ready to use, safe for concurrent use.
type Set struct {
	mu  sync.Mutex
	ids map[int64]struct{}
	n   atomic.Int64 // len(ids), read without the lock
}

// Add puts rids in the set (again, for rids whose reading failed).
func (s *Set) Add(rids iter.Seq[int64]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[int64]struct{}{}
	}
	for rid := range rids {
		s.ids[rid] = struct{}{}
	}
	s.n.Store(int64(len(s.ids)))
}

// Len is how many rids wait: cheap enough for every search.
func (s *Set) Len() int { return int(s.n.Load()) }

// Take returns the waiting rids, once.
func (s *Set) Take() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int64, 0, len(s.ids))
	for rid := range s.ids {
		out = append(out, rid)
	}
	clear(s.ids)
	s.n.Store(0)
	return out
}
