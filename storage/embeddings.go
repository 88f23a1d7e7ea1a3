package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Embeddings are keyed by (content_hash, model): memories with the same
// content share one vector. A memory's embedding_model column records the
// model whose vector covers its current content. Vectors are stored
// quantized to int8 with a scale (dimensions+4 bytes; stores from before
// migration 0011 may still hold float32 BLOBs until they are rewritten);
// core/vector encodes and decodes both. Each vector is stored once: this
// table's BLOB is the only copy.

const upsertEmbeddingQuery = `INSERT INTO embeddings (content_hash, model, dimensions, vector)
	VALUES (?, ?, ?, ?)
	ON CONFLICT (content_hash, model) DO UPDATE SET dimensions = excluded.dimensions, vector = excluded.vector`

// UpsertEmbedding stores the vector blob of contentHash for model,
// replacing any previous one.
func UpsertEmbedding(ctx context.Context, q Querier, contentHash, model string, dimensions int, blob []byte) error {
	_, err := q.ExecContext(ctx, upsertEmbeddingQuery, hashArg(q, contentHash), model, dimensions, blob)
	return err
}

const setEmbeddingModelQuery = `UPDATE memories SET embedding_model = ? WHERE id = ? AND content_hash = ?`

// SetEmbeddingModel records that memory id is embedded with model, only if
// its content hash is still contentHash (the content may have changed while
// it was being embedded). It reports whether the row was updated.
func SetEmbeddingModel(ctx context.Context, q Querier, id, contentHash, model string) (bool, error) {
	res, err := q.ExecContext(ctx, setEmbeddingModelQuery, model, id, hashArg(q, contentHash))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

var markEmbeddedByHashQuery = dialect.SQL(`UPDATE memories SET embedding_model = ?
	WHERE is_deleted = 0 AND content_hash IN %s AND embedding_model IS DISTINCT FROM ?
	AND EXISTS (SELECT 1 FROM embeddings e WHERE e.content_hash = memories.content_hash AND e.model = ?)
	RETURNING id`, hashList)

// MarkEmbeddedByHash sets embedding_model to model on the live memories
// whose content hash is among hashes, that a vector for model covers and
// that are not marked yet. It returns their ids.
func MarkEmbeddedByHash(ctx context.Context, q Querier, model string, hashes []string) ([]string, error) {
	return Strings(ctx, q, markEmbeddedByHashQuery.For(q), model, jsonList(hashes), model, model)
}

const embeddingDimensionsQuery = `SELECT dimensions FROM embeddings WHERE model = ? LIMIT 1`

// EmbeddingDimensions returns the dimensions of one stored vector of
// model, or ErrNotFound when there is none.
func EmbeddingDimensions(ctx context.Context, q Querier, model string) (int, error) {
	var dim int
	err := q.QueryRowContext(ctx, embeddingDimensionsQuery, model).Scan(&dim)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return dim, err
}

const embeddingVectorQuery = `SELECT vector FROM embeddings WHERE content_hash = ? AND model = ?`

// EmbeddingVector returns the vector blob of contentHash for model, or
// ErrNotFound.
func EmbeddingVector(ctx context.Context, q Querier, contentHash, model string) ([]byte, error) {
	var blob []byte
	err := q.QueryRowContext(ctx, embeddingVectorQuery, hashArg(q, contentHash), model).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return blob, err
}

const hasEmbeddingQuery = `SELECT 1 FROM embeddings WHERE content_hash = ? AND model = ?`

// HasEmbedding reports whether a vector of contentHash for model exists.
func HasEmbedding(ctx context.Context, q Querier, contentHash, model string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, hasEmbeddingQuery, hashArg(q, contentHash), model).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// PendingEmbedding is a live memory whose content has no vector for a
// model.
type PendingEmbedding struct {
	ID          string
	ContentHash string
	Content     string
}

const countPendingEmbeddingsQuery = `SELECT count(*) FROM memories m
	WHERE m.is_deleted = 0 AND NOT EXISTS (
		SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)`

// CountPendingEmbeddings counts live memories without a vector for model.
func CountPendingEmbeddings(ctx context.Context, q Querier, model string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, countPendingEmbeddingsQuery, model).Scan(&n)
	return n, err
}

