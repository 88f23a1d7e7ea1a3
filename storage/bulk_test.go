package storage_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/cairnmem/cairn/storage"
)

// TestInsertMemoriesAsInsertMemory checks that the bulk insert writes
// every column as InsertMemory does.
func TestInsertMemoriesAsInsertMemory(t *testing.T) {
	testInsertMemoriesAsInsertMemory(t, sqliteStore(t))
}

func testInsertMemoriesAsInsertMemory(t *testing.T, db *store) {
	ctx := context.Background()
	full := func(id string) *storage.Memory {
		return &storage.Memory{ID: id, Type: "decision", Category: "c", Content: "content " + id,
			ContentHash: "h" + id, Confidence: 0.7, Importance: 0.6, SourceID: "s", SourceType: "manual", Tags: []string{"a", "b"},
			Who: "w", Why: "y", Project: "p", SessionID: "sess", CreatedAt: "2026-01-01T00:00:00.000Z", UpdatedAt: "2026-01-02T00:00:00.000Z",
			UpdatedBy: "u", LastAccessed: "2026-01-03T00:00:00.000Z", AccessCount: 3, VectorClock: `{"a":1}`, Version: 4,
			ManualOverride: true, Pinned: true, IsDeleted: true, DeletedAt: "2026-01-04T00:00:00.000Z", ExtractionStatus: "done",
			EmbeddingModel: "e", ExtractionModel: "x", UpdateCount: 2, IdempotencyKey: "k" + id, RuntimePath: "r", SourcePath: "sp",
			SourceSection: "ss"}
	}
	err := db.WriteTx(ctx, func(tx storage.Querier) error {
		if err := storage.InsertMemory(ctx, tx, full("one")); err != nil {
			return err
		}
		_, err := storage.InsertMemories(ctx, tx, []*storage.Memory{full("two"), {ID: "three", Type: "fact", Content: "c3",
			ContentHash: "h3", SourceType: "manual", CreatedAt: "2026-01-01T00:00:00.000Z",
			UpdatedAt: "2026-01-01T00:00:00.000Z", UpdatedBy: "u"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	one, err := storage.GetMemory(ctx, db.Reader(), "one")
	if err != nil {
		t.Fatal(err)
	}
	two, err := storage.GetMemory(ctx, db.Reader(), "two")
	if err != nil {
		t.Fatal(err)
	}
	two.ID, two.Content, two.ContentHash, two.IdempotencyKey = one.ID, one.Content, one.ContentHash, one.IdempotencyKey
	if !reflect.DeepEqual(one, two) {
		t.Fatalf("bulk row differs:\n%+v\n%+v", *two, *one)
	}
	three, err := storage.GetMemory(ctx, db.Reader(), "three")
	if err != nil || three.Version != 1 || three.VectorClock != "{}" || three.ExtractionStatus != "none" {
		t.Fatalf("defaults of a bare row: %+v %v", three, err)
	}
}
