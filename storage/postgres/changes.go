package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// The change feed across servers: migration 0002 logs the rid of every
// memories row a transaction inserts, updates or deletes in
// memory_changes, with the transaction's id, and notifies
// cairn_memory_changes at commit. A follower (one per server, for its
// in-memory indexes) keeps a Cursor and calls ChangesSince on a
// notification and on a timer.
//
// Sequence numbers are handed out in insert order, not commit order, so
// "seq greater than the last one read" would skip a row whose transaction
// commits after a later one's. A Cursor is a transaction id instead: the
// lowest id of this database's transactions still running at the last
// read (feedBound), below which every one had ended. The next read takes
// the rows of transactions from the cursor up to its own bound, each
// transaction's rows once, in the read where it first lies wholly in the
// past. A change therefore waits for the oldest transaction of this
// database running when it committed: the feed's delay is the longest
// write transaction's, which WriteTx keeps short. Other databases' on the
// same server do not count.

// Cursor is where a follower of the change feed stands: a transaction id
// below which it has read every committed change.
type Cursor struct{ xmin uint64 }

// String is the cursor as PostgreSQL's xid8 text, for logs and tests.
func (c Cursor) String() string { return strconv.FormatUint(c.xmin, 10) }

// ChangesChannel is the channel each write of memories notifies at commit.
const ChangesChannel = "cairn_memory_changes"

// ChangeCursor starts following: changes committed by transactions that
// begin after it are read by ChangesSince from the cursor it returns. The
// caller reads the table itself after this call, as it does after the
// SQLite engine's first TakeMemoryChanges.
func (db *DB) ChangeCursor(ctx context.Context) (Cursor, error) {
	x, err := db.feedBound(ctx)
	if err != nil {
		return Cursor{}, err
	}
	return Cursor{xmin: x}, nil
}

// ChangesSince returns the distinct rids of memories rows changed by the
// transactions that ended between c and now, and the cursor to read from
// next. Rows of a transaction still running, or of one that began before
// a transaction still running, wait for a later call. A rolled-back
// transaction's rows are never seen.
func (db *DB) ChangesSince(ctx context.Context, c Cursor) ([]int64, Cursor, error) {
	// Every transaction of this database below x has ended, and the
	// snapshot the rows are read in is taken after that was established
	// (feedBound): those that committed are visible to it.
	x, err := db.feedBound(ctx)
	if err != nil {
		return nil, c, err
	}
	next := Cursor{xmin: x}
	if x <= c.xmin {
		return nil, c, nil
	}
	tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, c, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT rid FROM memory_changes
		WHERE xid >= $1::text::xid8 AND xid < $2::text::xid8 ORDER BY rid`, c.String(), next.String())
	if err != nil {
		return nil, c, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	defer rows.Close()
	var rids []int64
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			return nil, c, err
		}
		rids = append(rids, rid)
	}
	if err := rows.Err(); err != nil {
		return nil, c, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	return rids, next, nil
}

// PruneChanges deletes the log's rows of transactions below c, which every
// follower has read when c is the oldest of their cursors.
func (db *DB) PruneChanges(ctx context.Context, c Cursor) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM memory_changes WHERE xid < $1::text::xid8`, c.String())
	if err != nil {
		return 0, db.redact.err(fmt.Errorf("postgres: prune changes: %w", err))
	}
	return res.RowsAffected()
}

// Listen opens a connection of its own that listens on ChangesChannel and
// signals the returned channel (buffered, one pending signal) at each
// notification, until ctx ends or the connection fails; then the channel
// is closed, and the caller listens again after reading ChangesSince (a
// notification missed while it was away is a change that read finds).
// The follower polls too: a change whose transaction is not yet below
// every snapshot's xmin when its notification comes is read by a later
// call.
func (db *DB) Listen(ctx context.Context) (<-chan struct{}, error) {
	conn, err := pgx.ConnectConfig(ctx, db.cfg.Copy())
	if err != nil {
		return nil, db.redact.err(fmt.Errorf("postgres: listen: %w", err))
	}
	if _, err := conn.Exec(ctx, `LISTEN `+ChangesChannel); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, db.redact.err(fmt.Errorf("postgres: listen: %w", err))
	}
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		defer conn.Close(context.WithoutCancel(ctx))
		for {
			if _, err := conn.WaitForNotification(ctx); err != nil {
				return
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return ch, nil
}

// LiveWindow is how recently a follower must have recorded its cursor
// (Beat) for the log below it to be kept: a follower silent for longer
// may find the changes it had not read pruned (Follower.Behind).
const LiveWindow = 10 * time.Minute

// Beat records follower id's cursor, and that it is alive now.
func (db *DB) Beat(ctx context.Context, id string, c Cursor) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO memory_changes_followers (id, cursor_xid, seen_at)
		VALUES ($1, $2::text::xid8, now())
		ON CONFLICT (id) DO UPDATE SET cursor_xid = excluded.cursor_xid, seen_at = excluded.seen_at`, id, c.String())
	if err != nil {
		return db.redact.err(fmt.Errorf("postgres: record the feed's cursor: %w", err))
	}
	return nil
}

// PruneFollowed deletes the log's rows below the oldest cursor of the
// followers seen within LiveWindow (none when no follower is), and the
// followers not seen for a day. It returns the rows deleted.
func (db *DB) PruneFollowed(ctx context.Context) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM memory_changes WHERE xid < (
		SELECT min(cursor_xid) FROM memory_changes_followers WHERE seen_at > now() - make_interval(secs => $1))`,
		LiveWindow.Seconds())
	if err != nil {
		return 0, db.redact.err(fmt.Errorf("postgres: prune changes: %w", err))
	}
	n, _ := res.RowsAffected()
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM memory_changes_followers WHERE seen_at < now() - interval '1 day'`); err != nil {
		return n, db.redact.err(fmt.Errorf("postgres: prune followers: %w", err))
	}
	return n, nil
}

// OwnChanges returns the rids of memories rows tx has changed so far (the
// log's rows of its own transaction): a server hands them to its own
// follower at commit, so what it wrote is in its indexes at once, as on
// SQLite, and not only once the feed brings it.
func OwnChanges(ctx context.Context, tx *Tx) ([]int64, error) {
	rows, err := tx.tx.QueryContext(context.WithoutCancel(ctx), `SELECT DISTINCT rid FROM memory_changes WHERE xid = pg_current_xact_id()`)
	if err != nil {
		return nil, fmt.Errorf("postgres: own changes: %w", err)
	}
	defer rows.Close()
	var rids []int64
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			return nil, err
		}
		rids = append(rids, rid)
	}
	return rids, rows.Err()
}
