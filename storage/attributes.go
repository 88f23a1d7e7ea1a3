package storage

import (
	"context"
	"database/sql"
	"errors"
)

// Entity aspects and attributes (migration 0018): what the linker read
// from a memory, by entity and aspect, live or superseded.

// AttributeRow is one attribute of an entity, read from one memory.
type AttributeRow struct {
	ID           string `json:"id"`
	MemoryID     string `json:"memory_id"`
	Slot         string `json:"-"`
	Entity       string `json:"entity"`
	Aspect       string `json:"aspect"`
	Name         string `json:"name"`
	Value        string `json:"value"`
	Kind         string `json:"kind"`
	Status       string `json:"status"`
	SupersededBy string `json:"superseded_by,omitempty"`
	CreatedAt    string `json:"created_at"`
	// AspectWeight is its aspect's weight (aspect feedback, migration 0023).
	AspectWeight *float64 `json:"aspect_weight,omitempty"`
}

// UpsertAspect returns the id of entity's aspect name, creating it with
// id when it is new.
func UpsertAspect(ctx context.Context, q Querier, id, entity, name, now string) (string, error) {
	if _, err := q.ExecContext(ctx, `INSERT INTO entity_aspects(id, entity, name, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(entity, name) DO NOTHING`, id, entity, name, now); err != nil {
		return "", err
	}
	var got string
	err := q.QueryRowContext(ctx, `SELECT id FROM entity_aspects WHERE entity = ? AND name = ?`, entity, name).Scan(&got)
	return got, err
}

// InsertAttribute writes a live attribute row (a.ID, a.MemoryID and the
// rest set by the caller); aspectID names its aspect.
func InsertAttribute(ctx context.Context, q Querier, a *AttributeRow, aspectID string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO entity_attributes(id, memory_id, slot, entity, aspect_id, name, value, kind, status, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'live', ?)`, a.ID, a.MemoryID, a.Slot, a.Entity, nullable(aspectID), a.Name, a.Value, a.Kind, a.CreatedAt)
	return err
}

const attributeSelect = `SELECT a.id, a.memory_id, a.slot, a.entity, COALESCE(s.name, ''), a.name, a.value, a.kind, a.status,
	COALESCE(a.superseded_by, ''), a.created_at, s.weight FROM entity_attributes a LEFT JOIN entity_aspects s ON s.id = a.aspect_id`

func scanAttributes(rows *sql.Rows, err error) ([]*AttributeRow, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*AttributeRow
	for rows.Next() {
		var a AttributeRow
		var w sql.NullFloat64
		if err := rows.Scan(&a.ID, &a.MemoryID, &a.Slot, &a.Entity, &a.Aspect, &a.Name, &a.Value, &a.Kind, &a.Status,
			&a.SupersededBy, &a.CreatedAt, &w); err != nil {
			return nil, err
		}
		if w.Valid {
			a.AspectWeight = &w.Float64
		}
		out = append(out, &a)
	}
	return out, rows.Err()
}

// LiveAttributesOf returns the live attributes of entity's attribute name
// in slot, held by live memories other than except.
func LiveAttributesOf(ctx context.Context, q Querier, slot, entity, name, except string) ([]*AttributeRow, error) {
	return scanAttributes(q.QueryContext(ctx, attributeSelect+`
		JOIN memories m ON m.id = a.memory_id AND m.is_deleted = 0
		WHERE a.status = 'live' AND a.slot = ? AND a.entity = ? AND a.name = ? AND a.memory_id <> ?
		ORDER BY a.created_at, a.id`, slot, entity, name, except))
}

// LiveAttributesValued returns the live attributes in slot holding value,
// held by live memories other than except; entity "" matches any entity.
func LiveAttributesValued(ctx context.Context, q Querier, slot, entity, value, except string) ([]*AttributeRow, error) {
	return scanAttributes(q.QueryContext(ctx, attributeSelect+`
		JOIN memories m ON m.id = a.memory_id AND m.is_deleted = 0
		WHERE a.status = 'live' AND a.slot = ? AND a.value = ? AND (? = '' OR a.entity = ?) AND a.memory_id <> ?
		ORDER BY a.created_at, a.id`, slot, value, entity, entity, except))
}

// MemoryAttributes returns every attribute read from memory id, live
// and superseded.
func MemoryAttributes(ctx context.Context, q Querier, id string) ([]*AttributeRow, error) {
	return scanAttributes(q.QueryContext(ctx, attributeSelect+` WHERE a.memory_id = ? ORDER BY a.created_at, a.id`, id))
}

// SupersedeAttribute marks attribute id superseded by memory successor.
func SupersedeAttribute(ctx context.Context, q Querier, id, successor string) error {
	_, err := q.ExecContext(ctx, `UPDATE entity_attributes SET status = 'superseded', superseded_by = ? WHERE id = ?`, successor, id)
	return err
}

// CountLiveAttributes counts memory id's live attributes.
func CountLiveAttributes(ctx context.Context, q Querier, id string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM entity_attributes WHERE memory_id = ? AND status = 'live'`, id).Scan(&n)
	return n, err
}

// ReviveAttributes makes memory id's attributes live again (it was
// recovered).
func ReviveAttributes(ctx context.Context, q Querier, id string) error {
	_, err := q.ExecContext(ctx, `UPDATE entity_attributes SET status = 'live', superseded_by = NULL WHERE memory_id = ? AND status = 'superseded'`, id)
	return err
}

// MemoryScope is memory id's scope: "" (project), "user" or "agent".
func MemoryScope(ctx context.Context, q Querier, id string) (string, error) {
	var s sql.NullString
	err := q.QueryRowContext(ctx, `SELECT scope FROM memories WHERE id = ?`, id).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return s.String, err
}
