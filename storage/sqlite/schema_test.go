package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// The schema the migrations build, written through the query layer: the
// full-text index follows content, and only content.
func TestEmbeddedMigrationsAndFTSTriggers(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if sqlite.SchemaVersion() < 1 {
		t.Fatal("no embedded migrations")
	}
	var mode string
	db.Reader().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Fatalf("journal_mode = %s", mode)
	}
	now := storage.FormatTime(time.Now())
	m := &storage.Memory{ID: "m1", Type: "fact", Content: "Running runners deploy on Fridays",
		ContentHash: "h1", Importance: 0.5, Confidence: 1, SourceType: "manual", CreatedAt: now, UpdatedAt: now, UpdatedBy: "t"}
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error { return storage.InsertMemory(ctx, tx, m) }); err != nil {
		t.Fatal(err)
	}
	match := func(q string) int {
		var n int
		if err := db.Reader().QueryRow(`SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?`, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if match("run") != 1 || match("friday") != 1 {
		t.Fatal("porter stemming should match run/friday")
	}
	segments := func() int {
		var n int
		db.Reader().QueryRow(`SELECT count(*) FROM memories_fts_data`).Scan(&n)
		return n
	}
	before := segments()
	// Access tracking, pins and soft deletes must not re-index.
	db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`UPDATE memories SET access_count = access_count + 1, importance = 0.9, pinned = 1, is_deleted = 1 WHERE id = 'm1'`)
		return err
	})
	if after := segments(); after != before {
		t.Fatalf("a non-content update re-indexed FTS (%d -> %d segment rows)", before, after)
	}
	db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`UPDATE memories SET content = 'cats sleep all day' WHERE id = 'm1'`)
		return err
	})
	if match("friday") != 0 || match("cats") != 1 {
		t.Fatal("a content update must re-index")
	}
	db.WriteTx(ctx, func(tx *sqlite.Tx) error { _, err := tx.Exec(`DELETE FROM memories`); return err })
	if match("cats") != 0 {
		t.Fatal("a hard delete must leave the index")
	}
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)`)
		return err
	}); err != nil {
		t.Fatalf("FTS integrity check: %v", err)
	}
}
