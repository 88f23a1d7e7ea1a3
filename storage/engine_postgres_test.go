package storage

import (
	"context"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// storage.DB on a postgres:// URL is PostgreSQL's: a write is in this
// server's change feed when WriteTx returns (read your writes, as SQLite's
// commit hook gives), and what only SQLite has says so.
func TestDBOnPostgresURL(t *testing.T) {
	c := pgtest.Start(t)
	ctx := context.Background()
	db, err := Open(ctx, Options{Path: c.URL("")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Postgres() || db.ReadOnly() {
		t.Fatalf("Postgres %v, ReadOnly %v", db.Postgres(), db.ReadOnly())
	}
	if len(db.TakeMemoryChanges()) != 0 { // starts following
		t.Fatal("changes before any write")
	}
	var rid int64
	err = db.WriteTx(ctx, func(tx Tx) error {
		if err := InsertMemory(ctx, tx, &Memory{ID: "m1", Content: "the deploy key rotates on Tuesdays", ContentHash: "h1", Type: "fact", CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z"}); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT rid FROM memories WHERE id = ?`, "m1").Scan(&rid)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := db.TakeMemoryChanges(); !slices.Contains(got, rid) {
		t.Fatalf("took %v right after the commit, want rid %d", got, rid)
	}
	if got := db.TakeSharedChanges(); !slices.Contains(got, rid) {
		t.Fatalf("the vector index's set has %v, want rid %d", got, rid)
	}
	if _, err := CountFTSDocuments(ctx, db.Reader()); err != ErrNotOnPostgres {
		t.Fatalf("CountFTSDocuments on PostgreSQL: %v", err)
	}
	if err := db.WriteTx(ctx, func(tx Tx) error { return RebuildFTS(ctx, tx) }); err != ErrNotOnPostgres {
		t.Fatalf("RebuildFTS on PostgreSQL: %v", err)
	}
	ran := false
	if err := db.WriteTx(ctx, func(tx Tx) error { return BulkFTSMerge(ctx, tx, func() error { ran = true; return nil }) }); err != nil || !ran {
		t.Fatalf("BulkFTSMerge on PostgreSQL: %v, ran %v", err, ran)
	}
	if n, err := db.DatabaseSize(ctx); err != nil || n <= 0 {
		t.Fatalf("DatabaseSize = %d, %v", n, err)
	}
}
