package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

func TestMemoryStamp(t *testing.T) { testMemoryStamp(t, sqliteStore(t)) }

// testMemoryStamp: a memory's stamp changes with each thing its detail
// shows, events or not (an access, the embedding model, the extraction
// status, an entity linked, an attribute and its aspect's weight, the
// attribute superseded, a memory it superseded, a history event), and
// stays the same when nothing it shows changed (another memory's access).
func testMemoryStamp(t *testing.T, db *store) {
	ctx := context.Background()
	addMemory(t, db, "m", "the gateway runs on port 8080", nil)
	addMemory(t, db, "o", "another memory", nil)
	if _, err := storage.MemoryStamp(ctx, db.Reader(), "nope"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("an unknown memory's stamp: %v", err)
	}
	stamp := func() string {
		t.Helper()
		s, err := storage.MemoryStamp(ctx, db.Reader(), "m")
		if err != nil || s == "" {
			t.Fatalf("stamp: %q %v", s, err)
		}
		return s
	}
	last := stamp()
	for _, c := range []struct {
		name    string
		changes bool
		write   func(ctx context.Context, tx storage.Querier) error
	}{
		{"another memory accessed", false, func(ctx context.Context, tx storage.Querier) error {
			return storage.RecordAccess(ctx, tx, ts(time.Minute), []string{"o"})
		}},
		{"accessed", true, func(ctx context.Context, tx storage.Querier) error {
			return storage.RecordAccess(ctx, tx, ts(time.Minute), []string{"m"})
		}},
		{"embedded", true, func(ctx context.Context, tx storage.Querier) error {
			_, err := storage.SetEmbeddingModel(ctx, tx, "m", "h-m", "model-a")
			return err
		}},
		{"extraction", true, func(ctx context.Context, tx storage.Querier) error {
			_, err := tx.ExecContext(ctx, `UPDATE memories SET extraction_status = 'failed' WHERE id = 'm'`)
			return err
		}},
		{"entity linked", true, func(ctx context.Context, tx storage.Querier) error {
			id, err := storage.UpsertEntity(ctx, tx, "e1", "gateway", "gateway", "service", ts(0))
			if err == nil {
				_, err = storage.LinkMention(ctx, tx, "m", id, "gateway", 0.9)
			}
			return err
		}},
		{"the entity mentioned elsewhere", true, func(ctx context.Context, tx storage.Querier) error {
			_, err := storage.LinkMention(ctx, tx, "o", "e1", "gateway", 0.9)
			return err
		}},
		{"attribute", true, func(ctx context.Context, tx storage.Querier) error {
			asp, err := storage.UpsertAspect(ctx, tx, "a1", "gateway", "network", ts(0))
			if err == nil {
				err = storage.InsertAttribute(ctx, tx, &storage.AttributeRow{ID: "at1", MemoryID: "m", Entity: "gateway", Name: "port",
					Value: "8080", Kind: "attribute", CreatedAt: ts(0)}, asp)
			}
			return err
		}},
		{"aspect weight", true, func(ctx context.Context, tx storage.Querier) error {
			return storage.RaiseAspectWeight(ctx, tx, "a1", 1, 0.1, 0, 1, ts(time.Minute))
		}},
		{"attribute superseded", true, func(ctx context.Context, tx storage.Querier) error {
			return storage.SupersedeAttribute(ctx, tx, "at1", "o")
		}},
		{"supersedes another", true, func(ctx context.Context, tx storage.Querier) error {
			return storage.SetSupersededBy(ctx, tx, "o", "m")
		}},
		{"history event", true, func(ctx context.Context, tx storage.Querier) error {
			return storage.InsertHistory(ctx, tx, &storage.HistoryEvent{ID: "h1", MemoryID: "m", Event: "updated",
				ChangedBy: "test", ActorType: "operator", CreatedAt: ts(time.Minute)})
		}},
	} {
		write(t, db, c.write)
		now := stamp()
		if (now != last) != c.changes {
			t.Errorf("%s: the stamp went from %q to %q", c.name, last, now)
		}
		last = now
	}
}
