package sqlite

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cairnmem/cairn/storage/changes"
	"github.com/ncruces/go-sqlite3"
)

// memoryChanges records which rows of memories the writer connection
// inserted, updated or deleted, so that in-memory structures derived from
// them (the keyword index) can follow without rescanning the table. The
// update hook notes a row as its statement runs; the WAL hook, which
// SQLite calls once a commit is in the log and visible to readers, makes
// the transaction's rows available to TakeMemoryChanges. A row whose
// change was rolled back is reported anyway: readers find it unchanged.
// Nothing is kept past its commit until the first TakeMemoryChanges: a
// process that never asks keeps no list. The rows of a transaction that
// commits after that first call are kept, even when its statements ran
// before it.
type memoryChanges struct {
	watching atomic.Bool
	mu       sync.Mutex
	pending  map[int64]struct{}
	ready    changes.Set
	// checkpointAt is the WAL size in pages that makes the hook ask for
	// a checkpoint: walAutoCheckpoint when 0 (BulkLoad raises it).
	checkpointAt atomic.Int64
	// ckpt checkpoints the WAL the commits fill (checkpoint.go).
	ckpt *checkpointer
}

// walAutoCheckpoint is SQLite's default wal_autocheckpoint, which a WAL
// hook replaces: the hook asks for a checkpoint at the same threshold
// (checkpoint.go).
const walAutoCheckpoint = 1000

// watch installs the hooks on a new writer connection.
func (m *memoryChanges) watch(c *sqlite3.Conn) error {
	c.UpdateHook(func(_ sqlite3.AuthorizerActionCode, schema, table string, rowid int64) {
		// Noted whether or not anyone watches yet: a transaction whose
		// statements ran before the first TakeMemoryChanges may commit
		// after it, when its caller's read has already begun (a keyword
		// index build would miss the row for good).
		if table != "memories" || schema != "main" {
			return
		}
		m.mu.Lock()
		if m.pending == nil {
			m.pending = map[int64]struct{}{}
		}
		m.pending[rowid] = struct{}{}
		m.mu.Unlock()
	})
	c.WALHook(func(c *sqlite3.Conn, schema string, pages int) error {
		m.mu.Lock()
		if len(m.pending) > 0 {
			if m.watching.Load() {
				m.ready.Add(maps.Keys(m.pending))
			}
			clear(m.pending)
		}
		m.mu.Unlock()
		limit := int(m.checkpointAt.Load())
		if limit == 0 {
			limit = walAutoCheckpoint
		}
		m.ckpt.afterCommit(c, schema, pages, limit)
		return nil
	})
	return nil
}

// PendingMemoryChanges is how many committed rows of memories changed
// since the last TakeMemoryChanges: cheap enough for every search.
func (db *DB) PendingMemoryChanges() int {
	if db.changes == nil { // read-only: nothing is written through it
		return 0
	}
	return db.changes.ready.Len()
}

// TakeMemoryChanges returns the rids of memories rows inserted, updated
// or deleted by commits since the last call, and forgets them. The first
// call starts the recording and returns nothing: its caller reads the
// table after it.
func (db *DB) TakeMemoryChanges() []int64 {
	m := db.changes
	if m == nil {
		return nil
	}
	m.watching.Store(true)
	return m.ready.Take()
}

// ReturnMemoryChanges puts rids taken by TakeMemoryChanges back, as when
// reading them failed.
func (db *DB) ReturnMemoryChanges(rids []int64) {
	m := db.changes
	if m == nil {
		return
	}
	m.ready.Add(slices.Values(rids))
}
