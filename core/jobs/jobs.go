package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/google/uuid"
)

// Queue is a store's job queue: extraction, session and document jobs
// are enqueued, leased by the workers, completed or failed with backoff,
// and listed, counted and retried by people.
type Queue struct {
	db  *storage.DB
	cfg config.PipelineV2Config
	now func() time.Time
}

// New returns the queue of db, configured by the pipeline_v2 section
// (attempts, lease timeout); now is the clock (nil: time.Now).
func New(db *storage.DB, cfg config.PipelineV2Config, now func() time.Time) *Queue {
	if now == nil {
		now = time.Now
	}
	return &Queue{db: db, cfg: cfg, now: now}
}

// Filter selects jobs for List.
type Filter = storage.JobFilter

// ErrNotFound is returned for a job that does not exist.
var ErrNotFound = errors.New("not found")

// InvalidError is a filter the queue refuses: Field names the bad field.
type InvalidError struct {
	Field   string
	Message string
}

func (e *InvalidError) Error() string { return e.Message }

// NotRetryableError is a job that cannot be retried (it is not waiting
// out a backoff, and not dead).
type NotRetryableError struct {
	Err error
}

func (e *NotRetryableError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *NotRetryableError) Unwrap() error { return e.Err }

var statuses = []string{storage.JobPending, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

// timestamp is the clock's now in the store's time format.
func (q *Queue) timestamp() string { return storage.FormatTime(q.now()) }

// List returns queue rows matching f (live first, then newest).
func (q *Queue) List(ctx context.Context, f Filter, limit int) ([]*storage.Job, error) {
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		return nil, &InvalidError{Field: "status", Message: "status must be one of " + strings.Join(statuses, ", ")}
	}
	if limit < 1 || limit > 1000 {
		return nil, &InvalidError{Field: "limit", Message: "limit must be from 1 to 1000"}
	}
	if f.Offset < 0 {
		return nil, &InvalidError{Field: "offset", Message: "offset must not be negative"}
	}
	switch f.Sort {
	case "", storage.JobsNewest, storage.JobsOldest:
	default:
		return nil, &InvalidError{Field: "sort", Message: "sort must be newest or oldest (or empty: live first)"}
	}
	return storage.ListJobs(ctx, q.db.Reader(), f, limit)
}

// Count counts the jobs matching f (its Offset aside).
func (q *Queue) Count(ctx context.Context, f Filter) (int, error) {
	return storage.CountJobs(ctx, q.db.Reader(), f)
}

// Counts counts jobs by status and by type and status.
func (q *Queue) Counts(ctx context.Context) (byStatus map[string]int, byType map[string]map[string]int, err error) {
	return storage.JobCounts(ctx, q.db.Reader())
}

// Retry makes a job waiting out its retry backoff due now, or returns a
// dead job to the queue with its attempts reset.
func (q *Queue) Retry(ctx context.Context, id string) (*storage.Job, error) {
	var j *storage.Job
	err := q.db.WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		j, err = storage.RetryJob(ctx, tx, id, q.timestamp())
		return err
	})
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil, ErrNotFound
	case errors.Is(err, storage.ErrConflict):
		return nil, &NotRetryableError{Err: err}
	}
	return j, err
}

// --- queue --------------------------------------------------------------------

// Enqueue adds a job for a memory unless a live one of that type exists.
func (q *Queue) Enqueue(ctx context.Context, memoryID, jobType, payload string) (bool, error) {
	var ok bool
	err := q.db.WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		ok, err = storage.EnqueueJob(ctx, tx, newID(), memoryID, jobType, payload, q.cfg.MaxAttempts, q.timestamp())
		return err
	})
	return ok, err
}

// Lease atomically leases the next due job of one of types (any type
// when empty) for owner; nil when nothing is due. See storage.Lease for
// the fairness rule.
func (q *Queue) Lease(ctx context.Context, owner string, types ...string) (*storage.Job, error) {
	// On PostgreSQL the lease runs without the write lock, FOR UPDATE
	// SKIP LOCKED: servers leasing at once take different jobs.
	if id, ok, err := q.db.LeaseJob(ctx, owner, types, q.timestamp()); ok {
		if err != nil || id == "" {
			return nil, err
		}
		return storage.GetJob(ctx, q.db.Reader(), id)
	}
	var job *storage.Job
	err := q.db.WriteTx(ctx, func(tx storage.Tx) error {
		j, err := storage.LeaseJob(ctx, tx, owner, types, q.timestamp())
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		job = j
		return err
	})
	return job, err
}

// Complete marks a leased job completed with result encoded as JSON.
func (q *Queue) Complete(ctx context.Context, job *storage.Job, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return q.db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.CompleteJob(ctx, tx, job, string(b), q.timestamp())
	})
}

// Fail records a failed attempt: retried after min(2^attempts·5 s,
// 120 s) plus up to 1 s of jitter, or dead after max_attempts. It reports
// whether the job is dead.
func (q *Queue) Fail(ctx context.Context, job *storage.Job, cause error) (bool, error) {
	delay := storage.RetryDelay(job.Attempts) + time.Duration(rand.Int64N(int64(time.Second)))
	var dead bool
	err := q.db.WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		dead, err = storage.FailJob(ctx, tx, job, cause.Error(), q.now(), delay)
		return err
	})
	return dead, err
}

// ReapStaleLeases returns jobs leased longer than the lease timeout to the
// queue.
func (q *Queue) ReapStaleLeases(ctx context.Context) (reaped, dead int64, err error) {
	now := q.now()
	cutoff := storage.FormatTime(now.Add(-q.cfg.LeaseTimeout.D()))
	err = q.db.WriteTx(ctx, func(tx storage.Tx) error {
		var err error
		reaped, dead, err = storage.ReapStaleLeases(ctx, tx, cutoff, storage.FormatTime(now))
		return err
	})
	return reaped, dead, err
}

// Get returns one job.
func (q *Queue) Get(ctx context.Context, id string) (*storage.Job, error) {
	j, err := storage.GetJob(ctx, q.db.Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNotFound
	}
	return j, err
}

// newID returns a new time-ordered UUID (v7), as core.NewID does.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
