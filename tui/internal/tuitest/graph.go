package tuitest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// Fixed ids of GraphFixture's entities and ConnectorFixture's connectors.
const (
	EntStaging = "0195a1b2-0000-7000-8000-0000000e0003"
	ConnNotes  = "0195a1b2-0000-7000-8000-0000000f0001"
	ConnWiki   = "0195a1b2-0000-7000-8000-0000000f0002"
)

// GraphFixture completes the knowledge graph the linker drew from the
// seeded memories (postgres, SQLite, WAL, Go, gofmt, ...): an entity
// "staging" named by the postgres and the deploy memories, and two
// relations, SQLite replaces postgres and postgres runs in staging.
func GraphFixture(t testing.TB, db *storage.DB) {
	t.Helper()
	ctx := context.Background()
	at := storage.FormatTime(FixedNow.Add(-time.Hour))
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		pg, err := storage.EntityID(ctx, tx, "postgres")
		if err != nil {
			return fmt.Errorf("the linker's postgres: %w", err)
		}
		lite, err := storage.EntityID(ctx, tx, "sqlite")
		if err != nil {
			return fmt.Errorf("the linker's sqlite: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
			VALUES (?, 'staging', 'staging', 'environment', 0, ?, ?)`, EntStaging, at, at); err != nil {
			return err
		}
		for _, mem := range []string{IDPostgres, IDDeploy} {
			if _, err := storage.LinkMention(ctx, tx, mem, EntStaging, "staging", 0.5); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, mentions, confidence, created_at, updated_at)
			VALUES ('0195a1b2-0000-7000-8000-0000000d0001', ?1, ?2, 'replaces', 2, 0.8, ?4, ?4),
			       ('0195a1b2-0000-7000-8000-0000000d0002', ?2, ?3, 'runs_in', 1, 0.6, ?4, ?4)`,
			lite, pg, EntStaging, at)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ConnectorFixture registers two filesystem connectors over folders that
// need not exist: notes, idle, synced 5 minutes ago, and wiki, whose last
// sync failed 3 hours ago. A sync of either fails (their folders are not
// in connectors.roots); the fixture shows states, not syncs.
func ConnectorFixture(t testing.TB, db *storage.DB) {
	t.Helper()
	ctx := context.Background()
	at := func(d time.Duration) string { return storage.FormatTime(FixedNow.Add(-d)) }
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		for _, c := range []struct {
			id, name, root, status, synced, errMsg string
		}{
			{ConnNotes, "notes", "/srv/notes", connstore.ConnectorIdle, at(5 * time.Minute), ""},
			{ConnWiki, "wiki", "/srv/team/wiki", connstore.ConnectorError, at(3 * time.Hour), "walk /srv/team/wiki: open /srv/team/wiki: permission denied"},
		} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO connectors (id, provider, display_name, config, status, last_sync_at, last_error, last_error_at, created_at, updated_at)
				VALUES (?, 'filesystem', ?, json_object('root', ?), ?, ?, ?, ?, ?, ?)`,
				c.id, c.name, c.root, c.status, c.synced, nullable(c.errMsg), nullable(map[bool]string{true: c.synced}[c.errMsg != ""]), at(24*time.Hour), c.synced); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
