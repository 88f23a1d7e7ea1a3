package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// JobFilter selects jobs for ListJobs. Empty fields match everything.
type JobFilter struct {
	Status   string // pending, leased, completed, failed, dead
	JobType  string
	MemoryID string
	// Failing restricts to pending jobs that have failed at least once
	// (waiting out their retry backoff).
	Failing bool
	// Text keeps the jobs whose id, type, status, memory or document id,
	// or error contains it (case-insensitive for ASCII).
	Text string
	// Sort orders the list: "" live first (leased, pending, dead, the
	// rest), then newest; JobsNewest or JobsOldest by last update.
	Sort string
	// Offset skips that many rows of the list (the next page).
	Offset int
}

// Orders of the job list (JobFilter.Sort).
const (
	JobsNewest = "newest"
	JobsOldest = "oldest"
)

// where is f as a condition on memory_jobs, with its arguments.
func (f JobFilter) where(d dialect.Dialect) (string, []any) {
	where := []string{"TRUE"}
	var args []any
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.JobType != "" {
		where = append(where, "job_type = ?")
		args = append(args, f.JobType)
	}
	if f.MemoryID != "" {
		where = append(where, "memory_id = ?")
		args = append(args, f.MemoryID)
	}
	if f.Failing {
		// attempts > 0: a requeued dead job keeps its failure but starts
		// again from no attempts, pending like a new one.
		where = append(where, "status = 'pending' AND failed_at IS NOT NULL AND attempts > 0")
	}
	if f.Text != "" {
		p := "%" + likeEscape(f.Text) + "%"
		l := " " + dialect.Like.In(d) + ` ? ESCAPE '\'`
		where = append(where, `(id`+l+` OR job_type`+l+` OR status`+l+`
			OR COALESCE(memory_id, '')`+l+` OR COALESCE(document_id, '')`+l+` OR COALESCE(error, '')`+l+`)`)
		args = append(args, p, p, p, p, p, p)
	}
	return strings.Join(where, " AND "), args
}

// ListJobs returns jobs matching f: live ones (leased, pending) first, then
// the rest, newest first within each group.
func ListJobs(ctx context.Context, q Querier, f JobFilter, limit int) ([]*Job, error) {
	if limit < 1 {
		limit = 100
	}
	where, args := f.where(dialect.Of(q))
	order := `CASE status WHEN 'leased' THEN 0 WHEN 'pending' THEN 1 WHEN 'dead' THEN 2 ELSE 3 END, updated_at DESC, id DESC`
	switch f.Sort {
	case JobsNewest:
		order = "updated_at DESC, id DESC"
	case JobsOldest:
		order = "updated_at ASC, id ASC"
	}
	query := `SELECT ` + jobColumns + ` FROM memory_jobs WHERE ` + where + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	rows, err := q.QueryContext(ctx, query, append(args, limit, max(0, f.Offset))...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// CountJobs counts the jobs matching f (its Offset aside).
func CountJobs(ctx context.Context, q Querier, f JobFilter) (int, error) {
	where, args := f.where(dialect.Of(q))
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM memory_jobs WHERE `+where, args...).Scan(&n)
	return n, err
}

// RequeueDeadJobs returns up to limit dead jobs (only id when given) to
// pending with attempts reset, oldest first. A dead job whose memory
// already has a live job of the same type stays dead (enqueue dedup). It
// returns how many were requeued.
func RequeueDeadJobs(ctx context.Context, q Querier, id string, limit int, now string) (int64, error) {
	if limit < 1 {
		limit = 50
	}
	cond := `status = 'dead'`
	args := []any{now}
	if id != "" {
		cond += ` AND id = ?`
		args = append(args, id)
	}
	// idx_jobs_live allows one live job of a type per memory: a dead job
	// stays dead if its memory has one, or an older dead one requeued here.
	other := `o.status IN ('pending', 'leased')`
	if id == "" {
		other += ` OR o.status = 'dead' AND (o.updated_at, o.id) < (d.updated_at, d.id)`
	}
	res, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'pending', attempts = 0, next_attempt_at = NULL,
		lease_owner = NULL, leased_at = NULL, updated_at = ?
		WHERE id IN (SELECT id FROM memory_jobs d WHERE `+cond+` AND (memory_id IS NULL OR NOT EXISTS (
			SELECT 1 FROM memory_jobs o WHERE o.memory_id = d.memory_id AND o.job_type = d.job_type AND o.id <> d.id AND (`+other+`)))
		ORDER BY updated_at, id LIMIT ?)`, append(args, limit)...)
	if err != nil {
		return 0, fmt.Errorf("requeue dead jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		// Their memories are waiting for extraction again.
		if _, err := q.ExecContext(ctx, `UPDATE memories SET extraction_status = 'pending'
			WHERE extraction_status = 'failed' AND id IN (SELECT memory_id FROM memory_jobs
			WHERE status = 'pending' AND job_type = 'extract' AND updated_at = ? AND memory_id IS NOT NULL)`, now); err != nil {
			return n, err
		}
	}
	return n, nil
}

// RetryJob makes one pending job that is waiting out its retry backoff due
// now, or returns a dead job to pending with attempts reset. It returns
// ErrNotFound when the job does not exist and ErrConflict when it is in
// another state (leased, completed).
func RetryJob(ctx context.Context, q Querier, id, now string) (*Job, error) {
	j, err := GetJob(ctx, q, id)
	if err != nil {
		return nil, err
	}
	switch j.Status {
	case JobDead:
		n, err := RequeueDeadJobs(ctx, q, id, 1, now)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: a live job of this type already exists for the memory", ErrConflict)
		}
	case JobPending, JobFailed:
		if _, err := q.ExecContext(ctx, `UPDATE memory_jobs SET status = 'pending', next_attempt_at = NULL,
			attempts = `+dialect.Least("attempts", "max_attempts - 1").In(dialect.Of(q))+`, updated_at = ? WHERE id = ?`, now, id); err != nil {
			return nil, fmt.Errorf("retry job: %w", err)
		}
	default:
		return nil, fmt.Errorf("%w: job is %s", ErrConflict, j.Status)
	}
	return GetJob(ctx, q, id)
}
