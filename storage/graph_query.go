package storage

import (
	"context"
	"database/sql"
	"errors"
)

// The graph's read side beyond the listing: one entity, its relations,
// the memories that mention it, and the entities of one memory.

const getEntityQuery = `SELECT id, name, canonical_name, entity_type, mentions, updated_at FROM entities WHERE id = ?`

// GetEntity returns entity id, or ErrNotFound.
func GetEntity(ctx context.Context, q Querier, id string) (*Entity, error) {
	var e Entity
	err := q.QueryRowContext(ctx, getEntityQuery, id).Scan(&e.ID, &e.Name, &e.CanonicalName, &e.EntityType, &e.Mentions, &e.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// EntityRelation is one relation of an entity, seen from it: Outgoing
// when the entity is the relation's source.
type EntityRelation struct {
	ID           string
	RelationType string
	Outgoing     bool
	Other        Entity
	Mentions     int
	Confidence   float64
	UpdatedAt    string
}

// EntityRelations returns up to limit relations of entity id in either
// direction (of relType only, when it is not empty), the most observed
// first.
func EntityRelations(ctx context.Context, q Querier, id, relType string, limit int) ([]EntityRelation, error) {
	rows, err := q.QueryContext(ctx, `SELECT r.id, r.relation_type, r.outgoing, r.mentions, r.confidence, r.updated_at,
			e.id, e.name, e.canonical_name, e.entity_type, e.mentions, e.updated_at
		FROM (
			SELECT id, relation_type, 1 AS outgoing, target_entity_id AS other, mentions, confidence, updated_at
				FROM relations WHERE source_entity_id = ?1 AND (?2 = '' OR relation_type = ?2)
			UNION ALL
			SELECT id, relation_type, 0, source_entity_id, mentions, confidence, updated_at
				FROM relations WHERE target_entity_id = ?1 AND (?2 = '' OR relation_type = ?2)
		) r JOIN entities e ON e.id = r.other
		ORDER BY r.mentions DESC, r.confidence DESC, e.canonical_name LIMIT ?3`, id, relType, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []EntityRelation{}
	for rows.Next() {
		var r EntityRelation
		var o Entity
		if err := rows.Scan(&r.ID, &r.RelationType, &r.Outgoing, &r.Mentions, &r.Confidence, &r.UpdatedAt,
			&o.ID, &o.Name, &o.CanonicalName, &o.EntityType, &o.Mentions, &o.UpdatedAt); err != nil {
			return nil, err
		}
		r.Other = o
		out = append(out, r)
	}
	return out, rows.Err()
}

// EntityMemories returns up to limit live memories that mention entity
// id, newest first: of project only, when it is not empty.
func EntityMemories(ctx context.Context, q Querier, id, project string, limit int) ([]*Memory, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+memoryColumns+` FROM memory_entity_mentions mem
		JOIN memories m ON m.rid = mem.memory_rid AND m.is_deleted = 0
		WHERE mem.entity_rid = (SELECT rid FROM entities WHERE id = ?1) AND (?2 = '' OR m.project = ?2) ORDER BY m.created_at DESC, m.rid DESC LIMIT ?3`,
		id, project, limit)
	if err != nil {
		return nil, err
	}
	return collectMemories(rows)
}

// MemoryEntities returns the entities memory id mentions, most mentioned
// first.
func MemoryEntities(ctx context.Context, q Querier, memoryID string) ([]Entity, error) {
	return scanEntities(q.QueryContext(ctx, `SELECT e.id, e.name, e.canonical_name, e.entity_type, e.mentions, e.updated_at
		FROM memory_entity_mentions mem JOIN entities e ON e.rid = mem.entity_rid
		WHERE mem.memory_rid = (SELECT rid FROM memories WHERE id = ?) ORDER BY e.mentions DESC, e.canonical_name`, memoryID))
}
