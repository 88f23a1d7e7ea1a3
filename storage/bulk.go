package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Bulk writes for import. A statement that fires a trigger writing a
// full-text table opens a statement savepoint, and FTS5 flushes what it
// holds in memory to a new segment at every savepoint: written row by row,
// each memory becomes a segment of its own, which FTS5 then spends most of
// an import merging. Written many rows per statement, a chunk of memories
// is one segment.

// bulkRows is how many rows one bulk statement writes; memoryRows, how
// many memories (33 columns each: just under SQLite's 32,766 variables).
const (
	bulkRows   = 256
	memoryRows = 960
)

// InsertMemories inserts ms as InsertMemory does, many rows per
// statement, and returns each row's rid, in the order of ms.
func InsertMemories(ctx context.Context, q Querier, ms []*Memory) ([]int64, error) {
	rids := make([]int64, 0, len(ms))
	byID := make(map[string]int64, min(len(ms), memoryRows))
	for start := 0; start < len(ms); start += memoryRows {
		part := ms[start:min(start+memoryRows, len(ms))]
		var sb strings.Builder
		sb.WriteString(insertMemoryHead)
		args := make([]any, 0, len(part)*33)
		for i, m := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(insertMemoryRow)
			args = append(args, memoryArgs(q, m)...)
		}
		sb.WriteString(` RETURNING id, rid`)
		rows, err := q.QueryContext(ctx, sb.String(), args...)
		if err != nil {
			return nil, err
		}
		clear(byID)
		for rows.Next() {
			var id string
			var rid int64
			if err := rows.Scan(&id, &rid); err != nil {
				rows.Close()
				return nil, err
			}
			byID[id] = rid
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, m := range part {
			rid, ok := byID[m.ID]
			if !ok {
				return nil, fmt.Errorf("insert memories: no rid returned for %s", m.ID)
			}
			rids = append(rids, rid)
		}
	}
	return rids, nil
}

// The write path's checks of a batch, one query each instead of one per
// record: which ids exist, which (content hash, project) pairs and which
// idempotency keys a live memory holds.

var existingIDsQuery = dialect.SQL(`SELECT id FROM memories WHERE id IN (%s)`, textList)

// ExistingIDs returns the ids among ids that name a memory, live or not.
func ExistingIDs(ctx context.Context, q Querier, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	got, err := Strings(ctx, q, existingIDsQuery.For(q), jsonList(ids))
	for _, id := range got {
		out[id] = true
	}
	return out, err
}

var liveHashesQuery = dialect.SQL(`SELECT content_hash, COALESCE(project, '') FROM memories
	WHERE content_hash IN %s AND is_deleted = 0`, hashList)

// LiveHashes returns the (content hash, project) pairs held by live
// memories whose hash is among hashes ("" for no project).
func LiveHashes(ctx context.Context, q Querier, hashes []string) (map[[2]string]bool, error) {
	out := map[[2]string]bool{}
	if len(hashes) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, liveHashesQuery.For(q), jsonList(hashes))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(hashCol{&k[0]}, &k[1]); err != nil {
			return nil, err
		}
		out[k] = true
	}
	return out, rows.Err()
}

var liveKeysQuery = dialect.SQL(`SELECT idempotency_key FROM memories
	WHERE idempotency_key IN (%s) AND is_deleted = 0`, textList)

// LiveIdempotencyKeys returns the keys among keys that a live memory holds.
func LiveIdempotencyKeys(ctx context.Context, q Querier, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := Strings(ctx, q, liveKeysQuery.For(q), jsonList(keys))
	for _, k := range got {
		out[k] = true
	}
	return out, err
}

// HintRow is one heuristic hint of a memory.
type HintRow struct{ MemoryID, Hint string }

