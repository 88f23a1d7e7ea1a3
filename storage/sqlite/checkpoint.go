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
//
// A checkpoint that copied everything does not shrink the WAL: SQLite
// starts writing it over from its beginning at the next commit only if
// at that moment no reader holds a snapshot in it. While cairn serves,
// readers overlap (recalls, the workers' reads, the remembers' own
// lookups) and writes never pause long, that moment never came, and the
// WAL grew with every commit, to 25 times the database at 2,000
// memories, until a clean shutdown. Two things bound it now:
//
//   - Once the WAL holds walRestartAt times the checkpoint threshold,
//     the writer goroutine, between two transactions, runs a RESTART
//     checkpoint on the checkpoint connection: with no commit under way it
//     copies the frames PASSIVE left, waits for the readers of old frames
//     to finish (readers that start meanwhile read the file, which then
//     holds everything) and lets the next commit write the WAL over from
//     its beginning. The writes queued meanwhile wait for that copy and
//     its sync, once per walRestartAt thresholds of WAL, not at every
//     one as inline checkpoints did. Run from the background goroutine,
//     it lost the write lock to the next commit again and again and gave
//     up. It waits for readers at most checkpointBusy: one that holds
//     its snapshot longer (a start-up scan, a reader the machine left
//     unscheduled) makes it give up, and it is due again once the WAL
//     has grown by one more threshold, so a long reader costs the writers
//     one short wait, not one per commit.
//   - Once no commit has come for walIdle, the background goroutine
//     empties the WAL file (TRUNCATE): an idle cairn leaves none. It
//     does only while none of this process's readers is in a query: a
//     TRUNCATE waiting for a reader's snapshot held back the readers
//     that started meanwhile.
//
// journal_size_limit (walSizeLimit) trims the file when SQLite writes it
// over, so a WAL that once grew large (a bulk import's) does not keep
// its size.
const (
	walCheckpointInline = 16
	walRestartAt        = 2
	checkpointBusy      = 50 * time.Millisecond
	walIdle             = 2 * time.Second
	walSizeLimit        = 16 << 20
)

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
	// RESTART checkpoints that let the WAL start over, those that gave up
	// (a reader held on), and the TRUNCATEs of an idle WAL.
	restarted, restartBusy, truncated atomic.Int64
	// restartDue is set by a commit that left the WAL at walRestartAt
	// times the threshold and at least retryAt pages.
	restartDue atomic.Bool
	retryAt    atomic.Int64
	// commits counts the commits; lastCommit is the last one's time.
	commits, lastCommit atomic.Int64
	limit               atomic.Int64 // the threshold of the commit that set restartDue
	// readersBusy says whether a reader connection is in a query.
	readersBusy func() bool
}

func newCheckpointer() *checkpointer {
	return &checkpointer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// afterCommit is called by the writer connection's WAL hook once a commit
// is in the WAL, with the WAL's size in pages and the size that asks for
// a checkpoint (walAutoCheckpoint, more during a bulk load).
func (k *checkpointer) afterCommit(c *sqlite3.Conn, schema string, pages, limit int) {
	if k != nil {
		k.commits.Add(1)
		k.lastCommit.Store(time.Now().UnixNano())
	}
	if pages < limit {
		return
	}
	if k != nil && k.started.Load() && pages >= walRestartAt*limit && int64(pages) >= k.retryAt.Load() {
		k.limit.Store(int64(limit))
		k.restartDue.Store(true)
		// The writer's RESTART, right after this commit, copies the
		// whole WAL: a background checkpoint now would only hold the
		// checkpoint connection it needs.
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

// start checkpoints on conn, a connection of its own to the database
// whose busy timeout is checkpointBusy, whenever a commit asks, until
// close.
func (k *checkpointer) start(conn *sql.DB) {
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	k.conn = conn
	k.started.Store(true)
	go func() {
		defer close(k.done)
		idle := time.NewTicker(walIdle)
		defer idle.Stop()
		var truncatedAt int64 // commits when the WAL was last emptied
		for {
			select {
			case <-k.stop:
				return
			case <-k.wake:
			case <-idle.C:
				n := k.commits.Load()
				if n != truncatedAt && time.Since(time.Unix(0, k.lastCommit.Load())) >= walIdle &&
					(k.readersBusy == nil || !k.readersBusy()) && k.checkpoint("TRUNCATE") {
					truncatedAt = n
					k.truncated.Add(1)
				}
				continue
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

// restartIfDue lets the WAL start over when a commit asked for it. The
// writer goroutine calls it between transactions, so that no commit
// takes the write lock from the checkpoint while it waits for readers.
func (k *checkpointer) restartIfDue() {
	if k == nil || !k.started.Load() || !k.restartDue.CompareAndSwap(true, false) {
		return
	}
	ok, log := k.checkpointMode("RESTART")
	if ok {
		k.restarted.Add(1)
		k.retryAt.Store(0)
		return
	}
	k.restartBusy.Add(1)
	k.retryAt.Store(log + k.limit.Load())
}

// checkpoint runs a checkpoint of mode (RESTART or TRUNCATE) on the
// checkpoint connection and says whether it finished: whether every
// frame was copied and no reader still uses the WAL.
func (k *checkpointer) checkpoint(mode string) bool {
	ok, _ := k.checkpointMode(mode)
	return ok
}

// checkpointMode is checkpoint, also returning the WAL's size in frames.
func (k *checkpointer) checkpointMode(mode string) (ok bool, log int64) {
	var busy, copied int64
	err := k.conn.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(`+mode+`)`).Scan(&busy, &log, &copied)
	return err == nil && busy == 0, log
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
