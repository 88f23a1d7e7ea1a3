package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Checkpoints off the writer. Once the WAL holds walAutoCheckpoint pages,
// its frames are copied back into the database file (a checkpoint), which
// with synchronous=normal also syncs the file. SQLite does that inside the
// commit that crossed the threshold, on the writer connection: that commit,
// and every write queued behind it, waited for the copy and the sync — one
// remember in a few hundred took tens of milliseconds, the tail of a
// sequential client's latency. Here the commit only wakes a goroutine that
// checkpoints on a connection of its own. A PASSIVE checkpoint never blocks
// the writer (nor readers); SQLite restarts the WAL from its beginning at
// the first write after a checkpoint that copied everything.
//
// Should the background checkpoint fall behind (a reader holding an old
// snapshot, a write stream that never pauses), the WAL is bounded anyway:
// at walCheckpointInline times the threshold the commit checkpoints
// inline, as SQLite would.
const walCheckpointInline = 16

// checkpointer runs the background checkpoints of one database.
type checkpointer struct {
	conn    *sql.DB // nil until start: the commits of migrations checkpoint inline
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	started atomic.Bool
	// Checkpoints run so far, in the background and inline, and what the
	// last background one found: the WAL's frames and those it copied.
	background, inline atomic.Int64
	logFrames, copied  atomic.Int64
}

func newCheckpointer() *checkpointer {
	return &checkpointer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// afterCommit is called by the writer connection's WAL hook once a commit
// is in the WAL, with the WAL's size in pages and the size that asks for
// a checkpoint (walAutoCheckpoint, more during a bulk load).
func (k *checkpointer) afterCommit(c *sqlite3.Conn, schema string, pages, limit int) {
	if pages < limit {
		return
	}
	if k != nil && k.started.Load() && pages < walCheckpointInline*limit {
		select {
		case k.wake <- struct{}{}:
		default: // one is already due
		}
		return
	}
	_, _, _ = c.WALCheckpoint(schema, sqlite3.CHECKPOINT_PASSIVE)
	if k != nil {
		k.inline.Add(1)
	}
}

// start checkpoints on conn, a connection of its own to the database,
// whenever a commit asks, until close.
func (k *checkpointer) start(conn *sql.DB) {
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	k.conn = conn
	k.started.Store(true)
	go func() {
		defer close(k.done)
		for {
			select {
			case <-k.stop:
				return
			case <-k.wake:
			}
			// As SQLite's own automatic checkpoint, a failure is left to
			// the next: the WAL stays readable, it only grows.
			var busy, log, copied int64
			_ = conn.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied)
			k.logFrames.Store(log)
			k.copied.Store(copied)
			k.background.Add(1)
		}
	}()
}

// close stops the background checkpoints (Close runs the last one, on the
// writer, after the last commit).
func (k *checkpointer) close() error {
	if k == nil || !k.started.Load() {
		return nil
	}
	close(k.stop)
	<-k.done
	k.started.Store(false)
	return k.conn.Close()
}

// rowQuerier is a *sql.DB or a *sql.Conn.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// truncateWait bounds how long truncateWAL waits for a checkpoint running
// elsewhere (the background one) or a reader to let go of the WAL.
const truncateWait = 5 * time.Second

// truncateWAL copies the whole WAL into the database file and truncates
// the WAL to zero bytes. SQLite reports a checkpoint it could not finish
// (another checkpoint runs, a reader still needs old frames) as busy in
// the pragma's row, not as an error: that is retried, briefly, until it
// finishes or truncateWait has passed.
func truncateWAL(ctx context.Context, conn rowQuerier) error {
	deadline := time.Now().Add(truncateWait)
	for {
		var busy, log, copied int64
		if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &copied); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("the WAL is still in use after %v (%d of %d frames copied)", truncateWait, copied, log)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
