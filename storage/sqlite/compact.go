package sqlite

import (
	"context"
	"fmt"
	"os"
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

// LegacyEmbedding is a stored vector still in the float32 format of
// before migration 0011.
type LegacyEmbedding struct {
	ID         int64
	Dimensions int
	Vector     []byte
}

// The WHERE clause matches idx_embeddings_float32's, so this reads only
// the rows still to convert.
const legacyEmbeddingsQuery = `SELECT id, dimensions, vector FROM embeddings INDEXED BY idx_embeddings_float32
	WHERE length(vector) = 4 * dimensions AND dimensions > 0 ORDER BY id LIMIT ?`

// LegacyEmbeddings returns up to limit vectors still stored as float32.
func LegacyEmbeddings(ctx context.Context, q Querier, limit int) ([]LegacyEmbedding, error) {
	rows, err := q.QueryContext(ctx, legacyEmbeddingsQuery, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LegacyEmbedding
	for rows.Next() {
		var e LegacyEmbedding
		if err := rows.Scan(&e.ID, &e.Dimensions, &e.Vector); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

const rewriteEmbeddingQuery = `UPDATE embeddings SET vector = ? WHERE id = ? AND length(vector) = 4 * dimensions`

// RewriteLegacyEmbedding replaces the float32 vector of row id with blob,
// unless the row was replaced meanwhile (it is then no longer float32).
func RewriteLegacyEmbedding(ctx context.Context, q Querier, id int64, blob []byte) error {
	_, err := q.ExecContext(ctx, rewriteEmbeddingQuery, blob, id)
	return err
}

// CompactAfterConversion rebuilds the database file (VACUUM) and returns
// its size before and after. Rewriting the vectors of an older store in
// the smaller format leaves every page of the embeddings table mostly
// empty (a page keeps its place when its rows shrink), so the file would
// stay the size of the float32 vectors; this runs once, after a
// conversion. It holds the writer connection meanwhile (writes wait:
// seconds for 100k memories). The rebuild goes through a temporary file,
// not memory, so the connection's memory does not grow by the file's size.
func (db *DB) CompactAfterConversion(ctx context.Context) (before, after int64, err error) {
	size := func() int64 {
		st, err := os.Stat(db.path)
		if err != nil {
			return 0
		}
		return st.Size()
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	// Sizes are the main file's with the WAL checkpointed into it.
	if err := truncateWAL(ctx, conn); err != nil {
		return 0, 0, fmt.Errorf("checkpoint: %w", err)
	}
	before = size()
	if _, err := conn.ExecContext(ctx, `PRAGMA temp_store = FILE`); err != nil {
		return before, before, err
	}
	_, err = conn.ExecContext(ctx, `VACUUM`)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = MEMORY`); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return before, size(), fmt.Errorf("vacuum: %w", err)
	}
	// The rebuild went through the WAL: give its space back now rather
	// than at close.
	if err := truncateWAL(ctx, conn); err != nil {
		return before, size(), fmt.Errorf("checkpoint: %w", err)
	}
	return before, size(), nil
}
