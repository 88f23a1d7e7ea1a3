package sqlite

import (
	"context"
	"fmt"
	"os"

	"github.com/ncruces/go-sqlite3/driver"
)

// OpenReadOnly opens an existing database for reading only, beside the
// process that owns it (or none): no lock, no migration, no writer. Every
// WriteTx on it fails. The hook shim answers from it while no cairn runs.
// A file whose schema is not exactly this binary's is refused (an older
// one needs the migrations only the owner applies).
func OpenReadOnly(ctx context.Context, opts Options) (*DB, error) {
	if opts.Path == "" {
		return nil, errReadOnlyPath
	}
	if _, err := os.Stat(opts.Path); err != nil {
		return nil, err
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.ReadConns <= 0 {
		opts.ReadConns = 1
	}
	read, err := driver.Open(dsn(opts.Path, "normal", opts.BusyTimeout, true), stablePlans)
	if err != nil {
		return nil, fmt.Errorf("open %s for reading: %w", opts.Path, err)
	}
	read.SetMaxOpenConns(opts.ReadConns)
	read.SetMaxIdleConns(opts.ReadConns)
	var version int
	if err := read.QueryRowContext(ctx, `SELECT COALESCE(max(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
		read.Close()
		return nil, fmt.Errorf("read the schema version of %s: %w", opts.Path, err)
	}
	if want := SchemaVersion(); version != want {
		read.Close()
		return nil, fmt.Errorf("%s has schema version %d, this binary %d: only the process that owns it migrates it", opts.Path, version, want)
	}
	db := &DB{path: opts.Path, read: read, reader: &Reader{cache: newStmtCache(read)}}
	db.writer.shut = true // WriteTx answers errClosed
	return db, nil
}

// ReadOnly reports whether db was opened with OpenReadOnly: it records no
// changes (TakeMemoryChanges returns nothing) and writes nothing.
func (db *DB) ReadOnly() bool { return db.changes == nil }
