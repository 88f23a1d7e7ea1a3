package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
	"github.com/jackc/pgx/v5/pgtype"
)

// writeLockKey is the advisory lock every WriteTx holds until it ends:
// write transactions are serialized across every server on the database,
// as the SQLite engine's one writer serializes them in one process, so
// what a transaction reads holds until it commits (dedup, if_version,
// supersession rely on it). A job lease does not take it (jobs.go).
const writeLockKey int64 = 0x636169726e_7731 // "cairn" "w1"

// Querier is what storage's query functions run on: database/sql's
// methods. Tx and Reader take SQLite's ? and ?N parameters as well as
// PostgreSQL's $n (Rebind).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// pgArgs binds Go's bool as a flag: the schema keeps flags in integer
// columns (migrations/0001_schema.sql), as 0 or 1, which pgx will not fill
// from a bool, while a bool in a boolean place (CASE WHEN ? ...) must stay
// one. SQLite's driver binds a bool as 0 or 1 and SQLite takes that for
// both.
//
// A string holding NUL loses it: PostgreSQL's text cannot hold the byte
// (SQLite's can), and no reader of cairn's shows it (control bytes are
// stripped on the way out).
func pgArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var v any
		switch a := a.(type) {
		case bool:
			v = flag(a)
		case string:
			if strings.IndexByte(a, 0) < 0 {
				continue
			}
			v = strings.ReplaceAll(a, "\x00", "")
		case *string:
			if a == nil || strings.IndexByte(*a, 0) < 0 {
				continue
			}
			v = strings.ReplaceAll(*a, "\x00", "")
		default:
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = v
	}
	if out == nil {
		return args
	}
	return out
}

// flag is a bool that pgx encodes as whatever the parameter is: 0 or 1
// for an integer, true or false for a boolean.
type flag bool

func (f flag) Int64Value() (pgtype.Int8, error) {
	n := int64(0)
	if f {
		n = 1
	}
	return pgtype.Int8{Int64: n, Valid: true}, nil
}

func (f flag) BoolValue() (pgtype.Bool, error) { return pgtype.Bool{Bool: bool(f), Valid: true}, nil }

// Tx is a write transaction's Querier. Its statements do not see the
// caller's cancellation: a started transaction runs whole.
type Tx struct{ tx *sql.Tx }

// InWriteTx marks a write transaction (seam.Tx).
func (t *Tx) InWriteTx() {}

// Dialect says storage's statements run here in PostgreSQL's.
func (t *Tx) Dialect() dialect.Dialect { return dialect.Postgres }

func (t *Tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(context.WithoutCancel(ctx), rebindCached(q), pgArgs(args)...)
}

func (t *Tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(context.WithoutCancel(ctx), rebindCached(q), pgArgs(args)...)
}

func (t *Tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(context.WithoutCancel(ctx), rebindCached(q), pgArgs(args)...)
}

// Reader is the pool's Querier over committed rows; it never waits for a
// writer (PostgreSQL's MVCC).
type Reader struct{ db *sql.DB }

// Dialect says storage's statements run here in PostgreSQL's.
func (r *Reader) Dialect() dialect.Dialect { return dialect.Postgres }

func (r *Reader) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.db.QueryContext(ctx, rebindCached(q), pgArgs(args)...)
}

func (r *Reader) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return r.db.QueryRowContext(ctx, rebindCached(q), pgArgs(args)...)
}

func (r *Reader) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return nil, errors.New("postgres: write through the reader")
}

// Reader returns the read Querier.
func (db *DB) Reader() *Reader { return &Reader{db: db.sql} }

// WriteTx runs fn in a transaction that holds the write lock, committed
// if fn returns nil and rolled back if it returns an error or panics (the
// panic is raised again). A caller whose ctx ends before its transaction
// starts writes nothing; once fn runs, it runs whole. fn makes no network
// or model calls: every other writer, on every server, waits.
func (db *DB) WriteTx(ctx context.Context, fn func(*Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	// database/sql rolls a transaction back when BeginTx's ctx ends: the
	// transaction gets a ctx without cancellation, and only the wait for
	// the write lock below sees the caller's.
	tx, err := db.sql.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return db.redact.err(fmt.Errorf("postgres: begin: %w", err))
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, writeLockKey); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return db.redact.err(fmt.Errorf("postgres: write lock: %w", err))
	}
	t := &Tx{tx: tx}
	if err := fn(t); err != nil {
		return err
	}
	done = true
	if err := tx.Commit(); err != nil {
		return db.redact.err(fmt.Errorf("postgres: commit: %w", err))
	}
	return nil
}
