package core

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// JobFilter selects jobs for ListJobs.
type JobFilter = storage.JobFilter

var jobStatuses = []string{storage.JobPending, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

// List returns queue rows matching f (live first, then newest).
func (s *Jobs) List(ctx context.Context, f JobFilter, limit int) ([]*storage.Job, error) {
	if f.Status != "" && !slices.Contains(jobStatuses, f.Status) {
		return nil, Invalid("status", "status must be one of %s", strings.Join(jobStatuses, ", "))
	}
	if limit < 1 || limit > 1000 {
		return nil, Invalid("limit", "limit must be from 1 to 1000")
	}
	return storage.ListJobs(ctx, s.svc.db.Reader(), f, limit)
}

// Counts counts jobs by status and by type and status.
func (s *Jobs) Counts(ctx context.Context) (byStatus map[string]int, byType map[string]map[string]int, err error) {
	return storage.JobCounts(ctx, s.svc.db.Reader())
}

// Retry makes a job waiting out its retry backoff due now, or returns a
// dead job to the queue with its attempts reset.
func (s *Jobs) Retry(ctx context.Context, id string) (*storage.Job, error) {
	var j *storage.Job
	err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		j, err = storage.RetryJob(ctx, tx, id, s.svc.Timestamp())
		return err
	})
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil, ErrNotFound
	case errors.Is(err, storage.ErrConflict):
		return nil, &Error{Code: CodeJobNotRetryable, Message: err.Error()}
	}
	return j, err
}

// --- queue --------------------------------------------------------------------

// Enqueue adds a job for a memory unless a live one of that type exists.
func (s *Jobs) Enqueue(ctx context.Context, memoryID, jobType, payload string) (bool, error) {
	var ok bool
	err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		ok, err = storage.EnqueueJob(ctx, tx, NewID(), memoryID, jobType, payload, s.svc.cfg.PipelineV2.MaxAttempts, s.svc.Timestamp())
		return err
	})
	return ok, err
}

// Lease atomically leases the next due job of one of types (any type
// when empty) for owner; nil when nothing is due. See storage.Lease for
// the fairness rule.
func (s *Jobs) Lease(ctx context.Context, owner string, types ...string) (*storage.Job, error) {
	var job *storage.Job
	err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		j, err := storage.LeaseJob(ctx, tx, owner, types, s.svc.Timestamp())
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		job = j
		return err
	})
	return job, err
}

// Complete marks a leased job completed with result encoded as JSON.
func (s *Jobs) Complete(ctx context.Context, job *storage.Job, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		return storage.CompleteJob(ctx, tx, job, string(b), s.svc.Timestamp())
	})
}

// Fail records a failed attempt: retried after min(2^attempts·5 s,
// 120 s) plus up to 1 s of jitter, or dead after max_attempts. It reports
// whether the job is dead.
func (s *Jobs) Fail(ctx context.Context, job *storage.Job, cause error) (bool, error) {
	delay := storage.RetryDelay(job.Attempts) + time.Duration(rand.Int64N(int64(time.Second)))
	var dead bool
	err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		dead, err = storage.FailJob(ctx, tx, job, cause.Error(), s.svc.now(), delay)
		return err
	})
	return dead, err
}

// ReapStaleLeases returns jobs leased longer than the lease timeout to the
// queue.
func (s *Jobs) ReapStaleLeases(ctx context.Context) (reaped, dead int64, err error) {
	now := s.svc.now()
	cutoff := storage.FormatTime(now.Add(-s.svc.cfg.PipelineV2.LeaseTimeout.D()))
	err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		reaped, dead, err = storage.ReapStaleLeases(ctx, tx, cutoff, storage.FormatTime(now))
		return err
	})
	return reaped, dead, err
}

// Get returns one job.
func (s *Jobs) Get(ctx context.Context, id string) (*storage.Job, error) {
	j, err := storage.GetJob(ctx, s.svc.db.Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNotFound
	}
	return j, err
}

// Jobs is a Service's job queue: extraction, session and document jobs
// are enqueued, leased by the workers, completed or failed with backoff,
// and listed, counted and retried by people.
type Jobs struct {
	svc *Service
}
