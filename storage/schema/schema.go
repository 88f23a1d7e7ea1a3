// Package schema reads the numbered migrations an engine embeds and plans
// which to apply: both engines (storage/sqlite, storage/postgres) keep a
// schema_migrations table of version, name and checksum, refuse a database
// newer than the binary, and refuse an applied migration whose file
// changed. How a migration runs (transactions, locks, backups) is each
// engine's. It imports nothing of cairn.
package schema

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// The refusals of Plan (each engine re-exports them).
var (
	ErrSchemaNewer = errors.New("database schema is newer than this cairn")
	ErrBadChecksum = errors.New("migration checksum mismatch")
)

// Migration is one numbered schema change embedded in the binary.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string // SHA-256 of the file, hex
}

// Read returns the migrations in dir of fsys (NNNN_description.sql) in
// version order.
func Read(fsys fs.FS, dir string) ([]Migration, error) {
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

// Latest is the newest version of ms (0 for none).
func Latest(ms []Migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// Plan reads the schema_migrations table through q and returns the
// migrations of ms not applied yet, and the newest version applied (0 for
// a new database). A database newer than ms (ErrSchemaNewer) or an applied
// migration whose checksum changed (ErrBadChecksum) is refused; db names
// the database in those errors.
func Plan(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, ms []Migration, db string) (pending []Migration, newest int, err error) {
	rows, err := q.QueryContext(ctx, `SELECT version, checksum FROM schema_migrations`)
	if err != nil {
		return nil, 0, fmt.Errorf("read schema_migrations: %w", err)
	}
	applied := map[int]string{}
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			rows.Close()
			return nil, 0, err
		}
		applied[v] = sum
		newest = max(newest, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if known := Latest(ms); newest > known {
		return nil, 0, fmt.Errorf("%w: %s has schema version %d, this binary knows up to %d; upgrade cairn", ErrSchemaNewer, db, newest, known)
	}
	for _, m := range ms {
		sum, ok := applied[m.Version]
		if !ok {
			pending = append(pending, m)
		} else if sum != m.Checksum {
			return nil, 0, fmt.Errorf("%w: migration %04d_%s was changed after it was applied to %s", ErrBadChecksum, m.Version, m.Name, db)
		}
	}
	return pending, newest, nil
}
