package httpapi

import (
	"net/http"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/storage"
)

// listJobs serves GET /api/jobs?status=&type=&memory_id=&limit=.
func (a *API) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, e := queryInt(r, "limit", 100, 1, 1000)
	if e != nil {
		writeError(w, e)
		return
	}
	rows, err := a.app.Jobs.List(r.Context(), jobs.Filter{Status: q.Get("status"), JobType: q.Get("type"), MemoryID: q.Get("memory_id")}, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	byStatus, byType, err := a.app.Jobs.Counts(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if rows == nil {
		rows = []*storage.Job{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": rows, "count": len(rows), "counts": byStatus, "byType": byType})
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
