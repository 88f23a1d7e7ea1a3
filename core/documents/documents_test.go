package documents_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/core/jobs"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/fetch"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/workers"
)

// docText builds a document of about n characters: numbered sentences,
// single-spaced, each with a word unique to it (tokenNNN).
func docText(n int, tag string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Sentence %d of the %s handbook mentions token%s%d and the deploy checklist. ", i, tag, tag, i)
	}
	return strings.TrimSpace(b.String())
}

// runDocJobs runs the document worker's Step until no job is due.
func runDocJobs(tb testing.TB, e *apitest.Env) {
	tb.Helper()
	w := &workers.DocumentWorker{Svc: e.Svc, Jobs: e.App.Jobs, Docs: e.App.Documents}
	for i := 0; i < 20; i++ {
		worked, err := w.Step(context.Background(), "test-doc-worker")
		if !worked {
			if err != nil {
				tb.Fatalf("document worker: %v", err)
			}
			return
		}
	}
	tb.Fatal("document jobs never ran out")
}

func allowPrivate(c *config.Config) { c.Documents.AllowPrivateFetch = true }

func createDoc(tb testing.TB, e *apitest.Env, body map[string]any) string {
	tb.Helper()
	r := e.Post(tb, "/api/documents", body).Want(tb, http.StatusCreated)
	if r.Str("status") != "queued" || r.Str("id") == "" || r.Str("jobId") == "" {
		tb.Fatalf("create document: %s", r)
	}
	return r.Str("id")
}

func chunkContents(tb testing.TB, e *apitest.Env, id string) ([]string, []string) {
	tb.Helper()
	r := e.Get(tb, "/api/documents/"+id+"/chunks").Want(tb, http.StatusOK)
	cs := r.List(tb, "chunks")
	if int(r.Num("count")) != len(cs) {
		tb.Fatalf("count %v != %d chunks", r.Num("count"), len(cs))
	}
	var contents, ids []string
	for i, c := range cs {
		if int(c["chunk_index"].(float64)) != i || c["type"] != documents.DocumentChunkType || c["created_at"] == "" {
			tb.Fatalf("chunk %d: %v", i, c)
		}
		contents = append(contents, c["content"].(string))
		ids = append(ids, c["id"].(string))
	}
	return contents, ids
}

func recallIDs(tb testing.TB, e *apitest.Env, query string) []string {
	tb.Helper()
	var ids []string
	for _, h := range e.Post(tb, "/api/memory/recall", map[string]any{"query": query}).Want(tb, http.StatusOK).List(tb, "results") {
		ids = append(ids, h["id"].(string))
	}
	return ids
}

