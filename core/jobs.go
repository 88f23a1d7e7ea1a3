package core

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/storage"
)

// JobFilter selects jobs for ListJobs.
type JobFilter = storage.JobFilter

var jobStatuses = []string{storage.JobPending, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

// ListJobs returns queue rows matching f (live first, then newest).
func (s *Service) ListJobs(ctx context.Context, f JobFilter, limit int) ([]*storage.Job, error) {
	if f.Status != "" && !oneOf(f.Status, jobStatuses) {
		return nil, invalid("status", "status must be one of %s", strings.Join(jobStatuses, ", "))
	}
	if limit < 1 || limit > 1000 {
		return nil, invalid("limit", "limit must be from 1 to 1000")
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
		return nil, &Error{Status: http.StatusConflict, Code: "job_not_retryable", Message: err.Error()}
	}
	return j, err
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// listJobs serves GET /api/jobs?status=&type=&memory_id=&limit=.
func (a *API) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 100, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	jobs, err := a.svc.ListJobs(r.Context(), JobFilter{Status: q.Get("status"), JobType: q.Get("type"), MemoryID: q.Get("memory_id")}, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	byStatus, byType, err := a.svc.JobCounts(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if jobs == nil {
		jobs = []*storage.Job{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": jobs, "count": len(jobs), "counts": byStatus, "byType": byType})
}

// retryJob serves POST /api/jobs/{id}/retry.
func (a *API) retryJob(w http.ResponseWriter, r *http.Request) {
	j, err := a.svc.RetryJob(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "job": j})
}
