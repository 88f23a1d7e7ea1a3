package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/cairnmem/cairn/storage/dialect"
)

// What export and import carry of a memory's evolution besides its row:
// its key and successor (read here for a page of memories at once), its
// attributes, and the statements that write them back on import.

// KeysAndSuccessors returns the key and successor of each of ids that has
// either: id → [key, superseded_by].
func KeysAndSuccessors(ctx context.Context, q Querier, ids []string) (map[string][2]string, error) {
	out := map[string][2]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT id, COALESCE(memory_key, ''), COALESCE(superseded_by, '') FROM memories
		WHERE id IN (`+textList.In(dialect.Of(q))+`) AND (memory_key IS NOT NULL OR superseded_by IS NOT NULL)`, jsonList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, key, by string
		if err := rows.Scan(&id, &key, &by); err != nil {
			return nil, err
		}
		out[id] = [2]string{key, by}
	}
	return out, rows.Err()
}

// AttributesOfMemories returns the attributes read from each of ids, live
// and superseded, oldest first.
func AttributesOfMemories(ctx context.Context, q Querier, ids []string) (map[string][]*AttributeRow, error) {
	out := map[string][]*AttributeRow{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := scanAttributes(q.QueryContext(ctx, attributeSelect+`
		WHERE a.memory_id IN (`+textList.In(dialect.Of(q))+`) ORDER BY a.memory_id, a.created_at, a.id`, jsonList(ids)))
	if err != nil {
		return nil, err
	}
	for _, a := range rows {
		out[a.MemoryID] = append(out[a.MemoryID], a)
	}
	return out, nil
}

// SetEvolution writes an imported memory's scope ("" for the project's),
// key, successor, reinforcement and last confirmation in one statement.
func SetEvolution(ctx context.Context, q Querier, id, scope, key, supersededBy string, reinforced int64, lastConfirmed string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET scope = ?, memory_key = ?, superseded_by = ?, reinforced_count = ?,
		last_confirmed_at = ? WHERE id = ?`, nullable(scope), nullable(key), nullable(supersededBy), reinforced, nullable(lastConfirmed), id)
	return err
}

// InsertAttributeAs writes an attribute row as a.Status and
// a.SupersededBy say (an import keeps them); aspectID names its aspect.
func InsertAttributeAs(ctx context.Context, q Querier, a *AttributeRow, aspectID string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO entity_attributes(id, memory_id, slot, entity, aspect_id, name, value, kind, status,
		superseded_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.MemoryID, a.Slot, a.Entity, nullable(aspectID),
		a.Name, a.Value, a.Kind, orDefault(a.Status, "live"), nullable(a.SupersededBy), a.CreatedAt)
	return err
}

// DeleteAttribute removes attribute id (its memory no longer states it).
func DeleteAttribute(ctx context.Context, q Querier, id string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM entity_attributes WHERE id = ?`, id)
	return err
}

// AttributesSupersededBy returns the attributes of other memories that
// memory successor superseded.
func AttributesSupersededBy(ctx context.Context, q Querier, successor string) ([]*AttributeRow, error) {
	return scanAttributes(q.QueryContext(ctx, attributeSelect+`
		WHERE a.status = 'superseded' AND a.superseded_by = ? ORDER BY a.created_at, a.id`, successor))
}

// ReviveAttribute makes attribute id live again.
func ReviveAttribute(ctx context.Context, q Querier, id string) error {
	_, err := q.ExecContext(ctx, `UPDATE entity_attributes SET status = 'live', superseded_by = NULL WHERE id = ?`, id)
	return err
}

// RepointSuccessor makes the memories and attributes superseded by from
// point at to instead (from was a duplicate of to and was not written).
func RepointSuccessor(ctx context.Context, q Querier, from, to string) error {
	if _, err := q.ExecContext(ctx, `UPDATE memories SET superseded_by = ? WHERE superseded_by = ?`, to, from); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `UPDATE entity_attributes SET superseded_by = ? WHERE superseded_by = ?`, to, from)
	return err
}

// LiveIDByHash is the id of the live memory holding content hash in
// project ("" when there is none).
func LiveIDByHash(ctx context.Context, q Querier, hash, project string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM memories WHERE content_hash = ? AND COALESCE(project, '') = ? AND is_deleted = 0
		LIMIT 1`, hashArg(q, hash), project).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}