func TestDocumentTextRoundTrip(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	text := docText(4500, "alpha")
	id := createDoc(t, e, map[string]any{"source_type": "text", "content": text, "title": "Ops Guide",
		"metadata": map[string]any{"team": "infra", "n": 1}})
	if got := e.Get(t, "/api/documents/"+id).Want(t, 200); got.Str("status") != "queued" {
		t.Fatalf("before the worker: %s", got)
	}
	runDocJobs(t, e)
	d := e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "done" || d.Str("title") != "Ops Guide" || d.Str("completed_at") == "" || d.Str("content") != text {
		t.Fatalf("document after ingest: %s", d)
	}
	if md, _ := d.JSON["metadata"].(map[string]any); md["team"] != "infra" {
		t.Fatalf("metadata = %v", d.JSON["metadata"])
	}
	chunks, ids := chunkContents(t, e, id)
	if len(chunks) != 3 || int(d.Num("chunk_count")) != 3 {
		t.Fatalf("%d chunks (chunk_count %v) for %d characters, want 3", len(chunks), d.Num("chunk_count"), len(text))
	}
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > 2000 {
			t.Fatalf("chunk %d has %d characters", i, n)
		}
		if i > 0 {
			prev := []rune(chunks[i-1])
			tail := strings.TrimSpace(string(prev[len(prev)-200:]))
			if !strings.HasPrefix(c, tail) {
				t.Fatalf("chunk %d does not start with the last 200 characters of chunk %d:\n%q\n%q", i, i-1, tail, c[:250])
			}
		}
	}
	// Every sentence is in some chunk: nothing is lost at the cuts.
	all := strings.Join(chunks, " ")
	for _, s := range strings.SplitAfter(text, ". ") {
		if s = strings.TrimSpace(s); !strings.Contains(all, s) {
			t.Fatalf("sentence %q is in no chunk", s)
		}
	}
	m := e.Get(t, "/api/memory/"+ids[1]).Want(t, 200)
	if m.Str("type") != "document_chunk" || m.Num("importance") != 0.3 || m.Str("who") != id || m.Str("why") != "document_ingest" ||
		m.Str("source_type") != "document" || m.Str("source_id") != id || m.Str("extraction_status") != "none" {
		t.Fatalf("chunk memory: %s", m)
	}
	if tags, _ := m.JSON["tags"].([]any); len(tags) != 1 || tags[0] != "document:Ops Guide" {
		t.Fatalf("chunk tags = %v", m.JSON["tags"])
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE job_type = 'extract'`); n != 0 {
		t.Fatalf("%d extract jobs for document chunks, want none", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE document_id = ? AND job_type = 'document_ingest' AND status = 'completed'`, id); n != 1 {
		t.Fatalf("completed ingest jobs = %d", n)
	}
	// A word only in the middle chunk is found by recall.
	mid := chunks[1][len(chunks[1])/2:]
	word := ""
	for _, f := range strings.Fields(mid) {
		if strings.HasPrefix(f, "tokenalpha") {
			word = f
			break
		}
	}
	if word == "" || !containsStr(recallIDs(t, e, word), ids[1]) {
		t.Fatalf("recall of %q does not find chunk 1", word)
	}
	// Listing, with its filters.
	l := e.Get(t, "/api/documents").Want(t, 200)
	if l.Num("total") != 1 || l.Num("limit") != 50 || l.Num("offset") != 0 || len(l.List(t, "documents")) != 1 {
		t.Fatalf("list: %s", l)
	}
	if docs := l.List(t, "documents"); docs[0]["id"] != id || docs[0]["content"] != nil {
		t.Fatalf("list must show the document without its content: %v", docs[0])
	}
	if l := e.Get(t, "/api/documents?status=failed").Want(t, 200); l.Num("total") != 0 {
		t.Fatalf("status filter: %s", l)
	}
	if l := e.Get(t, "/api/documents?limit=9999&offset=1").Want(t, 200); l.Num("limit") != 500 || len(l.List(t, "documents")) != 0 || l.Num("total") != 1 {
		t.Fatalf("limit clamp and offset: %s", l)
	}
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestDocumentBadInputNamesTheField(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	for _, tc := range []struct {
		body       any
		field, msg string
	}{
		{map[string]any{"content": "x"}, "source_type", "source_type must be text, url, or file"},
		{map[string]any{"source_type": "pdf", "content": "x"}, "source_type", "source_type must be text, url, or file"},
		{map[string]any{"source_type": 3}, "source_type", "source_type must be a string"},
		{map[string]any{"source_type": "text"}, "content", "content is required for text source_type"},
		{map[string]any{"source_type": "text", "content": "  \n "}, "content", "content is required for text source_type"},
		{map[string]any{"source_type": "url"}, "url", "url is required for url source_type"},
		{map[string]any{"source_type": "url", "url": "ftp://example.com/a"}, "url", "http or https"},
		{map[string]any{"source_type": "url", "url": "http://"}, "url", "http or https"},
		{map[string]any{"source_type": "url", "url": "http://127.0.0.1:9/x"}, "url", "allow_private_fetch"},
		{map[string]any{"source_type": "url", "url": "http://[::1]/x"}, "url", "loopback"},
		{map[string]any{"source_type": "url", "url": "http://10.1.2.3/x"}, "url", "private"},
		{map[string]any{"source_type": "url", "url": "http://169.254.169.254/latest"}, "url", "link-local"},
		{map[string]any{"source_type": "url", "url": "http://100.64.0.1/"}, "url", "carrier-grade NAT"},
		{map[string]any{"source_type": "url", "url": "http://localhost:3850/"}, "url", "loopback"},
		{map[string]any{"source_type": "url", "url": "https://example.com/", "content": "x"}, "content", "must be empty"},
		{map[string]any{"source_type": "text", "content": "x", "metadata": []int{1}}, "metadata", "metadata must be a JSON object"},
		{map[string]any{"source_type": "text", "content": "x", "metadata": "a"}, "metadata", "metadata must be a JSON object"},
		{map[string]any{"source_type": "text", "content": "x", "title": 5}, "title", "title must be a string"},
		{map[string]any{"source_type": "text", "content": "x", "url": []string{}}, "url", "url must be a string"},
	} {
		e.Post(t, "/api/documents", tc.body).WantInvalid(t, tc.field, tc.msg)
	}
	e.Post(t, "/api/documents", "[1]").WantErr(t, 400, core.CodeInvalidJSON)
	e.Post(t, "/api/documents", "{").WantErr(t, 400, core.CodeInvalidJSON)
	if n := e.Count(t, `SELECT count(*) FROM documents`) + e.Count(t, `SELECT count(*) FROM memory_jobs`); n != 0 {
		t.Fatalf("rejected requests wrote %d rows", n)
	}
	e.Get(t, "/api/documents?status=nope").WantInvalid(t, "status", "status must be one of")
	e.Get(t, "/api/documents?limit=x").WantInvalid(t, "limit", "limit must be")
	e.Get(t, "/api/documents?offset=-1").WantInvalid(t, "offset", "offset must be")
	if r := e.Get(t, "/api/documents/nope").WantErr(t, 404, core.CodeNotFound); r.Str("error") != "Document not found" {
		t.Fatalf("404: %s", r)
	}
	e.Get(t, "/api/documents/nope/chunks").WantErr(t, 404, core.CodeNotFound)
	e.Do(t, "DELETE", "/api/documents/nope?reason=x", nil, nil).WantErr(t, 404, core.CodeNotFound)
	id := createDoc(t, e, map[string]any{"source_type": "text", "content": "short note"})
	e.Do(t, "DELETE", "/api/documents/"+id, nil, nil).WantInvalid(t, "reason", "reason is required")
	e.Do(t, "DELETE", "/api/documents/"+id, map[string]any{"reason": 1}, nil).WantInvalid(t, "reason", "reason must be a string")
	// Too large: the content limit, in bytes.
	small := apitest.NewEnv(t, func(c *config.Config) { c.Documents.MaxContentBytes = 1024 })
	small.Post(t, "/api/documents", map[string]any{"source_type": "text", "content": strings.Repeat("a", 1025)}).WantErr(t, 413, core.CodeTooLarge)
}