const pendingEmbeddingsQuery = `SELECT m.id, m.content_hash, m.content FROM memories m
	WHERE m.is_deleted = 0 AND NOT EXISTS (
		SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)
	ORDER BY m.updated_at DESC LIMIT ?`

// PendingEmbeddings returns up to limit live memories without a vector for
// model, most recently updated first.
func PendingEmbeddings(ctx context.Context, q Querier, model string, limit int) ([]PendingEmbedding, error) {
	return pendingEmbeddings(ctx, q, pendingEmbeddingsQuery, model, limit)
}

// PendingCursor is where a newest-first walk over pending memories
// stopped: the last row's updated_at and rid. The zero value is the top.
type PendingCursor struct {
	UpdatedAt string
	RID       int64
}

const pendingTopQuery = `SELECT m.id, m.content_hash, m.content, m.updated_at, m.rid FROM memories m
	WHERE m.is_deleted = 0
	AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)
	ORDER BY m.updated_at DESC, m.rid DESC LIMIT ?`

// pendingFromQuery is pendingTopQuery below a cursor: a range on
// idx_memories_updated.
const pendingFromQuery = `SELECT m.id, m.content_hash, m.content, m.updated_at, m.rid FROM memories m
	WHERE m.is_deleted = 0 AND m.updated_at <= ? AND NOT (m.updated_at = ? AND m.rid >= ?)
	AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)
	ORDER BY m.updated_at DESC, m.rid DESC LIMIT ?`

// PendingEmbeddingsFrom is PendingEmbeddings continuing below cur, so a
// backlog is walked once instead of rescanned from the top at every
// batch (the rows above the cursor were embedded by the earlier batches).
// It returns the cursor after the last row.
func PendingEmbeddingsFrom(ctx context.Context, q Querier, model string, cur PendingCursor, limit int) ([]PendingEmbedding, PendingCursor, error) {
	var rows *sql.Rows
	var err error
	if cur == (PendingCursor{}) {
		rows, err = q.QueryContext(ctx, pendingTopQuery, model, limit)
	} else {
		rows, err = q.QueryContext(ctx, pendingFromQuery, cur.UpdatedAt, cur.UpdatedAt, cur.RID, model, limit)
	}
	if err != nil {
		return nil, cur, err
	}
	defer rows.Close()
	var out []PendingEmbedding
	for rows.Next() {
		var p PendingEmbedding
		if err := rows.Scan(&p.ID, hashCol{&p.ContentHash}, &p.Content, &cur.UpdatedAt, &cur.RID); err != nil {
			return nil, cur, err
		}
		out = append(out, p)
	}
	return out, cur, rows.Err()
}

// oldestPendingEmbeddingsQuery is pendingEmbeddingsQuery oldest first.
const oldestPendingEmbeddingsQuery = `SELECT m.id, m.content_hash, m.content FROM memories m
	WHERE m.is_deleted = 0 AND NOT EXISTS (
		SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)
	ORDER BY m.created_at, m.rid LIMIT ?`

// OldestPendingEmbeddings returns up to limit live memories without a
// vector for model, oldest first (the order a backlog built up in).
func OldestPendingEmbeddings(ctx context.Context, q Querier, model string, limit int) ([]PendingEmbedding, error) {
	return pendingEmbeddings(ctx, q, oldestPendingEmbeddingsQuery, model, limit)
}

