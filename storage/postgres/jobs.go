package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrNoJob: no job is due, or every due one is leased by another server.
var ErrNoJob = errors.New("no job to lease")

// LeaseJob leases one due pending job for owner, of one of types (any
// type when empty), as storage.LeaseJob does on SQLite: the type least
// recently leased first, then the oldest job of it; attempts counted,
// leased_at and lease_owner set to now and owner. It returns the job's id.
//
// Its exclusivity comes from the row, not from the write lock: the job is
// chosen FOR UPDATE SKIP LOCKED, so servers leasing at the same time take
// different jobs and never wait for each other or for WriteTx, and a job
// one of them chose is leased by that one only. The transaction is its
// own and short.
func (db *DB) LeaseJob(ctx context.Context, owner string, types []string, now string) (string, error) {
	var typeFilter any // NULL: every type
	if len(types) > 0 {
		typeFilter = types
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return "", db.redact.err(fmt.Errorf("postgres: lease: %w", err))
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT t.job_type FROM (
			SELECT DISTINCT job_type FROM memory_jobs
			WHERE status = 'pending' AND attempts < max_attempts
			  AND (next_attempt_at IS NULL OR next_attempt_at <= $1)
			  AND ($2::text[] IS NULL OR job_type = ANY($2::text[]))) t
		ORDER BY (SELECT max(l.leased_at) FROM memory_jobs l WHERE l.job_type = t.job_type) ASC NULLS FIRST, t.job_type`,
		now, typeFilter)
	if err != nil {
		return "", db.redact.err(fmt.Errorf("postgres: lease: pick type: %w", err))
	}
	var order []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return "", err
		}
		order = append(order, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", db.redact.err(fmt.Errorf("postgres: lease: pick type: %w", err))
	}
	for _, jobType := range order {
		var id string
		err := tx.QueryRowContext(ctx, `UPDATE memory_jobs SET status = 'leased', attempts = attempts + 1,
				leased_at = $1, lease_owner = $2, updated_at = $1
			WHERE id = (SELECT id FROM memory_jobs
				WHERE status = 'pending' AND attempts < max_attempts
				  AND (next_attempt_at IS NULL OR next_attempt_at <= $1) AND job_type = $3
				ORDER BY created_at, id LIMIT 1
				FOR UPDATE SKIP LOCKED)
			  AND status = 'pending'
			RETURNING id`, now, owner, jobType).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			// Every due job of the type is another server's now, or the
			// one chosen changed under its lock (READ COMMITTED re-checks
			// it and LIMIT 1 then gives nothing): the next type, and the
			// worker's next poll, try again.
			continue
		}
		if err != nil {
			return "", db.redact.err(fmt.Errorf("postgres: lease: %w", err))
		}
		if err := tx.Commit(); err != nil {
			return "", db.redact.err(fmt.Errorf("postgres: lease: commit: %w", err))
		}
		return id, nil
	}
	return "", ErrNoJob
}