// page serves the routes of a small web site for fetch tests.
func page(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestDocumentURLFetchesHTML(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, allowPrivate)
	srv := page(t, map[string]http.HandlerFunc{
		"/start": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/guide", http.StatusFound) },
		"/guide": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!DOCTYPE html><html><head><title> Runbook &amp; Notes </title>
<style>body { color: red }</style><script>alert("nope")</script></head>
<body><h1>Rollback</h1><p>Use the <b>blue</b> lever &lt;carefully&gt;.</p><noscript>enable js</noscript>
<!-- hidden comment --><ul><li>first step</li><li>second&nbsp;step</li></ul></body></html>`)
		},
	})
	id := createDoc(t, e, map[string]any{"source_type": "url", "url": srv.URL + "/start"})
	runDocJobs(t, e)
	d := e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "done" || d.Str("title") != "Runbook & Notes" || d.Str("content_type") != "text/html" {
		t.Fatalf("document: %s", d)
	}
	want := "Rollback\n\nUse the blue lever <carefully>.\n\nfirst step\nsecond\u00a0step"
	if got := d.Str("content"); got != want && got != strings.ReplaceAll(want, "\u00a0", " ") {
		t.Fatalf("stripped content = %q, want %q", got, want)
	}
	chunks, _ := chunkContents(t, e, id)
	if len(chunks) != 1 || !strings.Contains(chunks[0], "blue lever") {
		t.Fatalf("chunks = %q", chunks)
	}
	for _, bad := range []string{"alert", "color", "enable js", "hidden comment", "<b>", "<p>"} {
		if strings.Contains(chunks[0], bad) {
			t.Fatalf("chunk keeps %q: %q", bad, chunks[0])
		}
	}
	m := e.Get(t, "/api/memory/"+e.SvcChunkID(t, id)).Want(t, 200)
	if tags, _ := m.JSON["tags"].([]any); len(tags) != 1 || tags[0] != "document:Runbook & Notes" {
		t.Fatalf("tags from the fetched title: %v", m.JSON["tags"])
	}
}

// lyingServer answers every request with a declared Content-Length of
// 100 bytes while streaming size bytes in chunked encoding.
func lyingServer(t *testing.T, size int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
		chunk := strings.Repeat("x", 4096)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := fmt.Fprintf(buf, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
				return
			}
		}
		fmt.Fprint(buf, "0\r\n\r\n")
		_ = buf.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestDocumentURLFailures(t *testing.T) {
	t.Parallel()
	const max = 8 << 10
	e := apitest.NewEnv(t, allowPrivate, func(c *config.Config) { c.Documents.MaxContentBytes = max })
	srv := page(t, map[string]http.HandlerFunc{
		"/a": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) },
		"/b": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a", http.StatusFound) },
		"/hop/": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
		},
		"/png": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		},
		"/big": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", fmt.Sprint(max+1))
			w.Write([]byte(strings.Repeat("y", max+1)))
		},
		"/empty": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><script>x()</script>   </html>")
		},
		"/missing": http.NotFound,
	})
	for _, tc := range []struct{ url, want string }{
		{srv.URL + "/a", "redirect loop"},
		{srv.URL + "/hop/0", "too many redirects"},
		{srv.URL + "/png", "content type image/png is not supported"},
		{srv.URL + "/big", "content is 8193 bytes; the limit is 8192"},
		{lyingServer(t, 4*max), "content exceeds 8192 bytes"},
		{srv.URL + "/empty", "Empty content"},
		{srv.URL + "/missing", "HTTP 404"},
	} {
		id := createDoc(t, e, map[string]any{"source_type": "url", "url": tc.url})
		runDocJobs(t, e)
		d := e.Get(t, "/api/documents/"+id).Want(t, 200)
		if d.Str("status") != "failed" || !strings.Contains(d.Str("error"), tc.want) {
			t.Errorf("%s: status %q error %q, want failed with %q", tc.url, d.Str("status"), d.Str("error"), tc.want)
		}
		// A failure no retry can fix kills the job on its first attempt.
		if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE document_id = ? AND status = 'dead' AND attempts = 1`, id); n != 1 {
			t.Errorf("%s: the job is not dead after one attempt", tc.url)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("failed documents wrote %d memories", n)
	}
}

func TestDocumentRetryableFetchFailureRetriesThenFails(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, allowPrivate)
	srv := page(t, map[string]http.HandlerFunc{"/down": func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}})
	id := createDoc(t, e, map[string]any{"source_type": "url", "url": srv.URL + "/down"})
	runDocJobs(t, e)
	d := e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "queued" || !strings.Contains(d.Str("error"), "retrying: ") || !strings.Contains(d.Str("error"), "503") {
		t.Fatalf("after a retryable failure: %s", d)
	}
	// While it waits for its retry, the URL is still taken.
	if r := e.Post(t, "/api/documents", map[string]any{"source_type": "url", "url": srv.URL + "/down"}).Want(t, 200); !r.Bool("deduplicated") || r.Str("id") != id {
		t.Fatalf("dedup while retrying: %s", r)
	}
	for range 3 {
		e.Clock.Advance(3 * time.Minute) // past the retry backoff
		runDocJobs(t, e)
	}
	d = e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "failed" || !strings.Contains(d.Str("error"), "HTTP 503") {
		t.Fatalf("after the last attempt: %s", d)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE document_id = ? AND status = 'dead' AND attempts = 3`, id); n != 1 {
		t.Fatal("the job is not dead after 3 attempts")
	}
}

func TestDocumentFetchRefusesLoopbackByDefault(t *testing.T) {
	t.Parallel()
	srv := page(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }})
	_, err := fetch.URL(context.Background(), srv.URL+"/", fetch.Options{Timeout: 5 * time.Second, MaxBytes: 1024})
	if err == nil || !strings.Contains(err.Error(), "loopback") || !fetch.IsPermanent(err) {
		t.Fatalf("fetch of %s by default: %v, want a permanent loopback refusal", srv.URL, err)
	}
	res, err := fetch.URL(context.Background(), srv.URL+"/", fetch.Options{Timeout: 5 * time.Second, MaxBytes: 1024, AllowPrivate: true})
	if err != nil || res.Content != "secret" {
		t.Fatalf("fetch with allow_private_fetch: %v %+v", err, res)
	}
	e := apitest.NewEnv(t)
	e.Post(t, "/api/documents", map[string]any{"source_type": "url", "url": srv.URL + "/"}).WantInvalid(t, "url", "loopback")
}

func TestDocumentDedupByURL(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, allowPrivate)
	srv := page(t, map[string]http.HandlerFunc{"/doc": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "The release train leaves every Tuesday at noon.")
	}})
	u := srv.URL + "/doc"
	id := createDoc(t, e, map[string]any{"source_type": "url", "url": u})
	r := e.Post(t, "/api/documents", map[string]any{"source_type": "url", "url": u}).Want(t, http.StatusOK)
	if !r.Bool("deduplicated") || r.Str("id") != id || r.Str("status") != "queued" || r.JSON["jobId"] != nil {
		t.Fatalf("duplicate: %s", r)
	}
	runDocJobs(t, e)
	if r := e.Post(t, "/api/documents", map[string]any{"source_type": "url", "url": u}).Want(t, http.StatusOK); r.Str("status") != "done" {
		t.Fatalf("duplicate after ingest: %s", r)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE job_type = 'document_ingest'`); n != 1 {
		t.Fatalf("%d ingest jobs, want 1", n)
	}
	e.Do(t, "DELETE", "/api/documents/"+id+"?reason=stale", nil, nil).Want(t, 200)
	if again := createDoc(t, e, map[string]any{"source_type": "url", "url": u}); again == id {
		t.Fatal("a deleted document still deduplicates")
	}
}

