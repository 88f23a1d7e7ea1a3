package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// Helpers of the engine's tests that write through the query layer, as
// cairn does: the schema is the engine's, the rows are storage's.

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openStore opens a throwaway database, closed when the test ends.
func openStore(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "q.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func write(t *testing.T, db *sqlite.DB, fn func(ctx context.Context, tx *sqlite.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
}

func ts(d time.Duration) string { return storage.FormatTime(t0.Add(d)) }

// addMemory inserts a live memory; edit adjusts it first.
func addMemory(t *testing.T, db *sqlite.DB, id, content string, edit func(*storage.Memory)) *storage.Memory {
	t.Helper()
	m := &storage.Memory{ID: id, Type: "fact", Content: content, ContentHash: "h-" + id,
		Confidence: 1, Importance: 0.5, SourceType: "manual", CreatedAt: ts(0), UpdatedAt: ts(0), UpdatedBy: "test"}
	if edit != nil {
		edit(m)
	}
	write(t, db, func(ctx context.Context, tx *sqlite.Tx) error { return storage.InsertMemory(ctx, tx, m) })
	return m
}
