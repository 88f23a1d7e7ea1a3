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

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

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
