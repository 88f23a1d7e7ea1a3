package storage

import (
	"context"
	"database/sql"
)

// Queries of learning from sessions: which session a memory was learned
// from, and which memories a pending proposal would supersede by a memory
// already live.

// MemorySessions returns the session each of ids was written in (ids
// without one, or missing, are left out).
func MemorySessions(ctx context.Context, q Querier, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, `SELECT id, session_id FROM memories WHERE id IN (`+placeholders(len(ids))+`) AND session_id IS NOT NULL AND session_id != ''`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, session string
		if err := rows.Scan(&id, &session); err != nil {
			return nil, err
		}
		out[id] = session
	}
	return out, rows.Err()
}

// PendingSupersessions returns, for each of ids that a pending update
// proposal would supersede by a memory already live (a session's "we use
// Atlas instead of goose", written at once, waiting for review to retire
// the memory about goose), that live successor.
func PendingSupersessions(ctx context.Context, q Querier, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, `SELECT p.target_memory_id, p.applied_memory_id FROM pipeline_proposals p
		JOIN memories m ON m.id = p.applied_memory_id AND m.is_deleted = 0
		WHERE p.state = 'pending' AND p.action = 'update' AND p.target_memory_id IN (`+placeholders(len(ids))+`)
		ORDER BY p.created_at`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var old, successor sql.NullString
		if err := rows.Scan(&old, &successor); err != nil {
			return nil, err
		}
		if old.Valid && successor.Valid && old.String != successor.String {
			out[old.String] = successor.String
		}
	}
	return out, rows.Err()
}
