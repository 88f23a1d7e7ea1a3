package sqlite_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// TestMemoryChangesAfterCommit checks what TakeMemoryChanges reports:
// nothing before it was first called, then the rows each commit wrote,
// once.
func TestMemoryChangesAfterCommit(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	insert := func(id string) {
		t.Helper()
		err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
			return storage.InsertMemory(ctx, tx, &storage.Memory{ID: id, Type: "fact", Content: id, ContentHash: id,
				SourceType: "manual", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-01T00:00:00.000Z", UpdatedBy: "t"})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	insert("before")
	if got := db.TakeMemoryChanges(); len(got) != 0 || db.PendingMemoryChanges() != 0 {
		t.Fatalf("changes before anyone asked: %v", got)
	}
	insert("after")
	if n := db.PendingMemoryChanges(); n != 1 {
		t.Fatalf("%d pending changes, want 1", n)
	}
	if got := db.TakeMemoryChanges(); len(got) != 1 {
		t.Fatalf("changes %v, want the one row written", got)
	}
	if got := db.TakeMemoryChanges(); len(got) != 0 {
		t.Fatalf("changes reported twice: %v", got)
	}
}

// A transaction whose rows were written before the first
// TakeMemoryChanges and that commits after it reports them: the first
// caller (a keyword index build) reads the table in a snapshot that may
// begin before that commit, and would otherwise miss the row for good.
func TestMemoryChangesOfATransactionUnderWayAtTheFirstTake(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	written, commit := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.WriteTx(ctx, func(tx *sqlite.Tx) error {
			err := storage.InsertMemory(ctx, tx, &storage.Memory{ID: "m", Type: "fact", Content: "m", ContentHash: "m",
				SourceType: "manual", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-01T00:00:00.000Z", UpdatedBy: "t"})
			close(written)
			<-commit
			return err
		})
	}()
	<-written
	if got := db.TakeMemoryChanges(); len(got) != 0 {
		t.Fatalf("first call: %v", got)
	}
	close(commit)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := db.TakeMemoryChanges(); len(got) != 1 {
		t.Fatalf("changes %v, want the row the transaction under way wrote", got)
	}
}