func TestDocumentDeleteRemovesChunksFromRecall(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := createDoc(t, e, map[string]any{"source_type": "text", "content": docText(3000, "beta"), "title": "Beta"})
	// An unrelated memory whose content equals nothing in the document.
	e.Post(t, "/api/memory/remember", map[string]any{"content": "tokenbeta5 is also a user note"}).Want(t, 200)
	runDocJobs(t, e)
	_, ids := chunkContents(t, e, id)
	if len(ids) != 2 || !containsStr(recallIDs(t, e, "tokenbeta1"), ids[0]) {
		t.Fatalf("before delete: %d chunks", len(ids))
	}
	r := e.Do(t, "DELETE", "/api/documents/"+id, map[string]any{"reason": "superseded by v2"}, nil).Want(t, 200)
	if !r.Bool("deleted") || int(r.Num("memoriesRemoved")) != 2 {
		t.Fatalf("delete: %s", r)
	}
	for _, mid := range ids {
		if containsStr(recallIDs(t, e, "tokenbeta1"), mid) {
			t.Fatal("recall still finds a chunk of a deleted document")
		}
		hist := e.HistoryEvents(t, mid)
		last := hist[len(hist)-1]
		if last["event"] != "deleted" || last["reason"] != "Document deleted: superseded by v2" {
			t.Fatalf("history of %s: %v", mid, hist)
		}
	}
	if got := recallIDs(t, e, "tokenbeta5 user note"); len(got) == 0 {
		t.Fatal("the unrelated memory went with the document")
	}
	if cs, _ := chunkContents(t, e, id); len(cs) != 0 {
		t.Fatalf("chunks of a deleted document: %d", len(cs))
	}
	d := e.Get(t, "/api/documents/"+id).Want(t, 200)
	if d.Str("status") != "deleted" || d.Str("error") != "superseded by v2" {
		t.Fatalf("deleted document: %s", d)
	}
	e.Do(t, "DELETE", "/api/documents/"+id+"?reason=again", nil, nil).WantErr(t, 409, core.CodeAlreadyDeleted)
}

