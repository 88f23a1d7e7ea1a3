package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// The evolution of memories: reinforcement, keys and supersession. These
// columns are read and written here only, apart from the memory's other
// fields.

// Evolution is a memory's reinforcement, key and successor.
type Evolution struct {
	Key             string
	SupersededBy    string
	Reinforced      int64
	LastConfirmedAt string
	Supersedes      []string // memories this one replaced
}

// ReinforceMemory counts one more statement of memory id.
func ReinforceMemory(ctx context.Context, q Querier, id, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET reinforced_count = reinforced_count + 1, last_confirmed_at = ? WHERE id = ?`, now, id)
	return err
}

// SetMemoryKey sets memory id's key.
func SetMemoryKey(ctx context.Context, q Querier, id, key string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET memory_key = ? WHERE id = ?`, nullable(key), id)
	return err
}

// LiveKeyed returns the live memories holding key, except id, in one
// slot: project ("" for none) with scope ("" for the project scope;
// "user"; "agent", whose slot is also its writer who).
func LiveKeyed(ctx context.Context, q Querier, key, project, scope, who, except string) ([]string, error) {
	return Strings(ctx, q, `SELECT id FROM memories WHERE memory_key = ?1 AND is_deleted = 0
		AND COALESCE(project, '') = ?2 AND COALESCE(scope, '') = ?3 AND (?3 <> 'agent' OR who = ?4)
		AND id <> ?5 ORDER BY created_at, rid`, key, project, scope, who, except)
}

// SetSupersededBy records that memory id was replaced by successor ("" to
// clear it).
func SetSupersededBy(ctx context.Context, q Querier, id, successor string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET superseded_by = ? WHERE id = ?`, nullable(successor), id)
	return err
}

// MemoryEvolution reads memory id's key, successor, reinforcement and the
// memories it replaced.
func MemoryEvolution(ctx context.Context, q Querier, id string) (*Evolution, error) {
	var e Evolution
	var key, by, confirmed sql.NullString
	err := q.QueryRowContext(ctx, `SELECT memory_key, superseded_by, reinforced_count, last_confirmed_at FROM memories WHERE id = ?`, id).
		Scan(&key, &by, &e.Reinforced, &confirmed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	e.Key, e.SupersededBy, e.LastConfirmedAt = key.String, by.String, confirmed.String
	e.Supersedes, err = Strings(ctx, q, `SELECT id FROM memories WHERE superseded_by = ? ORDER BY created_at, rid`, id)
	return &e, err
}

// Reinforced is how often a memory was stated again, and when last.
type Reinforced struct {
	Count           int64
	LastConfirmedAt string
}

// ReinforcedOf returns the reinforcement of those of ids stated more than
// once.
func ReinforcedOf(ctx context.Context, q Querier, ids []string) (map[string]Reinforced, error) {
	out := map[string]Reinforced{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := q.QueryContext(ctx, `SELECT id, reinforced_count, COALESCE(last_confirmed_at, '') FROM memories
		WHERE id IN (SELECT value FROM json_each(?)) AND reinforced_count > 0`, string(list))
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r Reinforced
		if err := rows.Scan(&id, &r.Count, &r.LastConfirmedAt); err != nil {
			return out, err
		}
		out[id] = r
	}
	return out, rows.Err()
}
