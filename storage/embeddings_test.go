package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// A backlog is walked newest first, page by page from a cursor, without
// going back over the rows above it; a tie on updated_at is broken by rid.
func TestPendingEmbeddingsFromWalksOnce(t *testing.T) { testPendingEmbeddingsFrom(t, sqliteStore(t)) }

func testPendingEmbeddingsFrom(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "a", "alpha", func(m *storage.Memory) { m.UpdatedAt = ts(3 * time.Second) })
	addMemory(t, db, "b", "beta", func(m *storage.Memory) { m.UpdatedAt = ts(time.Second) })
	addMemory(t, db, "c", "gamma", func(m *storage.Memory) { m.UpdatedAt = ts(time.Second) })
	addMemory(t, db, "d", "delta", nil)
	addMemory(t, db, "e", "gone", func(m *storage.Memory) { m.IsDeleted, m.DeletedAt = true, ts(0) })
	var pages [][]string
	cur := storage.PendingCursor{}
	for range 4 {
		page, next, err := storage.PendingEmbeddingsFrom(ctx, r, "m1", cur, 2)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range page {
			ids = append(ids, p.ID)
		}
		pages = append(pages, ids)
		cur = next
	}
	want := [][]string{{"a", "c"}, {"b", "d"}, nil, nil}
	if !slices.EqualFunc(pages, want, slices.Equal) {
		t.Fatalf("pages = %v, want %v", pages, want)
	}
}
