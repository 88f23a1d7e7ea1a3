package core

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/storage"
)

// JobFilter selects jobs for ListJobs.
type JobFilter = storage.JobFilter

var jobStatuses = []string{storage.JobPending, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

// ListJobs returns queue rows matching f (live first, then newest).
func (s *Service) ListJobs(ctx context.Context, f JobFilter, limit int) ([]*storage.Job, error) {
	if f.Status != "" && !slices.Contains(jobStatuses, f.Status) {
		return nil, Invalid("status", "status must be one of %s", strings.Join(jobStatuses, ", "))
	}
	if limit < 1 || limit > 1000 {
		return nil, Invalid("limit", "limit must be from 1 to 1000")
	}
	return storage.ListJobs(ctx, s.db.Reader(), f, limit)
}

// JobCounts counts jobs by status and by type and status.
func (s *Service) JobCounts(ctx context.Context) (byStatus map[string]int, byType map[string]map[string]int, err error) {
	return storage.JobCounts(ctx, s.db.Reader())
}

// RetryJob makes a job waiting out its retry backoff due now, or returns a
// dead job to the queue with its attempts reset.
func (s *Service) RetryJob(ctx context.Context, id string) (*storage.Job, error) {
	var j *storage.Job
	err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
		var err error
		j, err = storage.RetryJob(ctx, tx, id, s.timestamp())
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
