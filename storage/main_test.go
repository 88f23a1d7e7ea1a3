package storage

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/storage/postgres"
	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// TestMain stops the PostgreSQL cluster the tests share (pgtest.Shared).
func TestMain(m *testing.M) { pgtest.Main(m) }

// MigratedPostgres creates a database of t's own on c, migrated (a copy of
// a template the migrations ran on once), and returns its name; the
// tests outside the package use it too.
func MigratedPostgres(t testing.TB, c *pgtest.Cluster) string {
	t.Helper()
	return c.DatabaseFrom(t, "migrated", func(url string) error {
		pg, err := postgres.Open(context.Background(), postgres.Options{URL: url})
		if err != nil {
			return err
		}
		return pg.Close()
	})
}
