package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairnmem/cairn/core/documents"

	"github.com/cairnmem/cairn/core"
)

// documentBodyLimit bounds a POST /api/documents body: the larger of
// server.max_body_bytes and twice documents.max_content_bytes (JSON
// escaping can double the size of text); the content itself is then held
// to documents.max_content_bytes.
func (a *API) documentBodyLimit() int64 {
	return max(a.svc.Config().Server.MaxBodyBytes, 2*a.svc.Config().Documents.MaxContentBytes)
}

// documentInputFrom reads a document request. Fields are snake_case, with
// the camelCase aliases Signet clients send.
func documentInputFrom(b body) (documents.DocumentInput, *core.Error) {
	var in documents.DocumentInput
	var e *core.Error
	var ok bool
	if in.SourceType, ok, e = b.str("source_type", "sourceType"); e != nil {
		return in, e
	} else if !ok {
		return in, core.Invalid("source_type", "source_type must be text, url, or file")
	}
	for _, f := range []struct {
		dst   *string
		names []string
	}{
		{&in.Content, []string{"content"}},
		{&in.URL, []string{"url", "source_url", "sourceUrl"}},
		{&in.Title, []string{"title"}},
		{&in.ContentType, []string{"content_type", "contentType"}},
		{&in.ConnectorID, []string{"connector_id", "connectorId"}},
	} {
		if *f.dst, _, e = b.str(f.names...); e != nil {
			return in, e
		}
	}
	if raw, _ := b.field("metadata"); raw != nil {
		in.Metadata = json.RawMessage(raw)
	}
	return in, nil
}

func (a *API) createDocument(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.documentBodyLimit())
	if e != nil {
		writeError(w, e)
		return
	}
	in, e := documentInputFrom(b)
	if e != nil {
		writeError(w, e)
		return
	}
	res, err := a.app.Documents.CreateDocument(r.Context(), in)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if res.Deduplicated {
		writeJSON(w, http.StatusOK, res)
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

func (a *API) listDocuments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, offset := 0, 0
	if v := strings.TrimSpace(q.Get("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, core.Invalid("limit", "limit must be a positive integer (at most 500)"))
			return
		}
		limit = n
	}
	if v := strings.TrimSpace(q.Get("offset")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeError(w, core.Invalid("offset", "offset must be a non-negative integer"))
			return
		}
		offset = n
	}
	res, err := a.app.Documents.ListDocuments(r.Context(), q.Get("status"), limit, offset)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) getDocument(w http.ResponseWriter, r *http.Request) {
	d, err := a.app.Documents.GetDocument(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (a *API) documentChunks(w http.ResponseWriter, r *http.Request) {
	cs, err := a.app.Documents.DocumentChunks(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"chunks": cs, "count": len(cs)})
}

func (a *API) deleteDocument(w http.ResponseWriter, r *http.Request) {
	b, e := a.optionalBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _, e := b.str("reason")
	if e != nil {
		writeError(w, e)
		return
	}
	if strings.TrimSpace(reason) == "" {
		reason = r.URL.Query().Get("reason")
	}
	res, err := a.app.Documents.DeleteDocument(r.Context(), r.PathValue("id"), reason, actorOf(r, b))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
