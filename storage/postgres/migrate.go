package postgres

import (
	"context"
	"database/sql/driver"
	"embed"
	"fmt"
	"time"

	"github.com/cairnmem/cairn/storage/schema"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLockKey is the advisory lock Open holds while it reads and
// applies migrations: a second server starting at the same time waits,
// then finds them applied.
const migrateLockKey int64 = 0x636169726e_6d31 // "cairn" "m1"

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
	pending, _, err := schema.Plan(ctx, conn, ms, "the database")
	if err != nil {
		return err
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
