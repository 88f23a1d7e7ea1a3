package storage

import (
	"context"
	"slices"
)

// compactRowsVersion is the migration that makes rows smaller
// (0017_compact_rows): it frees a third of a large store's pages, which
// only a rebuild of the file gives back.
const compactRowsVersion = 17

// compactAfterMigrations rebuilds the file (VACUUM, as after the vector
// conversion) once, when this Open applied migration 17 to an existing
// store: at 100k memories it takes seconds, once. A rebuild that fails
// (no room for the copy) leaves the store as it was, only larger; it is
// not an error.
func (db *DB) compactAfterMigrations(ctx context.Context) {
	if slices.Contains(db.migrated, compactRowsVersion) {
		_, _, _ = db.CompactAfterConversion(ctx)
	}
}
