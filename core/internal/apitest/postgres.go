package apitest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/cairnmem/cairn/storage"

	"github.com/cairnmem/cairn/storage/dialect"
	"github.com/cairnmem/cairn/storage/postgres"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Inspector is the test's own connection to the store (Env.RO): a
// *sql.DB on SQLite, pgInspector on PostgreSQL. Both take storage's
// statements as they are: SQLite's ? parameters, and the dialect storage's
// query functions ask for.
type Inspector interface {
	storage.Querier
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
	Exec(query string, args ...any) (sql.Result, error)
}

// pgInspector is a *sql.DB of the pgx driver that rebinds ? to $n and
// says it speaks PostgreSQL's dialect.
type pgInspector struct{ db *sql.DB }

func (p pgInspector) Dialect() dialect.Dialect { return dialect.Postgres }

func (p pgInspector) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return p.db.QueryContext(ctx, postgres.Rebind(q), args...)
}

func (p pgInspector) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, postgres.Rebind(q), args...)
}

func (p pgInspector) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return p.db.ExecContext(ctx, postgres.Rebind(q), args...)
}

func (p pgInspector) QueryRow(q string, args ...any) *sql.Row {
	return p.QueryRowContext(context.Background(), q, args...)
}

func (p pgInspector) Query(q string, args ...any) (*sql.Rows, error) {
	return p.QueryContext(context.Background(), q, args...)
}

func (p pgInspector) Exec(q string, args ...any) (sql.Result, error) {
	return p.ExecContext(context.Background(), q, args...)
}

// PostgresEnv names a PostgreSQL server (a URL whose user may create
// databases) on which NewStoreEnv opens each store, in a database of its
// own, instead of a SQLite file: the API's tests run on PostgreSQL
// (docs/design/postgres.md). Unset: SQLite.
const PostgresEnv = "CAIRN_TEST_API_POSTGRES"

// postgresStore makes a fresh database on the server PostgresEnv names,
// dropped when tb ends, and returns its URL; "" when PostgresEnv is unset.
func postgresStore(tb testing.TB) string {
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		return ""
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "cairn_api_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		tb.Fatalf("%s: create database: %v", PostgresEnv, err)
	}
	tb.Cleanup(func() {
		db, err := sql.Open("pgx", admin)
		if err == nil {
			_, _ = db.ExecContext(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
			db.Close()
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	u.Path = "/" + name
	return u.String()
}

// OnPostgres reports whether NewStoreEnv opens stores on PostgreSQL
// (PostgresEnv is set).
func OnPostgres() bool { return os.Getenv(PostgresEnv) != "" }

// SQLiteOnly skips tb when the stores are PostgreSQL's: what it tests is
// SQLite's alone (FTS5, PRAGMA fault injection), and says so.
func SQLiteOnly(tb testing.TB, what string) {
	tb.Helper()
	if OnPostgres() {
		tb.Skipf("SQLite's alone (%s): the stores are PostgreSQL's (%s)", what, PostgresEnv)
	}
}
