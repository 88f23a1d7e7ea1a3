package storage

import (
	"context"
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
