package retention

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/dialect"
)

// Each purge removes at most limit rows (or memories) in the transaction
// it is given, so the caller loops short transactions instead of holding
// the writer for one long purge. cutoff is a stored timestamp
// (storage.FormatTime): rows strictly older than it are eligible.

// jsonList encodes ids for `IN (SELECT value FROM json_each(?))`, which
// keeps the statement text fixed (and cached) whatever the batch size (as
// storage's own).
func jsonList[T any](ids []T) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// GraphPurge counts what PurgeGraphLinks removed.
type GraphPurge struct {
	Memories int64 // memories whose links were removed
	Links    int64 // memory_entity_mentions rows deleted
	Entities int64 // entities left without mentions, deleted
	Relation int64 // relations of those entities, deleted
}

// PurgeGraphLinks removes the entity links of up to limit memories that
// are tombstones deleted before cutoff, or that no longer exist at all. Each
// linked entity's mention count is decremented by the links removed; an
// entity that reaches zero and has no link left is deleted with its
// relations.
func PurgeGraphLinks(ctx context.Context, q storage.Querier, cutoff string, limit int) (GraphPurge, error) {
	var out GraphPurge
	rids, err := int64s(ctx, q, `SELECT m.rid FROM memories m
		WHERE m.is_deleted = 1 AND m.deleted_at < ? AND m.superseded_by IS NULL
		AND EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.memory_rid = m.rid)
		LIMIT ?`, cutoff, limit)
	if err != nil {
		return out, err
	}
	if len(rids) < limit {
		// Links of memories already gone (purged by an older cairn).
		gone, err := int64s(ctx, q, `SELECT DISTINCT mm.memory_rid FROM memory_entity_mentions mm
			WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = mm.memory_rid) LIMIT ?`, limit-len(rids))
		if err != nil {
			return out, err
		}
		rids = append(rids, gone...)
	}
	if len(rids) == 0 {
		return out, nil
	}
	out.Memories = int64(len(rids))
	list, dl := jsonList(rids), dialect.Of(q)
	ints, texts := dialect.Ints("?").In(dl), dialect.List("?").In(dl)
	type dec struct {
		rid, n int64
	}
	rows, err := q.QueryContext(ctx, `SELECT entity_rid, count(*) FROM memory_entity_mentions
		WHERE memory_rid IN (`+ints+`) GROUP BY entity_rid`, list)
	if err != nil {
		return out, err
	}
	var decs []dec
	for rows.Next() {
		var d dec
		if err := rows.Scan(&d.rid, &d.n); err != nil {
			rows.Close()
			return out, err
		}
		decs = append(decs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	res, err := q.ExecContext(ctx, `DELETE FROM memory_entity_mentions WHERE memory_rid IN (`+ints+`)`, list)
	if err != nil {
		return out, fmt.Errorf("delete mentions: %w", err)
	}
	out.Links, _ = res.RowsAffected()
	touched := make([]int64, 0, len(decs))
	for _, d := range decs {
		if _, err := q.ExecContext(ctx, `UPDATE entities SET mentions = `+dialect.Greatest("mentions - ?", "0").In(dl)+` WHERE rid = ?`, d.n, d.rid); err != nil {
			return out, fmt.Errorf("decrement mentions: %w", err)
		}
		touched = append(touched, d.rid)
	}
	orphans, err := storage.Strings(ctx, q, `SELECT e.id FROM entities e
		WHERE e.rid IN (`+ints+`) AND e.mentions <= 0
		AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_rid = e.rid)`, jsonList(touched))
	if err != nil || len(orphans) == 0 {
		return out, err
	}
	olist := jsonList(orphans)
	res, err = q.ExecContext(ctx, `DELETE FROM relations WHERE source_entity_id IN (`+texts+`)
		OR target_entity_id IN (`+texts+`)`, olist, olist)
	if err != nil {
		return out, fmt.Errorf("delete relations: %w", err)
	}
	out.Relation, _ = res.RowsAffected()
	res, err = q.ExecContext(ctx, `DELETE FROM entities WHERE id IN (`+texts+`)`, olist)
	if err != nil {
		return out, fmt.Errorf("delete entities: %w", err)
	}
	out.Entities, _ = res.RowsAffected()
	return out, nil
}

// int64s collects the first column of a query's rows as integers.
func int64s(ctx context.Context, q storage.Querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// PurgeTombstones hard-deletes up to limit memories soft-deleted before
// cutoff, with their hints. The memories_ad trigger removes each row from
// memories_fts with the 'delete' command (the index is external-content,
// so a plain DELETE would leave its terms behind). It returns the ids
// removed.
func PurgeTombstones(ctx context.Context, q storage.Querier, cutoff string, limit int) ([]string, error) {
	ids, err := storage.Strings(ctx, q, `SELECT id FROM memories WHERE is_deleted = 1 AND deleted_at < ? AND superseded_by IS NULL LIMIT ?`, cutoff, limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list, texts := jsonList(ids), dialect.List("?").In(dialect.Of(q))
	if _, err := q.ExecContext(ctx, `DELETE FROM memory_hints WHERE memory_id IN (`+texts+`)`, list); err != nil {
		return nil, fmt.Errorf("delete hints: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM memories WHERE id IN (`+texts+`) AND is_deleted = 1 AND superseded_by IS NULL`, list); err != nil {
		return nil, fmt.Errorf("delete tombstones: %w", err)
	}
	return ids, nil
}

// PurgeHistory deletes up to limit history events created before cutoff.
func PurgeHistory(ctx context.Context, q storage.Querier, cutoff string, limit int) (int64, error) {
	return execCount(ctx, q, `DELETE FROM memory_history WHERE rowid IN (
		SELECT rowid FROM memory_history WHERE created_at < ? ORDER BY created_at LIMIT ?)`, cutoff, limit)
}

// PurgeJobs deletes up to limit jobs in status (completed or dead) whose
// last change is before cutoff.
func PurgeJobs(ctx context.Context, q storage.Querier, status, cutoff string, limit int) (int64, error) {
	if status != storage.JobCompleted && status != storage.JobDead {
		return 0, fmt.Errorf("purge jobs: status %q is not completed or dead", status)
	}
	return execCount(ctx, q, `DELETE FROM memory_jobs WHERE rowid IN (
		SELECT rowid FROM memory_jobs WHERE status = ? AND updated_at < ? LIMIT ?)`, status, cutoff, limit)
}

func execCount(ctx context.Context, q storage.Querier, query string, args ...any) (int64, error) {
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Cutoffs are the stored timestamps (FormatTime) before which a
// sweep removes each kind of row.
type Cutoffs struct {
	Tombstones    string // tombstones and their graph links
	History       string
	CompletedJobs string
	DeadJobs      string
}

// Backlog counts the rows a sweep would remove.
type Backlog struct {
	GraphLinks    int64
	Tombstones    int64
	History       int64
	CompletedJobs int64
	DeadJobs      int64
}

const (
	countPurgeableLinksQuery = `SELECT count(*) FROM memory_entity_mentions mm JOIN memories m ON m.rid = mm.memory_rid
			WHERE m.is_deleted = 1 AND m.deleted_at < ? AND m.superseded_by IS NULL`
	countPurgeableTombstonesQuery = `SELECT count(*) FROM memories WHERE is_deleted = 1 AND deleted_at < ? AND superseded_by IS NULL`
	countPurgeableHistoryQuery    = `SELECT count(*) FROM memory_history WHERE created_at < ?`
	countPurgeableCompletedQuery  = `SELECT count(*) FROM memory_jobs WHERE status = 'completed' AND updated_at < ?`
	countPurgeableDeadQuery       = `SELECT count(*) FROM memory_jobs WHERE status = 'dead' AND updated_at < ?`
)

// CountBacklog counts the graph links of old tombstones, the old
// tombstones, history events and completed and dead jobs older than their
// cutoffs (vectors are not counted).
func CountBacklog(ctx context.Context, q storage.Querier, c Cutoffs) (Backlog, error) {
	var b Backlog
	counts := []struct {
		dst    *int64
		query  string
		cutoff string
	}{
		{&b.GraphLinks, countPurgeableLinksQuery, c.Tombstones},
		{&b.Tombstones, countPurgeableTombstonesQuery, c.Tombstones},
		{&b.History, countPurgeableHistoryQuery, c.History},
		{&b.CompletedJobs, countPurgeableCompletedQuery, c.CompletedJobs},
		{&b.DeadJobs, countPurgeableDeadQuery, c.DeadJobs},
	}
	for _, n := range counts {
		if err := q.QueryRowContext(ctx, n.query, n.cutoff).Scan(n.dst); err != nil {
			return b, err
		}
	}
	return b, nil
}

// countSweptGraphAndVectorsQuery counts, for a dry run, what steps 1 and
// 2 of a sweep would remove besides links: the vectors no kept memory
// refers to (neither live, nor deleted at or after the cutoff, nor
// superseded), the entities all of whose links go with purged memories,
// and the relations of those entities.
const countSweptGraphAndVectorsQuery = `WITH kept AS (
		SELECT rid, content_hash FROM memories WHERE is_deleted = 0 OR deleted_at >= ?1 OR superseded_by IS NOT NULL
	), doomed AS (
		SELECT e.id FROM entities e
		WHERE EXISTS (SELECT 1 FROM memory_entity_mentions mm WHERE mm.entity_rid = e.rid)
		AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions mm JOIN kept k ON k.rid = mm.memory_rid WHERE mm.entity_rid = e.rid)
	)
	SELECT
		(SELECT count(*) FROM embeddings em WHERE NOT EXISTS (SELECT 1 FROM kept k WHERE k.content_hash = em.content_hash)),
		(SELECT count(*) FROM doomed),
		(SELECT count(*) FROM relations r WHERE r.source_entity_id IN (SELECT id FROM doomed) OR r.target_entity_id IN (SELECT id FROM doomed))`

// CountSweptGraphAndVectors counts the vectors, entities and relations a
// sweep with this tombstone cutoff would remove.
func CountSweptGraphAndVectors(ctx context.Context, q storage.Querier, cutoff string) (vectors, entities, relations int64, err error) {
	err = q.QueryRowContext(ctx, countSweptGraphAndVectorsQuery, cutoff).Scan(&vectors, &entities, &relations)
	return
}

// Slot is where the retention bound counts a memory
// (docs/design/evolution.md, "Scopes and slots"): its project ("" for
// none) in the project scope, the user scope, or one agent's scope (Who).
type Slot struct {
	Project, Scope, Who string
}

// OverfullSlots returns the slots with more live memories than their bound
// (perProject for a project, user for the user scope, perAgent for each
// agent; 0 is no bound), and how many over each is.
func OverfullSlots(ctx context.Context, q storage.Querier, perProject, user, perAgent int) (map[Slot]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT COALESCE(project, ''), COALESCE(scope, ''),
		CASE WHEN scope = 'agent' THEN COALESCE(who, '') ELSE '' END, count(*)
		FROM memories WHERE is_deleted = 0 GROUP BY 1, 2, 3`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[Slot]int{}
	for rows.Next() {
		var s Slot
		var n int
		if err := rows.Scan(&s.Project, &s.Scope, &s.Who, &n); err != nil {
			return nil, err
		}
		bound := perProject
		switch s.Scope {
		case "user":
			bound = user
		case "agent":
			bound = perAgent
		}
		if bound > 0 && n > bound {
			out[s] = n - bound
		}
	}
	return out, rows.Err()
}

// PruneCandidates returns up to limit live memories of slot the bound may
// forget, the least worth keeping first (docs/design/evolution.md,
// "Pruning": never used, then least used; oldest use or creation first;
// least important first).
// Never: pinned memories, decisions and rules (they always surface), keyed
// facts, and memories created or used at or after cutoff.
func PruneCandidates(ctx context.Context, q storage.Querier, slot Slot, cutoff string, limit int) ([]string, error) {
	return storage.Strings(ctx, q, `SELECT id FROM memories
		WHERE is_deleted = 0 AND COALESCE(project, '') = ?1 AND COALESCE(scope, '') = ?4 AND (?4 <> 'agent' OR who = ?5)
		AND pinned = 0 AND manual_override = 0
		AND type NOT IN ('decision', 'rule', 'constraint') AND memory_key IS NULL
		AND created_at < ?2 AND COALESCE(last_accessed, created_at) < ?2
		ORDER BY access_count, COALESCE(last_accessed, created_at), importance, rid LIMIT ?3`, slot.Project, cutoff, limit, slot.Scope, slot.Who)
}
