package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// memoryStampQuery reads, in one statement, what a memory's detail shows
// that can change: the row's changing columns (an edit bumps version and
// updated_at, but recall bumps the access count, the workers write the
// embedding model and the extraction status, evolution the key, the
// reinforcement and the successor, without either), and a count and
// newest mark of each thing shown beside it: its history, the entities it
// mentions (their mentions order them), its attributes (their status and
// aspect weights) and the memories it superseded. Each part is a lookup by
// the memory's id or rid on an index: idx_history_memory,
// memory_entity_mentions' primary key, idx_entity_attributes_memory,
// idx_memories_superseded_by.
const memoryStampQuery = `SELECT m.version, m.update_count, m.updated_at, m.updated_by, m.access_count,
	COALESCE(m.last_accessed, ''), COALESCE(m.embedding_model, ''), m.extraction_status, m.is_deleted,
	COALESCE(m.deleted_at, ''), m.pinned, m.importance, m.confidence, COALESCE(m.memory_key, ''),
	COALESCE(m.superseded_by, ''), m.reinforced_count, COALESCE(m.last_confirmed_at, ''), COALESCE(m.scope, ''),
	(SELECT count(*) FROM memory_history h WHERE h.memory_id = m.id),
	(SELECT COALESCE(max(h.created_at), '') FROM memory_history h WHERE h.memory_id = m.id),
	(SELECT count(*) FROM memory_entity_mentions x WHERE x.memory_rid = m.rid),
	(SELECT CAST(COALESCE(sum(e.mentions), 0) AS BIGINT) FROM memory_entity_mentions x JOIN entities e ON e.rid = x.entity_rid WHERE x.memory_rid = m.rid),
	(SELECT COALESCE(max(e.updated_at), '') FROM memory_entity_mentions x JOIN entities e ON e.rid = x.entity_rid WHERE x.memory_rid = m.rid),
	(SELECT count(*) FROM entity_attributes a WHERE a.memory_id = m.id),
	(SELECT count(*) FROM entity_attributes a WHERE a.memory_id = m.id AND a.status = 'live'),
	(SELECT COALESCE(sum(s.weight), 0) FROM entity_attributes a JOIN entity_aspects s ON s.id = a.aspect_id WHERE a.memory_id = m.id),
	(SELECT count(*) FROM memories s WHERE s.superseded_by = m.id)
	FROM memories m WHERE m.id = ?`

// MemoryStamp is a short text that changes whenever something memory id's
// detail shows changes, whether or not the change published an event (an
// access recall counted, a worker's embedding or entity links, an
// aspect's weight): a reader that keeps the stamp of what it shows reads
// the memory again only when the stamp differs. ErrNotFound when no row
// has the id.
func MemoryStamp(ctx context.Context, q Querier, id string) (string, error) {
	var (
		version, updates, accesses, deleted, pinned, reinforced        int64
		histN, mentionsN, mentionsSum, attrsN, attrsLive, supersededN  int64
		importance, confidence, weights                                float64
		updated, updatedBy, accessed, embedding, extraction, deletedAt string
		key, successor, confirmed, scope, histAt, entitiesAt           string
	)
	err := q.QueryRowContext(ctx, memoryStampQuery, id).Scan(&version, &updates, &updated, &updatedBy, &accesses,
		&accessed, &embedding, &extraction, &deleted, &deletedAt, &pinned, &importance, &confidence, &key,
		&successor, &reinforced, &confirmed, &scope, &histN, &histAt, &mentionsN, &mentionsSum, &entitiesAt,
		&attrsN, &attrsLive, &weights, &supersededN)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("v%d.%d %s %s a%d %s %s %s d%d %s p%d %g %g k%s s%s r%d %s %s h%d %s e%d.%d %s t%d.%d %g x%d",
		version, updates, updated, updatedBy, accesses, accessed, embedding, extraction, deleted, deletedAt, pinned,
		importance, confidence, key, successor, reinforced, confirmed, scope, histN, histAt, mentionsN, mentionsSum,
		entitiesAt, attrsN, attrsLive, weights, supersededN), nil
}
