package postgres

import (
	"context"
	"fmt"
	"strconv"
)

// feedBound is the transaction id below which every transaction of this
// database has ended, read before the snapshot that reads the change log
// (ChangesSince), so that the log's rows of every transaction below it
// that committed are visible to that snapshot.
//
// Not the snapshot's xmin: transaction ids and snapshots are the whole
// server's, and a long write transaction in another database of the
// server (another application's batch job, a session left idle in a
// transaction) would hold every cairn's feed back for as long as it runs,
// although only this database's transactions write its change log.
//
// The next id to be assigned is read first, then the ids of this
// database's running transactions: a transaction of this database still
// running when the log is read either ran when its id was listed, or was
// given its id after the first read, at or above that next id. The bound
// is the lowest of those.
func (db *DB) feedBound(ctx context.Context) (uint64, error) {
	var s string
	if err := db.sql.QueryRowContext(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text`).Scan(&s); err != nil {
		return 0, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	next, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("postgres: changes: next id %q: %w", s, err)
	}
	// backend_xid is a 32-bit id; its epoch is next's, or the one before
	// for an id above next's low bits.
	rows, err := db.sql.QueryContext(ctx, `SELECT backend_xid::text FROM pg_stat_activity
		WHERE datname = current_database() AND backend_xid IS NOT NULL`)
	if err != nil {
		return 0, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	defer rows.Close()
	bound := next
	for rows.Next() {
		if err := rows.Scan(&s); err != nil {
			return 0, err
		}
		x32, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("postgres: changes: running id %q: %w", s, err)
		}
		x := next&^0xffffffff | x32
		if x >= next && x >= 1<<32 {
			x -= 1 << 32
		}
		bound = min(bound, x)
	}
	if err := rows.Err(); err != nil {
		return 0, db.redact.err(fmt.Errorf("postgres: changes: %w", err))
	}
	return bound, nil
}
