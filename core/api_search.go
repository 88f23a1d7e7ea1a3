package core

import (
	"context"
	"math"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core/vector"

	"github.com/cairnmem/cairn/storage"
)

// recallFromQuery builds a recall request from URL parameters (the GET
// search routes): q, limit, and the list filters.
func recallFromQuery(r *http.Request, defLimit int) (RecallInput, *Error) {
	var in RecallInput
	q := r.URL.Query()
	in.Query = q.Get("q")
	if strings.TrimSpace(in.Query) == "" {
		in.Query = q.Get("query")
	}
	if strings.TrimSpace(in.Query) == "" {
		return in, invalid("q", "q is required")
	}
	limit, e := queryInt(r, "limit", defLimit, 1, MaxRecallLimit)
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
		res, err := a.svc.Recall(r.Context(), in)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// SimilarHit is one memory close in meaning to another.
type SimilarHit struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Type       string   `json:"type"`
	Tags       []string `json:"tags"`
	Score      float64  `json:"score"`
	Confidence float64  `json:"confidence"`
	CreatedAt  string   `json:"created_at"`
}

// Similar returns the k live memories closest in meaning to memory id,
// optionally of one type. It fails with not_found when the memory has no
// vector yet.
func (s *Service) Similar(ctx context.Context, id string, k int, typ string) ([]*SimilarHit, error) {
	ix, err := s.index(ctx)
	if err != nil {
		return nil, &Error{Status: http.StatusServiceUnavailable, Code: "vectors_unavailable", Message: err.Error()}
	}
	v, ok := ix.Vector(id)
	if !ok {
		if _, err := s.Get(ctx, id, false); err != nil {
			return nil, err
		}
		return nil, &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "No embedding found for this memory"}
	}
	f := storage.MemoryFilter{Type: typ}
	hits := ix.Search(v, k+1, &f)
	cands := map[string]*candidate{}
	for _, h := range hits {
		if h.ID != id {
			cands[h.ID] = &candidate{id: h.ID, vector: float64(h.Score)}
		}
	}
	if err := s.hydrate(ctx, cands); err != nil {
		return nil, err
	}
	out := []*SimilarHit{}
	for _, h := range hits {
		c, ok := cands[h.ID]
		if !ok || c.mem == nil || len(out) == k {
			continue
		}
		out = append(out, &SimilarHit{ID: c.id, Content: c.mem.Content, Type: c.mem.Type, Tags: c.mem.Tags,
			Score: math.Round(clamp01(c.vector)*100) / 100, Confidence: c.mem.Confidence, CreatedAt: c.mem.CreatedAt})
	}
	return out, nil
}

func (a *API) similar(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		writeError(w, invalid("id", "id is required"))
		return
	}
	k, e := queryInt(r, "k", 10, 1, MaxRecallLimit)
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
type ExportedEmbedding struct {
	ID         string    `json:"id"`
	Content    string    `json:"content"`
	Who        string    `json:"who,omitempty"`
	Importance float64   `json:"importance"`
	Type       string    `json:"type"`
	Tags       []string  `json:"tags"`
	SourceType string    `json:"sourceType"`
	SourceID   string    `json:"sourceId,omitempty"`
	CreatedAt  string    `json:"createdAt"`
	Model      string    `json:"model"`
	Dimensions int       `json:"dimensions"`
	Vector     []float32 `json:"vector,omitempty"`
}

// Embeddings pages through live memories that have a vector for the
// current model, oldest first.
func (s *Service) Embeddings(ctx context.Context, limit, offset int, withVectors bool) ([]*ExportedEmbedding, int, error) {
	if s.embedder == nil {
		return []*ExportedEmbedding{}, 0, nil
	}
	model := s.embedder.Model()
	r := s.db.Reader()
	var total int
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM memories m JOIN embeddings e
		ON e.content_hash = m.content_hash AND e.model = ? WHERE m.is_deleted = 0`, model).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := r.QueryContext(ctx, `SELECT `+storage.MemoryColumns+`, e.dimensions, e.vector
		FROM memories m JOIN embeddings e ON e.content_hash = m.content_hash AND e.model = ?
		WHERE m.is_deleted = 0 ORDER BY m.rid LIMIT ? OFFSET ?`, model, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*ExportedEmbedding{}
	for rows.Next() {
		var dims int
		var blob []byte
		m, err := storage.ScanMemory(extraScanner{rows, []any{&dims, &blob}})
		if err != nil {
			return nil, 0, err
		}
		e := &ExportedEmbedding{ID: m.ID, Content: m.Content, Who: m.Who, Importance: m.Importance, Type: m.Type,
			Tags: viewOf(m).Tags, SourceType: m.SourceType, SourceID: m.SourceID, CreatedAt: m.CreatedAt,
			Model: model, Dimensions: dims}
		if withVectors {
			if e.Vector, err = vector.Decode(blob); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

type extraScanner struct {
	rows  interface{ Scan(...any) error }
	extra []any
}

func (x extraScanner) Scan(dest ...any) error { return x.rows.Scan(append(dest, x.extra...)...) }

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
	rows, total, err := a.svc.Embeddings(r.Context(), limit, offset, withVectors)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"embeddings": rows, "count": len(rows), "total": total,
		"limit": limit, "offset": offset, "hasMore": offset+len(rows) < total})
}

func (a *API) embeddingStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.svc.EmbeddingStatus(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
