package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/storage"
)

// listJobs serves GET /api/jobs?status=&type=&memory_id=&failing=&q=&sort=&limit=&offset=:
// the rows, the queue's counts by status and type, and how many rows the
// filter selects (total).
func (a *API) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 100, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	offset, e := queryInt(r, "offset", 0, 0, 1<<30)
	if e != nil {
		writeError(w, e)
		return
	}
	failing, _ := parseBool(q.Get("failing"))
	f := jobs.Filter{Status: q.Get("status"), JobType: q.Get("type"), MemoryID: q.Get("memory_id"), Failing: failing,
		Text: q.Get("q"), Sort: q.Get("sort"), Offset: offset}
	rows, err := a.app.Jobs.List(r.Context(), f, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	byStatus, byType, err := a.app.Jobs.Counts(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	total, err := a.app.Jobs.Count(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if rows == nil {
		rows = []*storage.Job{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": rows, "count": len(rows), "total": total, "counts": byStatus, "byType": byType})
}

// retryJob serves POST /api/jobs/{id}/retry.
func (a *API) retryJob(w http.ResponseWriter, r *http.Request) {
	j, err := a.app.Jobs.Retry(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "job": j})
}
