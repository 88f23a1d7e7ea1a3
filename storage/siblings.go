package storage

import (
	"context"
	"encoding/json"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Sibling attributes (retroactive supersession: docs/design/evolution.md,
// "Supersession"): the live attributes of one entity and aspect in one
// slot, with the memory that holds each, so that a new attribute can be
// checked against its siblings by the contradiction detectors.

// SiblingRow is a live attribute and its live memory.
type SiblingRow struct {
	AttributeRow
	Content string
	Version int64
	Pinned  bool
}

// LiveSiblings returns the live attributes of entity's aspect in slot
// held by live memories other than except, newest first, at most limit.
func LiveSiblings(ctx context.Context, q Querier, slot, entity, aspect, except string, limit int) ([]*SiblingRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.id, a.memory_id, a.slot, a.entity, s.name, a.name, a.value, a.kind, a.status,
		COALESCE(a.superseded_by, ''), a.created_at, m.content, m.version, m.pinned
		FROM entity_attributes a JOIN entity_aspects s ON s.id = a.aspect_id
		JOIN memories m ON m.id = a.memory_id AND m.is_deleted = 0
		WHERE a.status = 'live' AND a.slot = ? AND a.entity = ? AND s.name = ? AND a.memory_id <> ?
		ORDER BY a.created_at DESC, a.id LIMIT ?`, slot, entity, aspect, except, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*SiblingRow
	for rows.Next() {
		var r SiblingRow
		if err := rows.Scan(&r.ID, &r.MemoryID, &r.Slot, &r.Entity, &r.Aspect, &r.Name, &r.Value, &r.Kind, &r.Status,
			&r.SupersededBy, &r.CreatedAt, &r.Content, &r.Version, &r.Pinned); err != nil {
			return nil, err
		}
		out = append(out, &r)
	}
	return out, rows.Err()
}

// PendingProposalFor reports whether a pending proposal from source
// targets target already.
func PendingProposalFor(ctx context.Context, q Querier, source, target string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM pipeline_proposals WHERE source_memory_id = ? AND target_memory_id = ?
		AND state = 'pending'`, source, target).Scan(&n)
	return n > 0, err
}

var constraintMemoriesQuery = dialect.SQL(`SELECT DISTINCT memory_id FROM entity_attributes
	WHERE memory_id IN (%s) AND kind = 'constraint' AND status = 'live'`, textList)

// ConstraintMemories returns which of ids hold a live constraint
// attribute (a decision the linker or the model read).
func ConstraintMemories(ctx context.Context, q Querier, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	got, err := Strings(ctx, q, constraintMemoriesQuery.For(q), string(list))
	for _, id := range got {
		out[id] = true
	}
	return out, err
}