// InsertHeuristicHints adds heuristic hints to memories that have none
// yet (new ones), many rows per statement.
func InsertHeuristicHints(ctx context.Context, q Querier, hints []HintRow, now string) error {
	for start := 0; start < len(hints); start += 4 * bulkRows {
		part := hints[start:min(start+4*bulkRows, len(hints))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO memory_hints (memory_id, hint, source, created_at) VALUES `)
		args := make([]any, 0, len(part)*3)
		for i, h := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, 'heuristic', ?)`)
			args = append(args, h.MemoryID, h.Hint, now)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// The columns and values of InsertMemory, for many rows per statement
// (TestInsertMemoriesAsInsertMemory keeps the two in step).
const insertMemoryHead = `INSERT INTO memories (
		id, type, category, content, content_hash, confidence, importance,
		source_id, source_type, tags, who, why, project, session_id, created_at, updated_at,
		updated_by, last_accessed, access_count, vector_clock, version, manual_override, pinned,
		is_deleted, deleted_at, extraction_status, embedding_model, extraction_model, update_count,
		idempotency_key, runtime_path, source_path, source_section
	) VALUES `

const insertMemoryRow = `(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// memoryArgs are the values of insertMemoryRow for m.
func memoryArgs(q Querier, m *Memory) []any {
	return []any{m.ID, m.Type, nullable(m.Category), m.Content, hashArg(q, m.ContentHash), m.Confidence, m.Importance,
		nullable(m.SourceID), m.SourceType, EncodeTags(m.Tags), nullable(m.Who), nullable(m.Why), nullable(m.Project),
		nullable(m.SessionID), m.CreatedAt, m.UpdatedAt, m.UpdatedBy, nullable(m.LastAccessed), m.AccessCount,
		orDefault(m.VectorClock, "{}"), max(m.Version, 1), m.ManualOverride, m.Pinned, m.IsDeleted, nullable(m.DeletedAt),
		orDefault(m.ExtractionStatus, "none"), nullable(m.EmbeddingModel), nullable(m.ExtractionModel), m.UpdateCount,
		nullable(m.IdempotencyKey), nullable(m.RuntimePath), nullable(m.SourcePath), nullable(m.SourceSection)}
}

// EntityRef is an entity as the bulk linker needs it.
type EntityRef struct {
	RID  int64
	ID   string
	Type string
}

var entitiesByCanonicalQuery = dialect.SQL(`SELECT canonical_name, rid, id, entity_type FROM entities
	WHERE canonical_name IN (%s)`, textList)

// EntitiesByCanonical returns the entities among canonical names, by
// canonical name.
func EntitiesByCanonical(ctx context.Context, q Querier, names []string) (map[string]EntityRef, error) {
	out := make(map[string]EntityRef, len(names))
	if len(names) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, entitiesByCanonicalQuery.For(q), jsonList(names))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var e EntityRef
		if err := rows.Scan(&name, &e.RID, &e.ID, &e.Type); err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, rows.Err()
}

// NewEntity is an entity for InsertEntities, with the links it starts with.
type NewEntity struct {
	ID, Name, Canonical, Type string
	Mentions                  int
}

// InsertEntities creates ents (none of whose canonical names exists yet),
// many per statement, created and updated at now, and returns their rids
// in the order of ents.
func InsertEntities(ctx context.Context, q Querier, ents []NewEntity, now string) ([]int64, error) {
	rids := make([]int64, 0, len(ents))
	byName := map[string]int64{}
	for start := 0; start < len(ents); start += 4 * bulkRows {
		part := ents[start:min(start+4*bulkRows, len(ents))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at) VALUES `)
		args := make([]any, 0, len(part)*7)
		for i, e := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, ?, ?, ?, ?, ?)`)
			args = append(args, e.ID, e.Name, e.Canonical, e.Type, e.Mentions, now, now)
		}
		sb.WriteString(` RETURNING canonical_name, rid`)
		rows, err := q.QueryContext(ctx, sb.String(), args...)
		if err != nil {
			return nil, err
		}
		clear(byName)
		for rows.Next() {
			var name string
			var rid int64
			if err := rows.Scan(&name, &rid); err != nil {
				rows.Close()
				return nil, err
			}
			byName[name] = rid
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, e := range part {
			rid, ok := byName[e.Canonical]
			if !ok {
				return nil, fmt.Errorf("insert entities: no rid returned for %q", e.Canonical)
			}
			rids = append(rids, rid)
		}
	}
	return rids, nil
}

// EntityTouch is what a batch of links changes on an existing entity:
// Added more mentions, and its type when Type is not "" (an "unknown"
// entity named with a type).
type EntityTouch struct {
	RID   int64
	Added int
	Type  string
}

var touchEntitiesQuery = dialect.SQL(`UPDATE entities SET mentions = mentions + t.added,
	entity_type = CASE WHEN t.typ <> '' THEN t.typ ELSE entity_type END, updated_at = %s
	FROM (%s) t WHERE entities.rid = t.rid`, dialect.Greatest("updated_at", "?2"), dialect.Fragment{
	`SELECT value ->> 0 AS rid, value ->> 1 AS added, value ->> 2 AS typ FROM json_each(?1)`,
	`SELECT (value ->> 0)::bigint AS rid, (value ->> 1)::bigint AS added, value ->> 2 AS typ FROM jsonb_array_elements(?1::jsonb)`})

// TouchEntities adds each touch's mentions to its entity, sets its type
// when the touch has one and its updated_at to now (or later), many
// entities per statement.
func TouchEntities(ctx context.Context, q Querier, touches []EntityTouch, now string) error {
	for start := 0; start < len(touches); start += 8 * bulkRows {
		part := touches[start:min(start+8*bulkRows, len(touches))]
		rows := make([][3]any, len(part))
		for i, t := range part {
			rows[i] = [3]any{t.RID, t.Added, t.Type}
		}
		if _, err := q.ExecContext(ctx, touchEntitiesQuery.For(q), jsonList(rows), now); err != nil {
			return err
		}
	}
	return nil
}

// MentionRow is one new link of a memory to an entity.
type MentionRow struct {
	MemoryRID, EntityRID int64
	Text                 string
	Confidence           float64
}

// InsertMentions writes new links, many per statement; the caller counts
// them on their entities (TouchEntities, InsertEntities).
func InsertMentions(ctx context.Context, q Querier, links []MentionRow) error {
	for start := 0; start < len(links); start += 8 * bulkRows {
		part := links[start:min(start+8*bulkRows, len(links))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO memory_entity_mentions (memory_rid, entity_rid, mention_text, confidence) VALUES `)
		args := make([]any, 0, len(part)*4)
		for i, l := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, ?, ?)`)
			args = append(args, l.MemoryRID, l.EntityRID, l.Text, l.Confidence)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// InsertHistories appends events as InsertHistory does, many per
// statement.
func InsertHistories(ctx context.Context, q Querier, events []*HistoryEvent) error {
	for start := 0; start < len(events); start += bulkRows {
		part := events[start:min(start+bulkRows, len(events))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO memory_history (` + historyColumns + `) VALUES `)
		args := make([]any, 0, len(part)*15)
		for i, h := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(historyValues)
			args = append(args, historyArgs(h)...)
		}
		if _, err := q.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}
