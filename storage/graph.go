package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// The knowledge graph: entities (unique by canonical name, with a count of
// the memories mentioning them), memory_entity_mentions (which memory
// mentions which entity) and relations between entities.

// entityInsert starts both entity writes; they differ in whose type wins.
const entityInsert = `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
	VALUES (?, ?, ?, ?, 0, ?, ?)
	ON CONFLICT (canonical_name) DO UPDATE SET updated_at = excluded.updated_at,
`

const upsertEntityQuery = entityInsert + `		entity_type = CASE WHEN entities.entity_type = 'unknown' THEN excluded.entity_type ELSE entities.entity_type END
	RETURNING id`

// UpsertEntity creates the entity of canonical name with id (and no
// mentions yet), or touches the existing one, which takes entityType if
// its own is "unknown". It returns the entity's id: id when it was created.
// The inline linker writes through it: its guessed types never overwrite
// a type already known.
func UpsertEntity(ctx context.Context, q Querier, id, name, canonical, entityType, now string) (string, error) {
	return writeEntity(ctx, q, upsertEntityQuery, id, name, canonical, entityType, now)
}

const refineEntityQuery = entityInsert + `		entity_type = CASE WHEN excluded.entity_type = 'unknown' THEN entities.entity_type ELSE excluded.entity_type END
	RETURNING id`

// RefineEntity is UpsertEntity for the extraction pipeline, whose types
// come from a deeper reading than the linker's: a type other than
// "unknown" replaces the entity's.
func RefineEntity(ctx context.Context, q Querier, id, name, canonical, entityType, now string) (string, error) {
	return writeEntity(ctx, q, refineEntityQuery, id, name, canonical, entityType, now)
}

// writeEntity runs an entity insert-or-update query and returns the id.
func writeEntity(ctx context.Context, q Querier, query, id, name, canonical, entityType, now string) (string, error) {
	var got string
	err := q.QueryRowContext(ctx, query, id, name, canonical, entityType, now, now).Scan(&got)
	return got, err
}

const entityIDQuery = `SELECT id FROM entities WHERE canonical_name = ?`

// EntityID returns the id of the entity of canonical name, or ErrNotFound.
func EntityID(ctx context.Context, q Querier, canonical string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, entityIDQuery, canonical).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return id, err
}

// Links are keyed by the memory's and the entity's rid (integers); the
// functions here take and return the public ids and translate.
const linkMentionQuery = `INSERT INTO memory_entity_mentions (memory_rid, entity_rid, mention_text, confidence)
	SELECT m.rid, e.rid, ?3, ?4 FROM memories m, entities e WHERE m.id = ?1 AND e.id = ?2 ON CONFLICT DO NOTHING`

const countMentionQuery = `UPDATE entities SET mentions = mentions + 1 WHERE id = ?`

// LinkMention records that memory memoryID mentions entity entityID and,
// when the link is new, counts one more mention of the entity. It reports
// whether the link is new.
// A memory or an entity that does not exist links nothing.
func LinkMention(ctx context.Context, q Querier, memoryID, entityID, text string, confidence float64) (bool, error) {
	res, err := q.ExecContext(ctx, linkMentionQuery, memoryID, entityID, text, confidence)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := q.ExecContext(ctx, countMentionQuery, entityID); err != nil {
		return true, err
	}
	return true, nil
}

const raiseMentionConfQuery = `UPDATE memory_entity_mentions SET confidence = ?1
	WHERE memory_rid = (SELECT rid FROM memories WHERE id = ?2) AND entity_rid = (SELECT rid FROM entities WHERE id = ?3)
	AND (confidence IS NULL OR confidence < ?1)`

// RaiseMentionConfidence raises the confidence of an existing link to
// confidence when it was lower (the pipeline confirming a linker mention).
func RaiseMentionConfidence(ctx context.Context, q Querier, memoryID, entityID string, confidence float64) error {
	_, err := q.ExecContext(ctx, raiseMentionConfQuery, confidence, memoryID, entityID)
	return err
}

