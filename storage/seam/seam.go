// Package seam names the two types of storage's seam that both engines
// implement and the rest of cairn holds (as storage.Querier, storage.Tx
// and storage.Reader): a Querier, and a write transaction's Tx. It is a
// leaf: the engines (storage/sqlite, storage/postgres) import it so that
// storage's engine-neutral DB hands their transactions to its callers as
// they are, without a wrapper per transaction. It imports nothing.
package seam

import (
	"context"
	"database/sql"
)

// Querier runs statements, with database/sql's results: a Tx, or an
// engine's reader.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Tx is a write transaction's Querier on either engine: what fn gets from
// WriteTx. The functions that must run under the write lock (a lease, the
// full-text index's upkeep) take a Tx, so a reader cannot be passed.
type Tx interface {
	Querier
	// InWriteTx marks a write transaction; it does nothing.
	InWriteTx()
}
