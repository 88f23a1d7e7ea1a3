package storage

import (
	"context"
	"database/sql"
	"errors"
)

// Project identities (core/project). The projects table lists every
// project a memory or a session names (kept by triggers, migration 0010);
// project_steps records the one-time steps of the identity migration.

// KnownProjects lists the projects that some memory or session still
// names, sorted.
func KnownProjects(ctx context.Context, q Querier) ([]string, error) {
	return Strings(ctx, q, `SELECT id FROM projects p
		WHERE EXISTS (SELECT 1 FROM memories WHERE project = p.id)
		   OR EXISTS (SELECT 1 FROM sessions WHERE project = p.id)
		ORDER BY id`)
}

// ProjectStepDone reports whether the identity migration step name ran.
func ProjectStepDone(ctx context.Context, q Querier, name string) (bool, error) {
	var at string
	err := q.QueryRowContext(ctx, `SELECT done_at FROM project_steps WHERE name = ?`, name).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// MarkProjectStep records that step name ran.
func MarkProjectStep(ctx context.Context, q Querier, name, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO project_steps (name, done_at) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET done_at = excluded.done_at`, name, now)
	return err
}

// ProjectMove is one memory a project remap changed: moved to the new
// project, or, when a live memory with the same content already is there,
// soft-deleted as its duplicate (DuplicateOf).
type ProjectMove struct {
	ID          string
	DuplicateOf string
}

// RemapProject moves every memory, session and transcript of project from
// to project to. A live memory whose content the target project already
// holds is soft-deleted instead (the live content of a project is unique).
// The caller writes history for the moves returned, in its write transaction.
func RemapProject(ctx context.Context, tx Querier, from, to, now string) ([]ProjectMove, error) {
	rows, err := tx.QueryContext(ctx, `SELECT m.id, COALESCE((SELECT d.id FROM memories d
			WHERE d.is_deleted = 0 AND m.is_deleted = 0 AND d.content_hash = m.content_hash
			  AND COALESCE(d.project, '') = ?), '')
		FROM memories m WHERE m.project = ? ORDER BY m.rid`, to, from)
	if err != nil {
		return nil, err
	}
	var moves []ProjectMove
	for rows.Next() {
		var mv ProjectMove
		if err := rows.Scan(&mv.ID, &mv.DuplicateOf); err != nil {
			rows.Close()
			return nil, err
		}
		moves = append(moves, mv)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, mv := range moves {
		if mv.DuplicateOf != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET is_deleted = 1, deleted_at = ?, updated_at = ?,
				updated_by = 'system', version = version + 1 WHERE id = ?`, now, now, mv.ID); err != nil {
				return nil, err
			}
		}
	}
	for _, st := range []struct {
		q    string
		args []any
	}{
		{`UPDATE memories SET project = ?, updated_at = ?, updated_by = 'system', version = version + 1 WHERE project = ?`, []any{to, now, from}},
		{`UPDATE sessions SET project = ? WHERE project = ?`, []any{to, from}},
		{`UPDATE session_transcripts SET project = ? WHERE project = ?`, []any{to, from}},
		{`DELETE FROM projects WHERE id = ?`, []any{from}},
	} {
		if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
			return nil, err
		}
	}
	return moves, nil
}
