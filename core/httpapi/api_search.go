package httpapi

import (
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core"
)

// recallFromQuery builds a recall request from URL parameters (the GET
// search routes): q, limit, and the list filters.
func recallFromQuery(r *http.Request, defLimit int) (core.RecallInput, *core.Error) {
	var in core.RecallInput
	q := r.URL.Query()
	in.Query = q.Get("q")
	if strings.TrimSpace(in.Query) == "" {
		in.Query = q.Get("query")
	}
	if strings.TrimSpace(in.Query) == "" {
		return in, core.Invalid("q", "q is required")
	}
	limit, e := queryInt(r, "limit", defLimit, 1, core.MaxRecallLimit)
	if e != nil {
		return in, e
	}
	in.Limit = limit
	if in.Filter, e = filterFromQuery(r); e != nil {
		return in, e
	}
	in.Mode = q.Get("mode")
	in.Explain, _ = parseBool(q.Get("explain"))
	return in, nil
}

func (a *API) searchGET(defLimit int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, e := recallFromQuery(r, defLimit)
		if e != nil {
			writeError(w, e)
			return
		}
		// A GET changes nothing: no access is counted (POST /api/memory/recall counts).
		in.NoTracking = true
		res, err := a.svc.Recall(r.Context(), in)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// SimilarHit is one memory close in meaning to another.
func (a *API) similar(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		writeError(w, core.Invalid("id", "id is required"))
		return
	}
	k, e := queryInt(r, "k", 10, 1, core.MaxRecallLimit)
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.svc.Similar(r.Context(), id, k, r.URL.Query().Get("type"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": res})
}

// ExportedEmbedding is one row of GET /api/embeddings.
func (a *API) embeddings(w http.ResponseWriter, r *http.Request) {
	limit, e := queryInt(r, "limit", 600, 1, 5000)
	if e != nil {
		writeError(w, e)
		return
	}
	offset, e := queryInt(r, "offset", 0, 0, 1<<30)
	if e != nil {
		writeError(w, e)
		return
	}
	withVectors, _ := parseBool(r.URL.Query().Get("vectors"))
	rows, total, err := a.app.Vectors.Embeddings(r.Context(), limit, offset, withVectors)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"embeddings": rows, "count": len(rows), "total": total,
		"limit": limit, "offset": offset, "hasMore": offset+len(rows) < total})
}

func (a *API) embeddingStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.app.Vectors.EmbeddingStatus(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
