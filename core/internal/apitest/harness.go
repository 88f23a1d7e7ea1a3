// Package apitest is the test harness of the HTTP API: a real SQLite store in
// a temp dir, a Service with a clock the test controls, and the real HTTP
// handler behind httptest.NewServer (or a recorder). Tests of core and of
// httpapi share it.
package apitest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
)

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Clock is a clock tests move by hand.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var ClockStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type Env struct {
	DB    *storage.DB
	RO    Inspector     // an independent read-only connection for inspecting the store
	App   *app.App      // the store's Service and subsystems, as the binary builds them
	Svc   *core.Service // App.Service
	H     http.Handler
	Srv   *httptest.Server // nil for in-process (recorder) environments
	Clock *Clock

	embedder vectors.Embedder // what Rebuild keeps
}

// NewEnv opens a fresh store and serves the API over a real HTTP server.
func NewEnv(tb testing.TB, mods ...func(*config.Config)) *Env {
	tb.Helper()
	e := NewStoreEnv(tb, mods...)
	e.Srv = httptest.NewServer(e.H)
	tb.Cleanup(e.Srv.Close)
	return e
}

// TestConfig is the default configuration with the recall path's
// latency budgets (the graph boost's 50 ms) widened to a minute: on a
// loaded machine under -race a lookup can take longer than the budget,
// and a test of what the boost does would then see no boost. A test of
// the budget itself sets it (config.Graph.BoostTimeout) in its mods.
func TestConfig() config.Config {
	cfg := config.DefaultConfig()
	cfg.Graph.BoostTimeout = config.Duration(time.Minute)
	return cfg
}

// NewStoreEnv opens a fresh store and builds the API handler without a
// listener; requests go through httptest.NewRecorder. Fuzz targets use it
// because it is several times faster per input.
func NewStoreEnv(tb testing.TB, mods ...func(*config.Config)) *Env {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "memories.db")
	driver, roDSN := "sqlite3", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	if u := postgresStore(tb); u != "" {
		path, driver, roDSN = u, "pgx", u
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: path, NoBackup: true})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	// The test inspects the file through its own connection, so what it
	// sees does not depend on storage's reader pool.
	ro, err := sql.Open(driver, roDSN)
	if err != nil {
		tb.Fatalf("open read-only connection: %v", err)
	}
	ro.SetMaxOpenConns(1)
	tb.Cleanup(func() { _ = ro.Close() })
	var inspect Inspector = ro
	if driver == "pgx" {
		inspect = pgInspector{ro}
	}
	cfg := TestConfig()
	for _, m := range mods {
		m(&cfg)
	}
	clock := &Clock{t: ClockStart}
	ap := app.New(db, cfg, app.Options{Now: clock.Now})
	api := httpapi.NewAPI(ap, "test", "127.0.0.1:0")
	tb.Cleanup(api.Wait) // health refreshes read the store: they end before it closes
	return &Env{DB: db, RO: inspect, App: ap, Svc: ap.Service, H: api.Handler(), Clock: clock}
}

// Resp is a decoded API answer.
type Resp struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   map[string]any // nil unless the body is a JSON object
}

// Hdr builds request headers from name/value pairs.
func Hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// RawBody marks a request body to be sent byte for byte.
type RawBody []byte

// Do sends one request. body may be nil (no body), rawBody/string (sent as
// is) or anything else (marshalled to JSON).
func (e *Env) Do(tb testing.TB, method, path string, body any, h http.Header) *Resp {
	tb.Helper()
	r, err := e.Send(method, path, body, h)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// Send is do without a testing.TB, for use off the test goroutine.
func (e *Env) Send(method, path string, body any, h http.Header) (*Resp, error) {
	return e.SendCtx(context.Background(), method, path, body, h)
}

// SendCtx is send bounded by ctx: when ctx ends the client gives up, and the
// server sees its request context cancelled.
func (e *Env) SendCtx(ctx context.Context, method, path string, body any, h http.Header) (*Resp, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case RawBody:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("marshal request: %w", err)
		}
		rd = bytes.NewReader(j)
	}
	var r *Resp
	if e.Srv != nil {
		req, err := http.NewRequestWithContext(ctx, method, e.Srv.URL+path, rd)
		if err != nil {
			return nil, err
		}
		if rd != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range h {
			req.Header[k] = v
		}
		if host := h.Get("Host"); host != "" {
			req.Host = host
		}
		res, err := e.Srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		if err != nil {
			return nil, fmt.Errorf("read response: %w", err)
		}
		r = &Resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	} else {
		req := httptest.NewRequestWithContext(ctx, method, path, rd)
		req.Host = "127.0.0.1" // not httptest's example.com: the API refuses foreign hosts
		if rd != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range h {
			req.Header[k] = v
		}
		if host := h.Get("Host"); host != "" {
			req.Host = host
		}
		rec := httptest.NewRecorder()
		e.H.ServeHTTP(rec, req)
		r = &Resp{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var m map[string]any
		if json.Unmarshal(r.Raw, &m) == nil {
			r.JSON = m
		}
	}
	return r, nil
}

