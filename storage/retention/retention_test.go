package retention_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/retention"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "q.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func write(t *testing.T, db *storage.DB, fn func(ctx context.Context, tx storage.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := db.WriteTx(ctx, func(tx storage.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
}

func ts(d time.Duration) string { return storage.FormatTime(t0.Add(d)) }

// addMemory inserts a live memory; edit adjusts it first.
func addMemory(t *testing.T, db *storage.DB, id, content string, edit func(*storage.Memory)) *storage.Memory {
	t.Helper()
	m := &storage.Memory{ID: id, Type: "fact", Content: content, ContentHash: "h-" + id,
		Confidence: 1, Importance: 0.5, SourceType: "manual", CreatedAt: ts(0), UpdatedAt: ts(0), UpdatedBy: "test"}
	if edit != nil {
		edit(m)
	}
	write(t, db, func(ctx context.Context, tx storage.Tx) error { return storage.InsertMemory(ctx, tx, m) })
	return m
}

// TestBacklog counts what a sweep would remove: only what is older than
// its cutoff.
func TestBacklog(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "old", "old", func(m *storage.Memory) { m.IsDeleted, m.DeletedAt = true, ts(-48*time.Hour) })
	addMemory(t, db, "new", "new", func(m *storage.Memory) { m.IsDeleted, m.DeletedAt = true, ts(0) })
	write(t, db, func(ctx context.Context, tx storage.Tx) error {
		if _, err := storage.UpsertEntity(ctx, tx, "e", "e", "e", "unknown", ts(0)); err != nil {
			return err
		}
		for _, m := range []string{"old", "new"} {
			if _, err := storage.LinkMention(ctx, tx, m, "e", "e", 1); err != nil {
				return err
			}
		}
		return storage.InsertHistory(ctx, tx, &storage.HistoryEvent{ID: "h", MemoryID: "old", Event: storage.EventDeleted,
			ChangedBy: "t", CreatedAt: ts(-48 * time.Hour)})
	})
	b, err := retention.CountBacklog(ctx, r, retention.Cutoffs{
		Tombstones: ts(-time.Hour), History: ts(-time.Hour), CompletedJobs: ts(0), DeadJobs: ts(0)})
	want := retention.Backlog{GraphLinks: 1, Tombstones: 1, History: 1}
	if err != nil || b != want {
		t.Fatalf("backlog = %+v, %v; want %+v", b, err, want)
	}
}