func pendingEmbeddings(ctx context.Context, q Querier, query, model string, limit int) ([]PendingEmbedding, error) {
	rows, err := q.QueryContext(ctx, query, model, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PendingEmbedding
	for rows.Next() {
		var p PendingEmbedding
		if err := rows.Scan(&p.ID, hashCol{&p.ContentHash}, &p.Content); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

const countEmbeddedMemoriesQuery = `SELECT count(*) FROM memories m JOIN embeddings e
	ON e.content_hash = m.content_hash AND e.model = ? WHERE m.is_deleted = 0`

// CountEmbeddedMemories counts live memories with a vector for model, by
// joining the two tables (what the vector index loads and the export
// pages through).
func CountEmbeddedMemories(ctx context.Context, q Querier, model string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, countEmbeddedMemoriesQuery, model).Scan(&n)
	return n, err
}

var countCoveredMemoriesQuery = dialect.SQL(`SELECT count(*) FROM memories m %s
	WHERE m.is_deleted = 0 AND EXISTS (SELECT 1 FROM embeddings e WHERE e.content_hash = m.content_hash AND e.model = ?)`,
	dialect.Fragment{"INDEXED BY idx_memories_hash_live"})

// CountCoveredMemories counts live memories with a vector for model: one
// probe of the embeddings' unique index per live row through the covering
// live-hash index, faster than the join of CountEmbeddedMemories on a
// large store.
func CountCoveredMemories(ctx context.Context, q Querier, model string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, countCoveredMemoriesQuery.For(q), model).Scan(&n)
	return n, err
}

// VectorRow is one live memory's vector with the memory fields the vector
// index filters on. Tags is the stored JSON text; Vector the stored blob.
type VectorRow struct {
	ID         string
	Type       string
	Who        string
	Project    string
	SourceType string
	Tags       string
	Pinned     bool
	Importance float64
	CreatedAt  string
	Scope      string
	Vector     []byte
}

const vectorRowsQuery = `SELECT m.id, m.type, COALESCE(m.who, ''), COALESCE(m.project, ''), m.source_type,
	m.tags, m.pinned, m.importance, m.created_at, COALESCE(m.scope, ''), e.vector
	FROM memories m JOIN embeddings e ON e.content_hash = m.content_hash AND e.model = ?
	WHERE m.is_deleted = 0`

// EachVectorRow calls fn for every live memory with a vector for model.
// It reads only the columns the vector index keeps. The row passed to fn
// is reused: fn must copy what it keeps.
func EachVectorRow(ctx context.Context, q Querier, model string, fn func(*VectorRow) error) error {
	rows, err := q.QueryContext(ctx, vectorRowsQuery, model)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r VectorRow
	for rows.Next() {
		if err := rows.Scan(&r.ID, &r.Type, &r.Who, &r.Project, &r.SourceType, &r.Tags, &r.Pinned, &r.Importance,
			&r.CreatedAt, &r.Scope, &r.Vector); err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EmbeddedMemory is a live memory with its vector for one model.
type EmbeddedMemory struct {
	Memory     *Memory
	Dimensions int
	Vector     []byte
}

const listEmbeddedMemoriesQuery = `SELECT ` + memoryColumns + `, e.dimensions, e.vector
	FROM memories m JOIN embeddings e ON e.content_hash = m.content_hash AND e.model = ?
	WHERE m.is_deleted = 0 ORDER BY m.rid LIMIT ? OFFSET ?`

// ListEmbeddedMemories pages through live memories with a vector for
// model, oldest first.
func ListEmbeddedMemories(ctx context.Context, q Querier, model string, limit, offset int) ([]*EmbeddedMemory, error) {
	rows, err := q.QueryContext(ctx, listEmbeddedMemoriesQuery, model, limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*EmbeddedMemory{}
	for rows.Next() {
		e := &EmbeddedMemory{}
		m, err := ScanMemory(extraScanner{rows, []any{&e.Dimensions, &e.Vector}})
		if err != nil {
			return nil, err
		}
		e.Memory = m
		out = append(out, e)
	}
	return out, rows.Err()
}

// extraScanner appends columns after those of a ScanMemory scan.
type extraScanner struct {
	rows  rowScanner
	extra []any
}

func (x extraScanner) Scan(dest ...any) error { return x.rows.Scan(append(dest, x.extra...)...) }

// Vectors are purged here, beside the rows they are read and written
// with (their content hashes are stored as bytes: hashkey.go); the rest of
// the retention sweep is storage/retention.

var deleteUnusedEmbeddingsQuery = dialect.SQL(`DELETE FROM embeddings WHERE content_hash IN %s
	AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.content_hash = embeddings.content_hash AND m.is_deleted = 0)
	AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.is_deleted = 1 AND m.deleted_at >= ? AND m.content_hash = embeddings.content_hash)`,
	hashList)

// PurgeTombstoneEmbeddings deletes the vectors of tombstones deleted before
// cutoff, visiting up to limit tombstones with rid > afterRID in rid order.
// A vector is kept while any live memory or any tombstone deleted at or
// after cutoff (still recoverable) has its content hash. It returns the
// vectors deleted and the last rid visited (0 when none was left).
func PurgeTombstoneEmbeddings(ctx context.Context, q Querier, cutoff string, afterRID int64, limit int) (deleted, lastRID int64, err error) {
	rows, err := q.QueryContext(ctx, `SELECT rid, content_hash FROM memories
		WHERE is_deleted = 1 AND deleted_at < ? AND superseded_by IS NULL AND rid > ? ORDER BY rid LIMIT ?`, cutoff, afterRID, limit)
	if err != nil {
		return 0, 0, err
	}
	hashes := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&lastRID, hashCol{&h}); err != nil {
			rows.Close()
			return 0, 0, err
		}
		hashes[h] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(hashes) == 0 {
		return 0, lastRID, err
	}
	list := make([]string, 0, len(hashes))
	for h := range hashes {
		list = append(list, h)
	}
	res, err := q.ExecContext(ctx, deleteUnusedEmbeddingsQuery.For(q), jsonList(list), cutoff)
	if err != nil {
		return 0, lastRID, fmt.Errorf("delete embeddings: %w", err)
	}
	deleted, _ = res.RowsAffected()
	return deleted, lastRID, nil
}

// deleteEmbeddingsQuery deletes vectors by id, all or [1] those of no
// tombstone deleted since ?.
var deleteEmbeddingsQuery = [2]dialect.Text{dialect.SQL(`DELETE FROM embeddings WHERE id IN (%s)`, intList),
	dialect.SQL(`DELETE FROM embeddings WHERE id IN (%s) AND NOT EXISTS (SELECT 1 FROM memories m
		WHERE m.is_deleted = 1 AND m.deleted_at >= ? AND m.content_hash = embeddings.content_hash)`, intList)}

// DeleteOrphanEmbeddings deletes up to limit vectors whose content hash no
// live memory has (the memory is missing or soft-deleted), visiting
// embeddings with id > afterID. When keepCutoff is not empty, vectors of
// tombstones deleted at or after it are kept. It returns the vectors
// deleted and the last id visited (0 when none was left).
func DeleteOrphanEmbeddings(ctx context.Context, q Querier, afterID int64, limit int, keepCutoff string) (deleted, lastID int64, err error) {
	ids, err := column[int64](ctx, q, `SELECT e.id FROM embeddings e WHERE e.id > ?
		AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.content_hash = e.content_hash AND m.is_deleted = 0)
		ORDER BY e.id LIMIT ?`, afterID, limit)
	if err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	lastID = ids[len(ids)-1]
	var res sql.Result
	if keepCutoff == "" {
		res, err = q.ExecContext(ctx, deleteEmbeddingsQuery[0].For(q), jsonList(ids))
	} else {
		res, err = q.ExecContext(ctx, deleteEmbeddingsQuery[1].For(q), jsonList(ids), keepCutoff)
	}
	if err != nil {
		return 0, lastID, fmt.Errorf("delete embeddings: %w", err)
	}
	deleted, _ = res.RowsAffected()
	return deleted, lastID, nil
}

// CountOrphanEmbeddings counts vectors whose content hash no live memory has.
func CountOrphanEmbeddings(ctx context.Context, q Querier) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM embeddings e
		WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.content_hash = e.content_hash AND m.is_deleted = 0)`).Scan(&n)
	return n, err
}
