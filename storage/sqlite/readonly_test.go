package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// TestOpenReadOnly reads a store beside its owner without writing to it,
// and refuses a missing file and a schema that is not this binary's.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	if _, err := sqlite.OpenReadOnly(ctx, sqlite.Options{Path: path}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing store: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("OpenReadOnly created the file")
	}
	owner, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if err := owner.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (key, harness, project, started_at) VALUES ('s', 'h', '/p', 't')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.OpenReadOnly(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	known, err := storage.KnownProjects(ctx, ro.Reader())
	if err != nil || strings.Join(known, ",") != "/p" {
		t.Fatalf("known projects read-only: %v %v", known, err)
	}
	if err := ro.WriteTx(ctx, func(tx *sqlite.Tx) error { return nil }); err == nil {
		t.Fatalf("a read-only store accepted a write")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	// The owner still works after the reader left.
	if err := owner.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET harness = 'x'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := owner.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.OpenReadOnly(ctx, sqlite.Options{Path: path}); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("an older schema: %v", err)
	}
}

// A read-only store closes cleanly: it has no background connection.
func TestOpenReadOnlyCloses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := sqlite.OpenReadOnly(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ro.Reader().QueryRowContext(sqlite.BackgroundReads(ctx), `SELECT count(*) FROM memories`).Scan(&n); err != nil {
		t.Fatalf("a background read on a read-only store: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
}
