package sqlite

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cairnmem/cairn/storage/schema"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// keepBackups is how many pre-migration backups are kept beside the database.
const keepBackups = 5

// Migration is one numbered schema change embedded in the binary.
type Migration = schema.Migration

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) { return schema.Read(migrationFiles, "migrations") }

// SchemaVersion is the newest schema version this binary knows.
func SchemaVersion() int {
	ms, err := Migrations()
	if err != nil {
		return 0
	}
	return schema.Latest(ms)
}

func (db *DB) migrate(ctx context.Context, ms []Migration, backupExisting bool) error {
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		checksum   TEXT NOT NULL,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	pending, newest, err := schema.Plan(ctx, db.write, ms, db.path)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	if backupExisting && newest > 0 {
		if err := db.backup(ctx, newest); err != nil {
			return fmt.Errorf("backup before migrating: %w", err)
		}
	}
	// A migration that rewrites a large table (0017 on 100k memories with
	// older, larger vectors) keeps a statement journal the size of the
	// table: on disk, not in the connection's memory.
	if _, err := db.write.ExecContext(ctx, `PRAGMA temp_store = FILE`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer db.write.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = MEMORY`)
	for _, m := range pending {
		err := db.WriteTx(ctx, func(tx *Tx) error {
			if err := tx.ExecScript(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx,
				`INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
				m.Version, m.Name, m.Checksum, formatTime(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		db.migrated = append(db.migrated, m.Version)
	}
	return nil
}

// backup writes a consistent copy of the database beside it, named after the
// schema version it holds, and prunes older copies.
func (db *DB) backup(ctx context.Context, version int) error {
	dst := fmt.Sprintf("%s.bak-v%d-%d", db.path, version, time.Now().UnixMilli())
	if _, err := db.write.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return err
	}
	if err := os.Chmod(dst, privateMode); err != nil {
		return err
	}
	matches, _ := filepath.Glob(db.path + ".bak-v*")
	if len(matches) <= keepBackups {
		return nil
	}
	sort.Slice(matches, func(i, j int) bool { return modTime(matches[i]).After(modTime(matches[j])) })
	for _, old := range matches[keepBackups:] {
		_ = os.Remove(old)
	}
	return nil
}

func modTime(p string) time.Time {
	st, err := os.Stat(p)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}
