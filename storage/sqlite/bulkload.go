package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// A bulk write (an import of many batches) spends much of its time, with
// the writer's default settings, reading back index pages it wrote a
// batch ago (the 2 MB page cache holds few of them) and copying pages
// from the WAL to the file at every 4 MiB of WAL, the same index pages
// again and again. During one the writer keeps a larger cache and
// checkpoints every 64 MiB.
const (
	bulkCacheKiB        = 32 << 10
	bulkCheckpointPages = 16384
	defaultCacheKiB     = 2000 // as in dsn
	defaultCheckpoint   = walAutoCheckpoint
)

// bulkLoads counts the bulk writes under way: the first sets the writer's
// bulk settings, the last puts the defaults back.
type bulkLoads struct {
	mu sync.Mutex
	n  int
}

// BulkLoad readies the writer connection for a bulk write until the
// returned function is called. Concurrent bulk writes share the setting.
// A failure to change a setting only costs speed; it is returned for the
// caller to log, and done is still valid.
func (db *DB) BulkLoad(ctx context.Context) (done func(), err error) {
	db.bulk.mu.Lock()
	defer db.bulk.mu.Unlock()
	db.bulk.n++
	if db.bulk.n == 1 {
		err = db.writerPragmas(ctx, bulkCacheKiB, bulkCheckpointPages)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			db.bulk.mu.Lock()
			defer db.bulk.mu.Unlock()
			db.bulk.n--
			if db.bulk.n == 0 {
				_ = db.writerPragmas(context.WithoutCancel(ctx), defaultCacheKiB, defaultCheckpoint)
			}
		})
	}, err
}

// writerPragmas sets the writer's page cache and the WAL size at which
// its WAL hook checkpoints (changes.go: the hook replaces SQLite's
// wal_autocheckpoint, which must not be set: it would remove the hook).
func (db *DB) writerPragmas(ctx context.Context, cacheKiB, checkpointPages int) error {
	db.changes.checkpointAt.Store(int64(checkpointPages))
	_, err := db.write.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, cacheKiB))
	return err
}

// FTS5 merges its index's segments as it goes: once a level holds
// automerge segments (4 by default), the next writes merge them into one
// of the level above. A bulk load writes a segment per statement, about a
// hundred for 100k memories, and with the default rewrites the whole
// index three or four times over; at bulkAutomerge, under twice. Queries
// read a few more segments until later writes, at the default again,
// merge them.
const bulkAutomerge = 16

// ftsAutomergeQuery reads memories_fts's automerge setting (FTS5's default
// when never set).
const ftsAutomergeQuery = `SELECT v FROM memories_fts_config WHERE k = 'automerge'`

// BulkFTSMerge runs fn, a bulk write in tx, with the full-text index's
// automerge at bulkAutomerge, and puts the setting back before tx
// commits: the setting is itself a row of the index's tables, so it
// commits, or rolls back, with the rows fn wrote.
func BulkFTSMerge(ctx context.Context, tx *Tx, fn func() error) error {
	was := 4 // FTS5's default
	if err := tx.QueryRowContext(ctx, ftsAutomergeQuery).Scan(&was); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err := setFTSAutomerge(ctx, tx, bulkAutomerge); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	return setFTSAutomerge(ctx, tx, was)
}

func setFTSAutomerge(ctx context.Context, tx *Tx, n int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memories_fts(memories_fts, rank) VALUES ('automerge', ?)`, n)
	return err
}
