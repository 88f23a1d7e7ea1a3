package postgres

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLockKey is the advisory lock Open holds while it reads and
// applies migrations: a second server starting at the same time waits,
// then finds them applied.
const migrateLockKey int64 = 0x636169726e_6d31 // "cairn" "m1"

// Migration is one numbered schema change embedded in the binary.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string // SHA-256 of the file, hex
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) { return readMigrations(migrationFiles, "migrations") }

func readMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
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
		body, err := fs.ReadFile(fsys, dir+"/"+name)
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

// migrate applies the migrations of ms not yet applied, each in a
// transaction of its own with its schema_migrations row, on one
// connection holding migrateLockKey; an applied migration whose checksum
// changed, or a schema newer than ms, is refused before anything runs.
func (db *DB) migrate(ctx context.Context, ms []Migration) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() {
		// A session lock outlives its user on a pooled connection: if it
		// cannot be released, the connection is dropped, which releases it.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLockKey); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()

	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT PRIMARY KEY,
		name       TEXT NOT NULL,
		checksum   TEXT NOT NULL,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	applied := map[int]string{}
	rows, err := conn.QueryContext(ctx, `SELECT version, checksum FROM schema_migrations`)
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
		return fmt.Errorf("%w: the database has schema version %d, this binary knows up to %d; upgrade cairn", ErrSchemaNewer, maxApplied, known)
	}
	var pending []Migration
	for _, m := range ms {
		sum, ok := applied[m.Version]
		if !ok {
			pending = append(pending, m)
			continue
		}
		if sum != m.Checksum {
			return fmt.Errorf("%w: migration %04d_%s was changed after it was applied", ErrBadChecksum, m.Version, m.Name)
		}
	}
	for _, m := range pending {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		// No arguments: pgx sends the file in the simple protocol, several
		// statements in one message.
		_, err = tx.ExecContext(ctx, m.SQL)
		if err == nil {
			_, err = tx.ExecContext(ctx,
				`INSERT INTO schema_migrations(version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`,
				m.Version, m.Name, m.Checksum, time.Now().UTC().Format(time.RFC3339Nano))
		}
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
		if err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		db.migrated = append(db.migrated, m.Version)
	}
	return nil
}
