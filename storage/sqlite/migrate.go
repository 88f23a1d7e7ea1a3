package sqlite

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// keepBackups is how many pre-migration backups are kept beside the database.
const keepBackups = 5

// Migration is one numbered schema change embedded in the binary.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, rest, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %q and %q share version %d", prev, name, v)
		}
		seen[v] = name
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{
			Version:  v,
			Name:     strings.TrimSuffix(rest, ".sql"),
			SQL:      string(body),
			Checksum: hex.EncodeToString(sum[:]),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// SchemaVersion is the newest schema version this binary knows.
func SchemaVersion() int {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
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
	applied := map[int]string{}
	rows, err := db.write.QueryContext(ctx, `SELECT version, checksum FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	maxApplied := 0
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			rows.Close()
			return err
		}
		applied[v] = sum
		maxApplied = max(maxApplied, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	known := 0
	if len(ms) > 0 {
		known = ms[len(ms)-1].Version
	}
	if maxApplied > known {
		return fmt.Errorf("%w: %s has schema version %d, this binary knows up to %d; upgrade cairn", ErrSchemaNewer, db.path, maxApplied, known)
	}
	var pending []Migration
	for _, m := range ms {
		sum, ok := applied[m.Version]
		if !ok {
			pending = append(pending, m)
			continue
		}
		if sum != m.Checksum {
			return fmt.Errorf("%w: migration %04d_%s was changed after it was applied to %s", ErrBadChecksum, m.Version, m.Name, db.path)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if backupExisting && len(applied) > 0 {
		if err := db.backup(ctx, maxApplied); err != nil {
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
