package storage

import (
	"context"
	"path/filepath"
	"testing"
)

// TestContextMigration upgrades a database written before migration 20:
// every memory is still found by its words after the full-text index is
// rebuilt with its second column, and the index passes FTS5's
// integrity-check.
func TestContextMigration(t *testing.T) {
	ctx := context.Background()
	before, all := migrationsBefore(t, 20)
	var err error
	path := filepath.Join(t.TempDir(), "c.db")
	db := openTemp(t, path, before)
	err = db.WriteTx(ctx, func(tx Tx) error {
		for i, c := range []string{"the staging database runs postgres", "deploys happen on tuesdays"} {
			m := &Memory{ID: string(rune('a' + i)), Type: "fact", Content: c, ContentHash: c,
				SourceType: "manual", CreatedAt: "t", UpdatedAt: "t", UpdatedBy: "t", SessionID: "s1"}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memories (id, type, content, content_hash,
				source_type, created_at, updated_at, updated_by, session_id) VALUES (?,?,?,?,?,?,?,?,?)`,
				m.ID, m.Type, m.Content, m.ContentHash, m.SourceType, m.CreatedAt, m.UpdatedAt, m.UpdatedBy, m.SessionID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTemp(t, path, all)
	defer db.Close()
	for _, word := range []string{"postgres", "tuesdays"} {
		hits, err := SearchFTS(ctx, db.Reader(), word, MemoryFilter{}, 10)
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s after the upgrade: %d hits, %v", word, len(hits), err)
		}
	}
	if err := db.WriteTx(ctx, func(tx Tx) error { return CheckFTSIntegrity(ctx, tx) }); err != nil {
		t.Fatalf("integrity-check after the upgrade: %v", err)
	}
	// Rows written before the upgrade have no context; the next memory of
	// the session takes the newest as its own.
	rid, err := SessionPredecessor(ctx, db.Reader(), "", "s1")
	if err != nil || rid != 2 {
		t.Fatalf("predecessor in s1: %d, %v", rid, err)
	}
	if rid, err := SessionPredecessor(ctx, db.Reader(), "other", "s1"); err != nil || rid != 0 {
		t.Fatalf("predecessor in s1 of another project: %d, %v", rid, err)
	}
}