// UnlinkMemory removes every entity link of memoryID, as when its content
// changed: each linked entity counts one mention less, and an entity left
// with no mention and no link is deleted with its relations. It returns
// the links removed.
func UnlinkMemory(ctx context.Context, q Querier, memoryID string) (int64, error) {
	var rid int64
	err := q.QueryRowContext(ctx, `SELECT rid FROM memories WHERE id = ?`, memoryID).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ids, err := Strings(ctx, q, `SELECT e.id FROM memory_entity_mentions mm JOIN entities e ON e.rid = mm.entity_rid
		WHERE mm.memory_rid = ?`, rid)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	res, err := q.ExecContext(ctx, `DELETE FROM memory_entity_mentions WHERE memory_rid = ?`, rid)
	if err != nil {
		return 0, fmt.Errorf("delete mentions: %w", err)
	}
	n, _ := res.RowsAffected()
	list, d := jsonList(ids), dialect.Of(q)
	if _, err := q.ExecContext(ctx, `UPDATE entities SET mentions = `+dialect.Greatest("mentions - 1", "0").In(d)+`
		WHERE id IN (`+textList.In(d)+`)`, list); err != nil {
		return n, fmt.Errorf("decrement mentions: %w", err)
	}
	orphans, err := Strings(ctx, q, `SELECT e.id FROM entities e
		WHERE e.id IN (`+textList.In(d)+`) AND e.mentions <= 0
		AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_rid = e.rid)`, list)
	if err != nil || len(orphans) == 0 {
		return n, err
	}
	olist := jsonList(orphans)
	if _, err := q.ExecContext(ctx, `DELETE FROM relations WHERE source_entity_id IN (`+textList.In(d)+`)
		OR target_entity_id IN (`+textList.In(d)+`)`, olist, olist); err != nil {
		return n, fmt.Errorf("delete relations: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM entities WHERE id IN (`+textList.In(d)+`)`, olist); err != nil {
		return n, fmt.Errorf("delete entities: %w", err)
	}
	return n, nil
}

// Relation is the state of one relation between two entities.
type Relation struct {
	ID         string
	Mentions   int
	Confidence float64
}

const findRelationQuery = `SELECT id, mentions, confidence FROM relations
	WHERE source_entity_id = ? AND target_entity_id = ? AND relation_type = ?`

// FindRelation returns the relation of relType from entity src to entity
// dst, or ErrNotFound.
func FindRelation(ctx context.Context, q Querier, src, dst, relType string) (*Relation, error) {
	var r Relation
	err := q.QueryRowContext(ctx, findRelationQuery, src, dst, relType).Scan(&r.ID, &r.Mentions, &r.Confidence)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

const insertRelationQuery = `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type,
	strength, mentions, confidence, created_at, updated_at) VALUES (?, ?, ?, ?, 1.0, 1, ?, ?, ?)`

// InsertRelation stores a new relation of relType from src to dst, seen
// once with confidence.
func InsertRelation(ctx context.Context, q Querier, id, src, dst, relType string, confidence float64, now string) error {
	_, err := q.ExecContext(ctx, insertRelationQuery, id, src, dst, relType, confidence, now, now)
	return err
}

const updateRelationQuery = `UPDATE relations SET mentions = ?, confidence = ?, updated_at = ? WHERE id = ?`

// UpdateRelation sets the mentions and confidence of relation id.
func UpdateRelation(ctx context.Context, q Querier, id string, mentions int, confidence float64, now string) error {
	_, err := q.ExecContext(ctx, updateRelationQuery, mentions, confidence, now, id)
	return err
}

// likeEscape escapes the LIKE wildcards of s for ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// EntityCount is an entity and the number of memories mentioning it.
type EntityCount struct {
	ID       string
	Mentions int64
}

func entityCounts(ctx context.Context, q Querier, query string, args ...any) ([]EntityCount, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EntityCount
	for rows.Next() {
		var e EntityCount
		if err := rows.Scan(&e.ID, &e.Mentions); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// EntitiesByName returns the entities whose canonical name is exactly one
// of names (an indexed lookup, never a substring match), with their
// mention counts.
func EntitiesByName(ctx context.Context, q Querier, names []string) ([]EntityCount, error) {
	if len(names) == 0 {
		return nil, nil
	}
	return entityCounts(ctx, q, entitiesByNameQuery.For(q), jsonList(names))
}

var entitiesByNameQuery = dialect.SQL(`SELECT id, mentions FROM entities WHERE canonical_name IN (%s) ORDER BY id`, textList)

var namedEntitiesQuery = dialect.SQL(`SELECT e.id, e.mentions, c.total - c.deleted, EXISTS (SELECT 1 FROM relations)
	FROM entities e, memory_counts c WHERE c.id = 1 AND e.canonical_name IN (%s) ORDER BY e.id`, textList)

// NamedEntities is EntitiesByName with, in the same statement, what the
// graph boost needs to weigh them: the number of live memories and whether
// any relation exists (no relation, no one-hop lookup).
func NamedEntities(ctx context.Context, q Querier, names []string) (ents []EntityCount, live int64, relations bool, err error) {
	if len(names) == 0 {
		return nil, 0, false, nil
	}
	rows, err := q.QueryContext(ctx, namedEntitiesQuery.For(q), jsonList(names))
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var e EntityCount
		if err := rows.Scan(&e.ID, &e.Mentions, &live, &relations); err != nil {
			return nil, 0, false, err
		}
		ents = append(ents, e)
	}
	return ents, live, relations, rows.Err()
}

const graphSummaryQuery = `SELECT c.total - c.deleted, COALESCE((SELECT max(mentions) FROM entities), 0)
	FROM memory_counts c WHERE c.id = 1`

// GraphSummary returns the number of live memories and the largest
// mention count of any entity, in one cheap statement (memory_counts is
// kept by triggers; entities are indexed by mentions).
func GraphSummary(ctx context.Context, q Querier) (live, maxMentions int64, err error) {
	err = q.QueryRowContext(ctx, graphSummaryQuery).Scan(&live, &maxMentions)
	return
}

// NeighborCounts returns up to limit entities one relation away from any
// of ids, in either direction, not themselves among ids, with their
// mention counts; the most observed relations first.
func NeighborCounts(ctx context.Context, q Querier, ids []string, limit int) ([]EntityCount, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return entityCounts(ctx, q, neighborCountsQuery.For(q), jsonList(ids), limit)
}

var neighborCountsQuery = dialect.SQL(`SELECT e.id, e.mentions FROM (
		SELECT target_entity_id AS id, mentions, confidence FROM relations WHERE source_entity_id IN (%s)
		UNION ALL
		SELECT source_entity_id, mentions, confidence FROM relations WHERE target_entity_id IN (%s)
	) r JOIN entities e ON e.id = r.id WHERE r.id NOT IN (%s)
	GROUP BY %s ORDER BY max(r.mentions) DESC, max(r.confidence) DESC, e.id LIMIT ?2`, list1, list1, list1,
	dialect.Fragment{"e.id", "e.id, e.mentions"}) // PostgreSQL: every column selected

var list1, list2 = dialect.List("?1"), dialect.List("?2")

// Link is one memory's link to one entity.
type Link struct {
	MemoryID, EntityID string
}

var liveLinksQuery = dialect.SQL(`SELECT m.id, e.id FROM memories m
	%s memory_entity_mentions mem ON mem.memory_rid = m.rid
	%s entities e ON e.rid = mem.entity_rid
	WHERE m.id IN (%s) AND m.is_deleted = 0 AND mem.entity_rid IN (SELECT rid FROM entities WHERE id IN (%s))
	ORDER BY m.id, mem.entity_rid`, orderedJoin, orderedJoin, list2, list1)

// orderedJoin joins in the order written: SQLite's CROSS JOIN.
var orderedJoin = dialect.Fragment{"CROSS JOIN", "JOIN"}

// LiveLinks returns the links between the live memories among memoryIDs
// and the entities among entityIDs, by memory id and then entity rid.
//
// Each memory's links are probed for the entities asked, one index probe
// per pair (the CROSS JOINs keep SQLite from starting at the entities,
// whose links a common name counts by the thousand), instead of reading
// every link of every memory and then its entity: recall asks this of
// about a hundred candidates, each with several links.
func LiveLinks(ctx context.Context, q Querier, entityIDs, memoryIDs []string) ([]Link, error) {
	if len(entityIDs) == 0 || len(memoryIDs) == 0 {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, liveLinksQuery.For(q), jsonList(entityIDs), jsonList(memoryIDs))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		if err := rows.Scan(&l.MemoryID, &l.EntityID); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LeastEntityMentions returns, for each of memoryIDs linked to an entity,
// the smallest mention count among its entities.
func LeastEntityMentions(ctx context.Context, q Querier, memoryIDs []string) (map[string]int64, error) {
	args := make([]any, len(memoryIDs))
	for i, id := range memoryIDs {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, `SELECT m.id, MIN(e.mentions) FROM memories m
		JOIN memory_entity_mentions mem ON mem.memory_rid = m.rid
		JOIN entities e ON e.rid = mem.entity_rid
		WHERE m.id IN (`+placeholders(len(args))+`) GROUP BY m.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var least int64
		if err := rows.Scan(&id, &least); err != nil {
			return nil, err
		}
		out[id] = least
	}
	return out, rows.Err()
}

// Entity is one row of entities.
type Entity struct {
	ID            string
	Name          string
	CanonicalName string
	EntityType    string
	Mentions      int
	UpdatedAt     string
}

var listEntitiesQuery = dialect.SQL(`SELECT id, name, canonical_name, entity_type, mentions, updated_at FROM entities
	WHERE canonical_name %s ? ESCAPE '\' ORDER BY mentions DESC, canonical_name LIMIT ?`, dialect.Like)

// ListEntities lists up to limit entities whose canonical name contains
// substr (all when it is empty), most mentioned first.
func ListEntities(ctx context.Context, q Querier, substr string, limit int) ([]Entity, error) {
	return scanEntities(q.QueryContext(ctx, listEntitiesQuery.For(q), "%"+likeEscape(substr)+"%", limit))
}

// scanEntities reads rows of (id, name, canonical_name, entity_type,
// mentions, updated_at).
func scanEntities(rows *sql.Rows, err error) ([]Entity, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Entity{}
	for rows.Next() {
		var e Entity
		if err := rows.Scan(&e.ID, &e.Name, &e.CanonicalName, &e.EntityType, &e.Mentions, &e.UpdatedAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

const upsertEntityTypeQuery = entityInsert + `		entity_type = CASE WHEN entities.entity_type = 'unknown' THEN excluded.entity_type ELSE entities.entity_type END
	RETURNING id, entity_type`

// UpsertEntityType is UpsertEntity that also returns the entity's type
// after the write.
func UpsertEntityType(ctx context.Context, q Querier, id, name, canonical, entityType, now string) (gotID, gotType string, err error) {
	err = q.QueryRowContext(ctx, upsertEntityTypeQuery, id, name, canonical, entityType, now, now).Scan(&gotID, &gotType)
	return
}

// EntityIDType returns the id and type of the entity of canonical name,
// or ErrNotFound.
func EntityIDType(ctx context.Context, q Querier, canonical string) (id, entityType string, err error) {
	err = q.QueryRowContext(ctx, `SELECT id, entity_type FROM entities WHERE canonical_name = ?`, canonical).Scan(&id, &entityType)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", ErrNotFound
	}
	return id, entityType, err
}

var addMentionsQuery = dialect.SQL(`UPDATE entities SET mentions = mentions + ?, updated_at = %s WHERE id = ?`,
	dialect.Greatest("updated_at", "?"))

// AddEntityMentions adds n mentions to entity id and sets its updated_at
// to now (n may be 0: the entity was only seen again).
func AddEntityMentions(ctx context.Context, q Querier, id string, n int, now string) error {
	_, err := q.ExecContext(ctx, addMentionsQuery.For(q), n, now, id)
	return err
}