// A chunk shared by two documents (same text) stays while either lives.
func TestDocumentSharedChunkSurvivesOneDelete(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	text := "Shared paragraph about the incident review process and its owners."
	a := createDoc(t, e, map[string]any{"source_type": "text", "content": text})
	b := createDoc(t, e, map[string]any{"source_type": "text", "content": text})
	runDocJobs(t, e)
	_, ia := chunkContents(t, e, a)
	_, ib := chunkContents(t, e, b)
	if len(ia) != 1 || len(ib) != 1 || ia[0] != ib[0] {
		t.Fatalf("identical chunks are not one memory: %v %v", ia, ib)
	}
	if r := e.Do(t, "DELETE", "/api/documents/"+a+"?reason=dup", nil, nil).Want(t, 200); r.Num("memoriesRemoved") != 0 {
		t.Fatalf("deleting one of two documents removed the shared chunk: %s", r)
	}
	if r := e.Do(t, "DELETE", "/api/documents/"+b+"?reason=dup", nil, nil).Want(t, 200); r.Num("memoriesRemoved") != 1 {
		t.Fatalf("deleting the last document kept the chunk: %s", r)
	}
}

// A worker that crashed after writing every chunk but before completing
// its job: the reaper returns the lease, the job runs again, and no chunk
// is written twice.
func TestDocumentJobRerunAfterCrashWritesNoDuplicates(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, func(c *config.Config) { c.Documents.ChunkSize, c.Documents.ChunkOverlap = 200, 20 })
	id := createDoc(t, e, map[string]any{"source_type": "text", "content": docText(16000, "gamma")})
	ctx := context.Background()
	job, err := e.App.Jobs.Lease(ctx, "crashing-worker", documents.JobDocumentIngest)
	if err != nil || job == nil {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := e.App.Documents.ProcessDocumentJob(ctx, job)
	if err != nil || res.Chunks <= 64 || res.Created != res.Chunks {
		t.Fatalf("first run: %+v %v (want more chunks than one write batch)", res, err)
	}
	// ... crash: the job is never completed.
	e.Clock.Advance(6 * time.Minute)
	if reaped, _, err := e.App.Jobs.ReapStaleLeases(ctx); err != nil || reaped != 1 {
		t.Fatalf("reap: %d %v", reaped, err)
	}
	runDocJobs(t, e)
	n := res.Chunks
	for q, want := range map[string]int{
		`SELECT count(*) FROM memories WHERE source_id = ?`:                                                                          n,
		`SELECT count(*) FROM document_memories WHERE document_id = ?`:                                                               n,
		`SELECT count(DISTINCT memory_id) FROM document_memories WHERE document_id = ?`:                                              n,
		`SELECT count(*) FROM memory_history WHERE event = 'created' AND memory_id IN (SELECT id FROM memories WHERE source_id = ?)`: n,
		`SELECT count(*) FROM memory_jobs WHERE document_id = ? AND status = 'completed' AND attempts = 2`:                           1,
		`SELECT chunk_count FROM documents WHERE id = ? AND status = 'done'`:                                                         n,
	} {
		if got := e.Count(t, q, id); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	// The crashed worker cannot complete the job it lost.
	if err := e.App.Jobs.Complete(ctx, job, res); err == nil {
		t.Fatal("the crashed worker completed a job it no longer holds")
	}
	if _, err := e.App.Documents.ProcessDocumentJob(ctx, job); err == nil {
		t.Fatal("the crashed worker processed a job it no longer holds")
	}
}

// Documents never starve extraction: the extract worker leases only
// extract jobs, the document worker only document jobs.
func TestDocumentJobsAreLeasedOnlyByTheDocumentWorker(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	createDoc(t, e, map[string]any{"source_type": "text", "content": "A queued document."})
	ctx := context.Background()
	if j, err := e.App.Jobs.Lease(ctx, "x", jobs.Extract); err != nil || j != nil {
		t.Fatalf("an extract lease took %v (%v)", j, err)
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": "we decided to use blue-green deploys"}).Want(t, 200)
	runDocJobs(t, e)
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE job_type = 'extract' AND status = 'pending'`); n != 1 {
		t.Fatalf("the document worker touched the extract job (%d pending)", n)
	}
	// Frozen mutations: the document worker leases nothing.
	createDoc(t, e, map[string]any{"source_type": "text", "content": "Another queued document."})
	e.Svc.SetMutationsFrozen(true)
	if worked, err := (&workers.DocumentWorker{Svc: e.Svc, Jobs: e.App.Jobs, Docs: e.App.Documents}).Step(ctx, "w"); worked || err != nil {
		t.Fatalf("frozen: worked=%v err=%v", worked, err)
	}
}

// A deleted document's pending job is completed without writing anything.
func TestDocumentDeletedBeforeIngest(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := createDoc(t, e, map[string]any{"source_type": "text", "content": "To be deleted before the worker runs."})
	if r := e.Do(t, "DELETE", "/api/documents/"+id+"?reason=oops", nil, nil).Want(t, 200); r.Num("memoriesRemoved") != 0 {
		t.Fatalf("delete: %s", r)
	}
	runDocJobs(t, e)
	if n := e.Count(t, `SELECT count(*) FROM memories`); n != 0 {
		t.Fatalf("%d memories from a deleted document", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE document_id = ? AND status = 'completed'`, id); n != 1 {
		t.Fatal("the job of a deleted document is not completed")
	}
	if d := e.Get(t, "/api/documents/"+id).Want(t, 200); d.Str("status") != "deleted" {
		t.Fatalf("status: %s", d)
	}
}

func BenchmarkDocumentIngest(b *testing.B) {
	e := apitest.NewStoreEnv(b)
	ctx := context.Background()
	b.SetBytes(200 << 10)
	for i := 0; b.Loop(); i++ {
		text := docText(200<<10, fmt.Sprintf("b%d", i))
		res, err := e.App.Documents.CreateDocument(ctx, documents.DocumentInput{SourceType: "text", Content: text, Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		job, err := e.App.Jobs.Lease(ctx, "bench", documents.JobDocumentIngest)
		if err != nil || job == nil {
			b.Fatal(job, err)
		}
		out, err := e.App.Documents.ProcessDocumentJob(ctx, job)
		if err != nil || out.Created < 100 {
			b.Fatal(out, err)
		}
		if err := e.App.Jobs.Complete(ctx, job, out); err != nil {
			b.Fatal(err)
		}
		if res.ID != job.DocumentID {
			b.Fatal("leased another document's job")
		}
	}
}

// With an embedder, chunks are embedded before the indexing transactions
// and stored with their vectors: nothing is left for the tracker, and the
// vector leg finds them.
func TestDocumentChunksAreEmbedded(t *testing.T) {
	t.Parallel()
	ap := apitest.NewApp(t, apitest.Builtin(t))
	svc := ap.Service
	ctx := context.Background()
	if err := ap.Vectors.WarmVectors(ctx); err != nil {
		t.Fatal(err)
	}
	text := "Kubernetes pods restart when the liveness probe fails three times in a row. " +
		docText(2600, "delta")
	docs := ap.Documents
	created, err := docs.CreateDocument(ctx, documents.DocumentInput{SourceType: "text", Content: text, Title: "K8s"})
	if err != nil {
		t.Fatal(err)
	}
	job, err := ap.Jobs.Lease(ctx, "t", documents.JobDocumentIngest)
	if err != nil || job == nil || job.DocumentID != created.ID {
		t.Fatalf("lease: %v %v", job, err)
	}
	res, err := docs.ProcessDocumentJob(ctx, job)
	if err != nil || res.Chunks != 2 || res.Embedded != 2 {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	if n, err := ap.Vectors.CountPendingEmbeddings(ctx); err != nil || n != 0 {
		t.Fatalf("pending embeddings after ingest: %d %v", n, err)
	}
	got := apitest.Recall(t, svc, core.RecallInput{Query: "why do containers get restarted by health checks", Mode: "vector", Limit: 3})
	if len(got.Results) == 0 || got.Results[0].Type != documents.DocumentChunkType {
		t.Fatalf("vector recall: %+v", got.Results)
	}
}

// Issue 29: a web page's "&#x1b;]52;c;…&#x7;" becomes real ESC and BEL
// when the HTML is stripped, and its <title> lands in a tag; a text
// document carries the bytes as they are. Neither reaches a memory.
func TestDocumentIngestCleansEscapes(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, allowPrivate)
	srv := page(t, map[string]http.HandlerFunc{
		"/evil": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Runbook&#x1b;]0;pwned&#x7;</title></head><body>
<p>Restart the &#x1b;]52;c;Y3VybCBldmlsLnNoIHwgc2g=&#x7;payments worker with &#x1b;[2J&#x1b;[31mmake bounce&#x1b;[0m.</p></body></html>`)
		},
	})
	urlDoc := createDoc(t, e, map[string]any{"source_type": "url", "url": srv.URL + "/evil"})
	textDoc := createDoc(t, e, map[string]any{"source_type": "text", "title": "Notes\x1b]0;x\x07 \u202eevil",
		"content": "The staging kettle\x1b]8;;https://evil.example/\x1b\\ lives\x1b]8;;\x1b\\ next to the \u009b2Jblue rack.\x00\a"})
	runDocJobs(t, e)
	for _, id := range []string{urlDoc, textDoc} {
		chunks, _ := chunkContents(t, e, id)
		if len(chunks) == 0 {
			t.Fatalf("document %s has no chunks", id)
		}
		for _, c := range chunks {
			if c != text.Display(c) || strings.ContainsAny(c, "\x1b\x07\x00\u009b") {
				t.Errorf("chunk keeps control characters: %q", c)
			}
		}
		m := e.Get(t, "/api/memory/"+e.SvcChunkID(t, id)).Want(t, 200)
		tags, _ := m.JSON["tags"].([]any)
		for _, tag := range tags {
			if err := text.CheckIdentifier("tags", tag.(string)); err != nil {
				t.Errorf("tag %q: %v", tag, err)
			}
		}
	}
	chunks, _ := chunkContents(t, e, urlDoc)
	if want := "Restart the payments worker with make bounce."; chunks[0] != want {
		t.Errorf("page chunk = %q, want %q", chunks[0], want)
	}
	if d := e.Get(t, "/api/documents/"+urlDoc).Want(t, 200); d.Str("title") != "Runbook" {
		t.Errorf("page title = %q", d.Str("title"))
	}
	chunks, _ = chunkContents(t, e, textDoc)
	if want := "The staging kettle lives next to the blue rack."; chunks[0] != want {
		t.Errorf("text chunk = %q, want %q", chunks[0], want)
	}
	m := e.Get(t, "/api/memory/"+e.SvcChunkID(t, textDoc)).Want(t, 200)
	if tags, _ := m.JSON["tags"].([]any); len(tags) != 1 || tags[0] != "document:Notes evil" {
		t.Errorf("text document tag = %v", m.JSON["tags"])
	}
}
