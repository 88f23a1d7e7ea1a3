package storage

import (
	"context"
	"database/sql"
	"errors"
)

// Structural classification (docs/design/pipeline.md, "Structural
// classification"): the memories an entity's classification reads, and
// the aspect and kind it writes back.

// ClassifyMemory is a live memory about an entity, for its classification.
type ClassifyMemory struct {
	ID        string
	Content   string
	CreatedAt string
	Version   int64
}

// ClassifyMemories returns the live memories of slot about entity, newest
// first, at most limit: those holding an attribute of it and, in a
// project slot (project != ""), those the graph links to it.
func ClassifyMemories(ctx context.Context, q Querier, slot, project, entity string, limit int) ([]*ClassifyMemory, error) {
	rows, err := q.QueryContext(ctx, `SELECT m.id, m.content, m.created_at, m.version FROM memories m
		WHERE m.is_deleted = 0 AND (
			m.id IN (SELECT memory_id FROM entity_attributes WHERE slot = ?1 AND entity = ?2)
			OR (?3 <> '' AND COALESCE(m.project, '') = ?3 AND m.scope IS NULL AND m.rid IN (
				SELECT mm.memory_rid FROM memory_entity_mentions mm JOIN entities en ON en.rid = mm.entity_rid
				WHERE en.canonical_name = ?2)))
		ORDER BY m.created_at DESC, m.rid DESC LIMIT ?4`, slot, entity, project, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ClassifyMemory
	for rows.Next() {
		var m ClassifyMemory
		if err := rows.Scan(&m.ID, &m.Content, &m.CreatedAt, &m.Version); err != nil {
			return nil, err
		}
		out = append(out, &m)
	}
	return out, rows.Err()
}

// EntityType is the graph's type of the entity named canonical, or
// "unknown".
func EntityType(ctx context.Context, q Querier, canonical string) (string, error) {
	var t string
	err := q.QueryRowContext(ctx, `SELECT entity_type FROM entities WHERE canonical_name = ?`, canonical).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return "unknown", nil
	}
	return t, err
}

// EntityAspects lists the names of entity's aspects.
func EntityAspects(ctx context.Context, q Querier, entity string) ([]string, error) {
	return Strings(ctx, q, `SELECT name FROM entity_aspects WHERE entity = ? ORDER BY name`, entity)
}

// MemoryEntityAttributes returns memory id's attributes of entity, live
// and superseded.
func MemoryEntityAttributes(ctx context.Context, q Querier, id, entity string) ([]*AttributeRow, error) {
	return scanAttributes(q.QueryContext(ctx, attributeSelect+` WHERE a.memory_id = ? AND a.entity = ? ORDER BY a.created_at, a.id`, id, entity))
}

// SetAttributeClass files attribute id under aspectID with kind.
func SetAttributeClass(ctx context.Context, q Querier, id, aspectID, kind string) error {
	_, err := q.ExecContext(ctx, `UPDATE entity_attributes SET aspect_id = ?, kind = ? WHERE id = ?`, aspectID, kind, id)
	return err
}

// ClassifyEntities are the entities memory id holds attributes of, then
// those the graph links it to that have aspects already (an entity the
// linker or the model has read attributes of), at most limit.
func ClassifyEntities(ctx context.Context, q Querier, id string, limit int) ([]string, error) {
	return Strings(ctx, q, `SELECT entity FROM (
			SELECT entity, 0 AS k, min(created_at) AS c FROM entity_attributes WHERE memory_id = ?1 AND status = 'live' GROUP BY entity
			UNION ALL
			SELECT en.canonical_name, 1, en.created_at FROM memory_entity_mentions mm JOIN entities en ON en.rid = mm.entity_rid
			WHERE mm.memory_rid = (SELECT rid FROM memories WHERE id = ?1)
			AND EXISTS (SELECT 1 FROM entity_aspects s WHERE s.entity = en.canonical_name)) t
		GROUP BY entity ORDER BY min(k), min(c) LIMIT ?2`, id, limit)
}
