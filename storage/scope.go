package storage

import (
	"context"
	"database/sql"
	"errors"
)

// What an auth scope is checked against: who owns a session and a job.

const sessionOwnerQuery = `SELECT COALESCE(project, ''), harness FROM sessions WHERE key = ?`

// SessionOwner returns the project ("" when none) and the harness of
// session key, or ErrNotFound.
func SessionOwner(ctx context.Context, q Querier, key string) (project, harness string, err error) {
	err = q.QueryRowContext(ctx, sessionOwnerQuery, key).Scan(&project, &harness)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", ErrNotFound
	}
	return project, harness, err
}