func (e *Env) Get(tb testing.TB, path string) *Resp { return e.Do(tb, "GET", path, nil, nil) }
func (e *Env) Post(tb testing.TB, path string, body any) *Resp {
	return e.Do(tb, "POST", path, body, nil)
}
func (e *Env) Patch(tb testing.TB, id string, body any) *Resp {
	return e.Do(tb, "PATCH", "/api/memory/"+id, body, nil)
}
func (e *Env) Del(tb testing.TB, id string, body any) *Resp {
	return e.Do(tb, "DELETE", "/api/memory/"+id, body, nil)
}

func (r *Resp) String() string {
	s := string(r.Raw)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return fmt.Sprintf("HTTP %d %s", r.Status, s)
}

// Want asserts the status code.
func (r *Resp) Want(tb testing.TB, status int) *Resp {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("status = %d, want %d; body: %s", r.Status, status, r)
	}
	if r.JSON == nil && r.Header.Get("Content-Type") != "application/x-ndjson" {
		tb.Fatalf("response is not a JSON object (Content-Type %q): %s", r.Header.Get("Content-Type"), r)
	}
	return r
}

// WantErr asserts an error answer: status, the JSON {"error","code"} shape,
// and the code.
func (r *Resp) WantErr(tb testing.TB, status int, code string) *Resp {
	tb.Helper()
	r.Want(tb, status)
	if msg, _ := r.JSON["error"].(string); msg == "" {
		tb.Fatalf("error answer without an error message: %s", r)
	}
	if got, _ := r.JSON["code"].(string); got != code {
		tb.Fatalf("code = %q, want %q; body: %s", got, code, r)
	}
	return r
}

// WantInvalid asserts a 400 invalid_request naming field, whose message
// contains msg.
func (r *Resp) WantInvalid(tb testing.TB, field, msg string) *Resp {
	tb.Helper()
	r.WantErr(tb, http.StatusBadRequest, core.CodeInvalidRequest)
	if got, _ := r.JSON["field"].(string); got != field {
		tb.Fatalf("field = %q, want %q; body: %s", got, field, r)
	}
	if !strings.Contains(r.Str("error"), msg) {
		tb.Fatalf("error = %q, want it to contain %q", r.Str("error"), msg)
	}
	return r
}

func (r *Resp) Str(key string) string { s, _ := r.JSON[key].(string); return s }
func (r *Resp) Num(key string) float64 {
	f, _ := r.JSON[key].(float64)
	return f
}
func (r *Resp) Bool(key string) bool { b, _ := r.JSON[key].(bool); return b }

// List returns a JSON array field as objects.
func (r *Resp) List(tb testing.TB, key string) []map[string]any {
	tb.Helper()
	arr, ok := r.JSON[key].([]any)
	if !ok {
		tb.Fatalf("%q is not an array: %s", key, r)
	}
	out := make([]map[string]any, len(arr))
	for i, v := range arr {
		m, ok := v.(map[string]any)
		if !ok {
			tb.Fatalf("%s[%d] is not an object: %s", key, i, r)
		}
		out[i] = m
	}
	return out
}

func Strs(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Remember stores content (with optional extra fields) and returns the answer.
func (e *Env) Remember(tb testing.TB, content string, extra ...any) *Resp {
	tb.Helper()
	body := map[string]any{"content": content}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	r := e.Post(tb, "/api/memory/remember", body).Want(tb, http.StatusOK)
	if r.Str("id") == "" {
		tb.Fatalf("remember returned no id: %s", r)
	}
	return r
}

func (e *Env) MustID(tb testing.TB, content string, extra ...any) string {
	tb.Helper()
	return e.Remember(tb, content, extra...).Str("id")
}

// State summarises everything a failed request must not change: every
// memory row's id, version, deletion and hash, and the number of history
// events and jobs.
func (e *Env) State(tb testing.TB) string {
	tb.Helper()
	var rows, hist, jobs int
	var digest string
	r := e.RO
	err := r.QueryRow(`SELECT count(*), COALESCE(string_agg(d, ';' ORDER BY r), '') FROM (
		SELECT rid AS r, id || ':' || version || ':' || is_deleted || ':' || content_hash || ':' || pinned || ':' || importance || ':' || tags AS d
		FROM memories) s`).Scan(&rows, &digest)
	if err != nil {
		tb.Fatalf("state: %v", err)
	}
	if err := r.QueryRow(`SELECT count(*) FROM memory_history`).Scan(&hist); err != nil {
		tb.Fatalf("state: %v", err)
	}
	if err := r.QueryRow(`SELECT count(*) FROM memory_jobs`).Scan(&jobs); err != nil {
		tb.Fatalf("state: %v", err)
	}
	return fmt.Sprintf("rows=%d history=%d jobs=%d digest=%s", rows, hist, jobs, digest)
}

// Unchanged asserts the store still has the state before.
func (e *Env) Unchanged(tb testing.TB, before string) {
	tb.Helper()
	if after := e.State(tb); after != before {
		tb.Fatalf("store changed by a failed request:\nbefore %s\nafter  %s", before, after)
	}
}

func (e *Env) Count(tb testing.TB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := e.RO.QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

func (e *Env) HistoryEvents(tb testing.TB, id string) []map[string]any {
	tb.Helper()
	return e.Get(tb, "/api/memory/"+id+"/history").Want(tb, http.StatusOK).List(tb, "history")
}

func EventNames(hist []map[string]any) []string {
	out := make([]string, len(hist))
	for i, h := range hist {
		out[i], _ = h["event"].(string)
	}
	return out
}

// LiveState counts what a request may change, cheaply.
func (e *Env) LiveState(t testing.TB) (live, deleted, history int) {
	t.Helper()
	err := e.RO.QueryRow(`SELECT count(*) FILTER (WHERE is_deleted = 0), count(*) FILTER (WHERE is_deleted = 1),
		(SELECT count(*) FROM memory_history) FROM memories`).Scan(&live, &deleted, &history)
	if err != nil {
		t.Fatalf("live state: %v", err)
	}
	return
}

func AuthMode(mode string) func(*config.Config) {
	return func(c *config.Config) { c.Auth.Mode = mode }
}

// Secret returns the env's signing Secret (created on first use).
func (e *Env) Secret(tb testing.TB) []byte {
	tb.Helper()
	s, err := auth.LoadOrCreateSecret(filepath.Join(filepath.Dir(e.DB.Path()), "auth-secret"))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (e *Env) Token(tb testing.TB, role, project string) string {
	tb.Helper()
	t, err := auth.SignToken(e.Secret(tb), auth.NewClaims(role, auth.TokenScope{Project: project}, time.Hour, e.Clock.Now()))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func Bearer(tok string) http.Header { return Hdr("Authorization", "Bearer "+tok) }

// MustIDAs remembers content as an admin of a non-local env.
func (e *Env) MustIDAs(tb testing.TB, content string, extra ...any) string {
	tb.Helper()
	body := map[string]any{"content": content}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	r := e.Do(tb, "POST", "/api/memory/remember", body, Bearer(e.Token(tb, "admin", ""))).Want(tb, 200)
	return r.Str("id")
}

func NoPipeline(c *config.Config) { c.Pipeline.Enabled = false; c.Embedding.Provider = "none" }

func (e *Env) Exec(t *testing.T, query string, args ...any) {
	t.Helper()
	err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		_, err := tx.ExecContext(context.Background(), query, args...)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func (e *Env) Job(t *testing.T, status string, created, updated time.Time, leased *time.Time) {
	t.Helper()
	var l any
	if leased != nil {
		l = storage.FormatTime(*leased)
	}
	e.Exec(t, `INSERT INTO memory_jobs (id, job_type, status, created_at, updated_at, leased_at) VALUES (?, 'extract', ?, ?, ?, ?)`,
		core.NewID(), status, storage.FormatTime(created), storage.FormatTime(updated), l)
}

func (e *Env) Mem(tb testing.TB, content string, extra map[string]any) string {
	tb.Helper()
	b := map[string]any{"content": content}
	for k, v := range extra {
		b[k] = v
	}
	r := e.Post(tb, "/api/memory/remember", b).Want(tb, 200)
	return r.Str("id")
}

func (r *Resp) List2(tb testing.TB, key string) []any {
	arr, ok := r.JSON[key].([]any)
	if !ok {
		tb.Fatalf("%q is not an array: %s", key, r)
	}
	return arr
}

func (e *Env) SvcChunkID(tb testing.TB, docID string) string {
	tb.Helper()
	var id string
	if err := e.RO.QueryRow(`SELECT memory_id FROM document_memories WHERE document_id = ? ORDER BY chunk_index LIMIT 1`, docID).Scan(&id); err != nil {
		tb.Fatal(err)
	}
	return id
}

// WithEmbedder rebuilds e's App over the same store with emb (and the
// configuration changed by mods), as a restart with it would.
func (e *Env) WithEmbedder(emb vectors.Embedder, mods ...func(*config.Config)) {
	e.rebuild(emb, mods)
}

// Rebuild rebuilds e's App over the same store with the configuration
// changed by mods, keeping its embedder, as a restart with it would.
func (e *Env) Rebuild(mods ...func(*config.Config)) {
	e.rebuild(e.embedder, mods)
}

func (e *Env) rebuild(emb vectors.Embedder, mods []func(*config.Config)) {
	cfg := e.Svc.Config()
	for _, m := range mods {
		m(&cfg)
	}
	e.embedder = emb
	e.App = app.New(e.DB, cfg, app.Options{Now: e.Clock.Now, Embedder: emb})
	e.Svc = e.App.Service
	e.H = httpapi.NewAPI(e.App, "test", "127.0.0.1:0").Handler()
}

// NoEmbed turns the embedder off.
func NoEmbed(c *config.Config) { c.Embedding.Provider = "none" }

// Persist writes an extraction result's entities and mentions into the graph, linked to memID.
func (e *Env) Persist(t *testing.T, memID string, res extract.ExtractionResult) pipeline.GraphStats {
	t.Helper()
	st, err := e.App.Pipeline.PersistGraph(context.Background(), memID, res)
	if err != nil {
		t.Fatalf("persist graph: %v", err)
	}
	return st
}
