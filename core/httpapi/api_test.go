package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	_ "github.com/ncruces/go-sqlite3/driver" // the test's own read-only connection
)

// ---------------------------------------------------------------------------
// Test harness: a real SQLite store in a temp dir, a Service with a clock the
// test controls, and the real HTTP handler behind httptest.NewServer.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Health, status, routing
// ---------------------------------------------------------------------------

func TestHealthAndStatus(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	h := e.Get(t, "/health").Want(t, http.StatusOK)
	if h.Str("status") != "healthy" || h.Str("version") != "test" || h.JSON["db"] != true {
		t.Fatalf("health: %s", h)
	}
	if h.Header.Get("X-Request-Id") == "" {
		t.Fatalf("no X-Request-Id on the answer")
	}
	e.MustID(t, "status counts this memory")
	d := e.MustID(t, "status counts this deleted memory")
	e.Del(t, d, map[string]any{"reason": "test"}).Want(t, http.StatusOK)

	s := e.Get(t, "/api/status").Want(t, http.StatusOK)
	if s.Str("status") != "running" || s.Str("version") != "test" {
		t.Fatalf("status: %s", s)
	}
	mem, _ := s.JSON["memories"].(map[string]any)
	if mem["total"] != 1.0 || mem["deleted"] != 1.0 {
		t.Fatalf("status memories = %v, want total 1 deleted 1", mem)
	}
	pipe, _ := s.JSON["pipeline"].(map[string]any)
	if pipe["mutationsFrozen"] != false {
		t.Fatalf("pipeline = %v", pipe)
	}
	e.Svc.SetMutationsFrozen(true)
	s = e.Get(t, "/api/status").Want(t, http.StatusOK)
	pipe, _ = s.JSON["pipeline"].(map[string]any)
	if pipe["mutationsFrozen"] != true {
		t.Fatalf("pipeline after freeze = %v", pipe)
	}

	// Both answers carry the overview: identity, modes, providers, counts
	// and the cached health score; /health from a snapshot taken in the
	// background (health.go), so it is polled until it shows the changes.
	for _, path := range []string{"/api/status", "/health"} {
		e.Clock.Advance(ops.DiagnosticsTTL) // a fresh report sees the freeze
		o := e.Get(t, path).Want(t, http.StatusOK)
		for deadline := time.Now().Add(20 * time.Second); path == "/health" && time.Now().Before(deadline); {
			c, _ := o.JSON["counts"].(map[string]any)
			if h, _ := o.JSON["health"].(map[string]any); c["memories"] == 1.0 && h["score"] == 0.928 {
				break
			}
			time.Sleep(20 * time.Millisecond)
			o = e.Get(t, path).Want(t, http.StatusOK)
		}
		if o.Str("version") != "test" || o.JSON["pid"] == nil || o.JSON["uptime"] == nil || o.Str("address") != "127.0.0.1:0" {
			t.Fatalf("%s identity: %s", path, o)
		}
		if _, err := time.Parse(time.RFC3339, o.Str("startedAt")); err != nil {
			t.Fatalf("%s startedAt: %s", path, o)
		}
		if o.Str("authMode") != "local" || o.Str("pipelineMode") != "frozen" {
			t.Fatalf("%s modes: %s", path, o)
		}
		prov, _ := o.JSON["providers"].(map[string]any)
		ext, _ := prov["extraction"].(map[string]any)
		emb, _ := prov["embedding"].(map[string]any)
		if ext["configured"] != "auto" || ext["available"] != false || emb["provider"] == nil {
			t.Fatalf("%s providers: %v", path, prov)
		}
		c, _ := o.JSON["counts"].(map[string]any)
		jobs, _ := c["jobs"].(map[string]any)
		if c["memories"] != 1.0 || c["deleted"] != 1.0 || c["pendingProposals"] != 0.0 || jobs["pending"] != 2.0 {
			t.Fatalf("%s counts: %v", path, c)
		}
		h, _ := o.JSON["health"].(map[string]any)
		// Frozen mutations cost the mutation domain 0.3 and one tombstone in
		// two rows the storage domain 0.3: 1 − 0.10·0.3 − 0.14·0.3.
		if h["score"] != 0.928 || h["status"] != "healthy" {
			t.Fatalf("%s health: %v", path, h)
		}
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/api/does-not-exist", 404, core.CodeNotFound},
		{"POST", "/nope", 404, core.CodeNotFound},
		{"GET", "/api/memory/remember", 404, core.CodeNotFound}, // read as GET /api/memory/{id}
		{"PUT", "/api/memory/remember", 405, "method_not_allowed"},
		{"DELETE", "/health", 405, "method_not_allowed"},
		{"POST", "/api/memories", 405, "method_not_allowed"},
		{"GET", "/api/memory/some-id/recover", 405, "method_not_allowed"},
		{"PUT", "/api/memory/some-id", 405, "method_not_allowed"},
		{"GET", "/api/memory/forget", 404, core.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := e.Do(t, c.method, c.path, nil, nil).WantErr(t, c.status, c.code)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("Content-Type = %q", r.Header.Get("Content-Type"))
			}
			if c.status == 405 && r.Header.Get("Allow") == "" {
				t.Fatalf("405 without Allow header")
			}
		})
	}
}

// ---------------------------------------------------------------------------
// remember
// ---------------------------------------------------------------------------

const deployFact = "The deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod."

func TestRememberMinimal(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	r := e.Remember(t, deployFact)
	if r.Str("type") != "fact" || r.Num("importance") != 0.8 || r.Bool("pinned") || r.Bool("deduped") {
		t.Fatalf("remember: %s", r)
	}
	if tags, ok := r.JSON["tags"].([]any); !ok || len(tags) != 0 {
		t.Fatalf("tags = %#v, want an empty JSON array", r.JSON["tags"])
	}
	if r.Str("content") != deployFact || r.Str("source_type") != "manual" || r.Num("version") != 1 {
		t.Fatalf("remember: %s", r)
	}
	if _, ok := r.JSON["embedded"].(bool); !ok {
		t.Fatalf("embedded missing: %s", r)
	}
	if r.Str("created_at") != storage.FormatTime(apitest.ClockStart) {
		t.Fatalf("created_at = %q, want the service clock %q", r.Str("created_at"), storage.FormatTime(apitest.ClockStart))
	}
	g := e.Get(t, "/api/memory/"+r.Str("id")).Want(t, http.StatusOK)
	if g.Str("content") != deployFact || g.Bool("is_deleted") {
		t.Fatalf("get: %s", g)
	}
	hist := e.HistoryEvents(t, r.Str("id"))
	if got := apitest.EventNames(hist); !slices.Equal(got, []string{"created"}) {
		t.Fatalf("history = %v, want [created]", got)
	}
	if hist[0]["newContent"] != deployFact {
		t.Fatalf("created event newContent = %v", hist[0]["newContent"])
	}
	// A body without a Content-Type is refused: a browser sends a Blob that
	// way without a preflight (guard.go).
	before := e.State(t)
	e.Do(t, "POST", "/api/memory/remember", `{"content":"no content type header test"}`, http.Header{"Content-Type": nil}).
		WantErr(t, http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedMediaType)
	e.Unchanged(t, before)
}

func TestRememberDedupByHash(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, deployFact)
	before := e.State(t)
	variants := []string{
		deployFact,
		"  the DEPLOY script for project atlas lives in   tools/deploy.sh and needs AWS_PROFILE=prod.  ",
		"The deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod",
		"The deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod!?;:",
		"THE DEPLOY SCRIPT FOR PROJECT ATLAS LIVES IN TOOLS/DEPLOY.SH AND NEEDS AWS_PROFILE=PROD.",
		"The\tdeploy\nscript for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod...",
	}
	for i, v := range variants {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			r := e.Remember(t, v)
			if r.Str("id") != id || !r.Bool("deduped") {
				t.Fatalf("variant %q: want deduped to %s, got %s", v, id, r)
			}
			if r.Str("content") != deployFact {
				t.Fatalf("deduped answer should carry the stored content, got %q", r.Str("content"))
			}
		})
	}
	// Stated again, the memory is reinforced: no new row, one
	// "reinforced" event per statement.
	noHistory := regexp.MustCompile(` history=\d+`)
	if after := e.State(t); noHistory.ReplaceAllString(after, "") != noHistory.ReplaceAllString(before, "") {
		t.Fatalf("dedup changed the memories:\nbefore %s\nafter  %s", before, after)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'reinforced'`, id); n != len(variants) {
		t.Fatalf("reinforced events = %d, want %d", n, len(variants))
	}
	if n := e.Count(t, `SELECT reinforced_count FROM memories WHERE id = ?`, id); n != len(variants) {
		t.Fatalf("reinforced_count = %d, want %d", n, len(variants))
	}

	// A different project is a different memory.
	r := e.Remember(t, deployFact, "project", "other")
	if r.Str("id") == id || r.Bool("deduped") {
		t.Fatalf("same content in another project should not dedupe: %s", r)
	}
	// A deleted memory does not dedupe a new one.
	e.Del(t, id, map[string]any{"reason": "test"}).Want(t, http.StatusOK)
	r = e.Remember(t, deployFact)
	if r.Str("id") == id || r.Bool("deduped") {
		t.Fatalf("content of a deleted memory should be stored anew: %s", r)
	}
}

func TestRememberDedupBySource(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	first := e.Remember(t, "User prefers bun over npm for TypeScript projects.",
		"who", "bench", "project", "atlas", "importance", 0.9, "tags", "tooling,preference",
		"pinned", true, "sourceType", "bench", "sourceId", "bench-1")
	if first.Str("type") != "preference" || first.Num("importance") != 0.9 || !first.Bool("pinned") ||
		first.Str("who") != "bench" || first.Str("project") != "atlas" ||
		first.Str("source_type") != "bench" || first.Str("source_id") != "bench-1" ||
		!slices.Equal(apitest.Strs(first.JSON["tags"]), []string{"tooling", "preference"}) {
		t.Fatalf("all optional fields: %s", first)
	}
	before := e.State(t)
	for _, body := range []map[string]any{
		{"content": "Completely different text but same source id.", "sourceType": "bench", "sourceId": "bench-1", "project": "atlas"},
		{"content": "Completely different text again.", "source_type": "bench", "source_id": "bench-1", "project": "atlas"},
	} {
		r := e.Post(t, "/api/memory/remember", body).Want(t, http.StatusOK)
		if r.Str("id") != first.Str("id") || !r.Bool("deduped") || r.Str("content") != first.Str("content") {
			t.Fatalf("dedupe by source: %s", r)
		}
	}
	e.Unchanged(t, before)
	// The same source in another project is that project's memory, never
	// an answer with atlas's; an idempotency key is refused there.
	other := e.Post(t, "/api/memory/remember", map[string]any{"content": "Another project's note.", "source_type": "bench", "source_id": "bench-1", "project": "zephyr"}).Want(t, http.StatusOK)
	if other.Str("id") == first.Str("id") || other.Bool("deduped") || other.Str("project") != "zephyr" {
		t.Fatalf("same source, other project: %s", other)
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": "keyed note", "idempotency_key": "k-atlas-1", "project": "atlas"}).Want(t, http.StatusOK)
	e.Post(t, "/api/memory/remember", map[string]any{"content": "keyed note elsewhere", "idempotency_key": "k-atlas-1", "project": "zephyr"}).
		WantErr(t, http.StatusConflict, core.CodeVersionConflict)
	// Same source id under another source type is a different memory.
	r := e.Remember(t, "Completely different text but same source id.", "sourceType", "other", "sourceId", "bench-1")
	if r.Str("id") == first.Str("id") || r.Bool("deduped") {
		t.Fatalf("another source type should not dedupe: %s", r)
	}
}

func TestRememberPrefixes(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	cases := []struct {
		name       string
		content    string
		wantBody   string
		wantTags   []string
		wantPinned bool
		wantImp    float64
		wantType   string
		wantWhy    string
	}{
		{"critical", "critical: never commit secrets to git", "never commit secrets to git", []string{}, true, 1, "rule", "explicit-critical"},
		{"critical upper case", "CRITICAL:   always run the linter", "always run the linter", []string{}, true, 1, "rule", "explicit-critical"},
		{"tags", "[infra,db]: postgres runs on port 5433 in staging", "postgres runs on port 5433 in staging", []string{"infra", "db"}, false, 0.8, "fact", "explicit"},
		{"tags lower-cased", "[Infra, DB ,infra]: redis listens on 6380", "redis listens on 6380", []string{"infra", "db"}, false, 0.8, "fact", "explicit"},
		{"both", "critical: [project,auth]: never expose tokens", "never expose tokens", []string{"project", "auth"}, true, 1, "rule", "explicit-critical"},
		{"leading space", "   critical:[a]:we decided to use WAL", "we decided to use WAL", []string{"a"}, true, 1, "decision", "explicit-critical"},
		{"not a prefix", "the critical: part is in the middle", "the critical: part is in the middle", []string{}, false, 0.8, "fact", "explicit"},
		{"tags without colon", "[a,b] stays in the body", "[a,b] stays in the body", []string{}, false, 0.8, "fact", "explicit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Remember(t, c.content)
			if r.Str("content") != c.wantBody {
				t.Errorf("content = %q, want %q", r.Str("content"), c.wantBody)
			}
			if got := apitest.Strs(r.JSON["tags"]); !slices.Equal(got, c.wantTags) {
				t.Errorf("tags = %q, want %q", got, c.wantTags)
			}
			if r.Bool("pinned") != c.wantPinned || r.Num("importance") != c.wantImp {
				t.Errorf("pinned/importance = %v/%v, want %v/%v", r.Bool("pinned"), r.Num("importance"), c.wantPinned, c.wantImp)
			}
			if r.Str("type") != c.wantType || r.Str("why") != c.wantWhy {
				t.Errorf("type/why = %q/%q, want %q/%q", r.Str("type"), r.Str("why"), c.wantType, c.wantWhy)
			}
		})
	}
	t.Run("critical alone", func(t *testing.T) {
		for _, c := range []string{"critical:", "  critical:   ", "critical: [a,b]:", "[a]:  "} {
			before := e.State(t)
			e.Post(t, "/api/memory/remember", map[string]any{"content": c}).WantInvalid(t, "content", "content is required")
			e.Unchanged(t, before)
		}
	})
}

func TestRememberTypeInference(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	cases := map[string]string{
		"User prefers tabs over spaces": "preference",
		"We decided to use SQLite with WAL mode instead of Postgres for the local cache.": "decision",
		"I learned that the cache is per user":                                            "learning",
		"There is a bug in the login form":                                                "issue",
		"Never push directly to main":                                                     "rule",
		"The office is on the third floor":                                                "fact",
		"til that go vet catches printf mistakes":                                         "learning",
		"The user wants a bug fix that must always work":                                  "preference", // first rule wins
	}
	for content, want := range cases {
		if got := e.Remember(t, content).Str("type"); got != want {
			t.Errorf("%q: type = %q, want %q", content, got, want)
		}
	}
}

func TestRememberExplicitFieldsWin(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	r := e.Remember(t, "critical: [pfx]: we decided to never use tabs",
		"type", "note", "importance", 0.3, "tags", []string{"Explicit", "two"}, "pinned", false)
	if r.Str("type") != "note" || r.Num("importance") != 0.3 || r.Bool("pinned") ||
		!slices.Equal(apitest.Strs(r.JSON["tags"]), []string{"Explicit", "two"}) {
		t.Fatalf("explicit fields should win over prefixes and inference: %s", r)
	}
	if r.Str("content") != "we decided to never use tabs" {
		t.Fatalf("prefixes should still be stripped: %q", r.Str("content"))
	}
	// Explicit pinned true without critical keeps the default importance.
	r = e.Remember(t, "plain text pinned explicitly", "pinned", true)
	if !r.Bool("pinned") || r.Num("importance") != 0.8 {
		t.Fatalf("explicit pinned: %s", r)
	}
	// Explicit importance with critical: overrides the 1.0.
	r = e.Remember(t, "critical: explicit importance wins", "importance", 0)
	if !r.Bool("pinned") || r.Num("importance") != 0 {
		t.Fatalf("explicit importance 0 with critical: %s", r)
	}
}

func TestRememberTags(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	cases := []struct {
		tags any
		want []string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{"tooling, preference", []string{"tooling", "preference"}},
		{"a,,b, ,A", []string{"a", "b"}},
		{[]string{" spaced  tag ", "x"}, []string{"spaced tag", "x"}},
		{"", []string{}},
		{[]string{}, []string{}},
	}
	for i, c := range cases {
		r := e.Remember(t, fmt.Sprintf("tags case %d", i), "tags", c.tags)
		if got := apitest.Strs(r.JSON["tags"]); !slices.Equal(got, c.want) {
			t.Errorf("tags %#v: got %q, want %q", c.tags, got, c.want)
		}
		if _, ok := r.JSON["tags"].([]any); !ok {
			t.Errorf("tags %#v: not a JSON array: %s", c.tags, r)
		}
		g := e.Get(t, "/api/memory/"+r.Str("id")).Want(t, http.StatusOK)
		if got := apitest.Strs(g.JSON["tags"]); !slices.Equal(got, c.want) {
			t.Errorf("tags %#v after GET: got %q, want %q", c.tags, got, c.want)
		}
	}
}

func TestRememberCamelCaseAliases(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	r := e.Post(t, "/api/memory/remember", map[string]any{
		"content": "aliases are accepted", "sourceType": "hook", "sourceId": "h-1", "sessionId": "s-9",
		"changedBy": "camel-actor", "idempotencyKey": "idem-1",
	}).Want(t, http.StatusOK)
	if r.Str("source_type") != "hook" || r.Str("source_id") != "h-1" || r.Str("session_id") != "s-9" ||
		r.Str("idempotency_key") != "idem-1" {
		t.Fatalf("camelCase aliases: %s", r)
	}
	hist := e.HistoryEvents(t, r.Str("id"))
	if hist[0]["changedBy"] != "camel-actor" {
		t.Fatalf("changedBy alias: history actor = %v", hist[0]["changedBy"])
	}
	// Same idempotency key returns the first memory.
	r2 := e.Post(t, "/api/memory/remember", map[string]any{"content": "other text", "idempotency_key": "idem-1"}).Want(t, http.StatusOK)
	if r2.Str("id") != r.Str("id") || !r2.Bool("deduped") {
		t.Fatalf("idempotency key: %s", r2)
	}
}

// A 200 from remember names a memory the caller can read back. Replaying an
// idempotency key whose memory was deleted must not answer 200 with an id
// that GET reports as not found (and silently drop the new content).
func TestRememberIdempotencyKeyOfDeletedMemory(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "first use of the key", "idempotency_key", "K")
	e.Del(t, id, map[string]any{"reason": "r"}).Want(t, http.StatusOK)
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "fresh content under the same key", "idempotency_key": "K"})
	if r.Status != http.StatusOK {
		r.WantErr(t, r.Status, r.Str("code")) // a clear 4xx is acceptable
		return
	}
	if g := e.Get(t, "/api/memory/"+r.Str("id")); g.Status != http.StatusOK {
		t.Errorf("BUG: remember answered 200 deduped=%v with id %s (is_deleted=%v), but GET says %d: the new content was not stored and the answer names a deleted memory",
			r.Bool("deduped"), r.Str("id"), r.JSON["is_deleted"], g.Status)
	}
}

func TestRememberRejects(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	e.MustID(t, "an existing memory so the store is not empty")
	type row struct {
		name   string
		body   apitest.RawBody
		status int
		code   string
		field  string
	}
	cases := []row{
		{"invalid JSON", apitest.RawBody(`{not json`), 400, core.CodeInvalidJSON, ""},
		{"empty body", apitest.RawBody(``), 400, core.CodeInvalidJSON, ""},
		{"whitespace body", apitest.RawBody(" \n\t"), 400, core.CodeInvalidJSON, ""},
		{"JSON array", apitest.RawBody(`[1,2]`), 400, core.CodeInvalidJSON, ""},
		{"JSON string", apitest.RawBody(`"content"`), 400, core.CodeInvalidJSON, ""},
		{"JSON number", apitest.RawBody(`42`), 400, core.CodeInvalidJSON, ""},
		{"null body", apitest.RawBody(`null`), 400, core.CodeInvalidJSON, ""},
		{"trailing garbage", apitest.RawBody(`{"content":"x"} {}`), 400, core.CodeInvalidJSON, ""},
		{"invalid UTF-8 in string", apitest.RawBody("{\"content\":\"bad \xff\xfe bytes\"}"), 400, core.CodeInvalidJSON, ""},
		{"invalid UTF-8 outside string", apitest.RawBody("{\"content\":\"ok\"}\xc3"), 400, core.CodeInvalidJSON, ""},
		{"empty object", apitest.RawBody(`{}`), 400, core.CodeInvalidRequest, "content"},
		{"content null", apitest.RawBody(`{"content":null}`), 400, core.CodeInvalidRequest, "content"},
		{"content number", apitest.RawBody(`{"content":12345}`), 400, core.CodeInvalidRequest, "content"},
		{"content bool", apitest.RawBody(`{"content":true}`), 400, core.CodeInvalidRequest, "content"},
		{"content array", apitest.RawBody(`{"content":["a"]}`), 400, core.CodeInvalidRequest, "content"},
		{"content empty", apitest.RawBody(`{"content":""}`), 400, core.CodeInvalidRequest, "content"},
		{"content whitespace", apitest.RawBody(`{"content":"   \n\t "}`), 400, core.CodeInvalidRequest, "content"},
		{"content JS whitespace", apitest.RawBody(`{"content":"\u00a0\u2003\ufeff\u3000"}`), 400, core.CodeInvalidRequest, "content"},
		{"importance 5", apitest.RawBody(`{"content":"importance out of range test","importance":5}`), 400, core.CodeInvalidRequest, "importance"},
		{"importance -0.1", apitest.RawBody(`{"content":"importance out of range test","importance":-0.1}`), 400, core.CodeInvalidRequest, "importance"},
		{"importance high", apitest.RawBody(`{"content":"importance string test","importance":"high"}`), 400, core.CodeInvalidRequest, "importance"},
		{"importance numeric string", apitest.RawBody(`{"content":"importance string test","importance":"0.5"}`), 400, core.CodeInvalidRequest, "importance"},
		{"confidence 2", apitest.RawBody(`{"content":"confidence test","confidence":2}`), 400, core.CodeInvalidRequest, "confidence"},
		{"pinned maybe", apitest.RawBody(`{"content":"pinned test","pinned":"maybe"}`), 400, core.CodeInvalidRequest, "pinned"},
		{"tags number", apitest.RawBody(`{"content":"tags test","tags":5}`), 400, core.CodeInvalidRequest, "tags"},
		{"tags mixed array", apitest.RawBody(`{"content":"tags test","tags":["a",1]}`), 400, core.CodeInvalidRequest, "tags"},
		{"tags object", apitest.RawBody(`{"content":"tags test","tags":{"a":1}}`), 400, core.CodeInvalidRequest, "tags"},
		{"type number", apitest.RawBody(`{"content":"type test","type":7}`), 400, core.CodeInvalidRequest, "type"},
		{"type blank", apitest.RawBody(`{"content":"type test","type":"   "}`), 400, core.CodeInvalidRequest, "type"},
		{"who number", apitest.RawBody(`{"content":"who test","who":1}`), 400, core.CodeInvalidRequest, "who"},
		{"sourceId object", apitest.RawBody(`{"content":"source test","sourceId":{}}`), 400, core.CodeInvalidRequest, "sourceId"},
		{"project array", apitest.RawBody(`{"content":"project test","project":["a"]}`), 400, core.CodeInvalidRequest, "project"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/api/memory/remember", "/api/memory/save"} {
				before := e.State(t)
				r := e.Post(t, path, c.body).WantErr(t, c.status, c.code)
				if c.field != "" && r.Str("field") != c.field {
					t.Fatalf("%s: field = %q, want %q", path, r.Str("field"), c.field)
				}
				e.Unchanged(t, before)
			}
		})
	}
}

func TestRememberTooLarge(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	before := e.State(t)
	// 1 MB of content fits in server.max_body_bytes (1 MiB) but is far over
	// guardrails.max_remember_chars (65536): 413, nothing stored.
	big := strings.Repeat("word ", 200_000)
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": big}).WantErr(t, http.StatusRequestEntityTooLarge, core.CodeTooLarge)
	if r.Str("field") != "content" {
		t.Fatalf("field = %q", r.Str("field"))
	}
	e.Unchanged(t, before)
	// Just over the limit, in characters not bytes.
	over := strings.Repeat("é", 65537)
	e.Post(t, "/api/memory/remember", map[string]any{"content": over}).WantErr(t, http.StatusRequestEntityTooLarge, core.CodeTooLarge)
	e.Unchanged(t, before)
	// A body over server.max_body_bytes is refused before it is parsed.
	huge := `{"content":"` + strings.Repeat("x", 1<<20) + `"}`
	e.Post(t, "/api/memory/remember", apitest.RawBody(huge)).WantErr(t, http.StatusRequestEntityTooLarge, core.CodeTooLarge)
	e.Unchanged(t, before)
	// Exactly the limit in characters is accepted (and chunked).
	at := strings.TrimSpace(strings.Repeat("Short sentence here. ", 65536/21))
	if n := len([]rune(at)); n > 65536 {
		t.Fatalf("test content too long: %d", n)
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": at}).Want(t, http.StatusOK)
}

func TestRememberExactlyMaxContentIsNotChunked(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	c := strings.Repeat("x", 499) + "y"
	r := e.Remember(t, c)
	if r.Bool("chunked") || r.Str("content") != c {
		t.Fatalf("500 chars should be one memory: %s", r)
	}
}

// tenKB builds ~10 KB of distinct sentences, like Signet's captured example.
func tenKB() (string, []string) {
	var b strings.Builder
	var sentences []string
	for i := 0; b.Len() < 10_000; i++ {
		s := fmt.Sprintf("Sentence number %d talks about the huge content test and chunking behaviour.", i)
		sentences = append(sentences, s)
		b.WriteString(s + " ")
	}
	return b.String(), sentences
}

func TestRememberChunking(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	content, sentences := tenKB()
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": content, "tags": "big", "project": "p"}).Want(t, http.StatusOK)
	if !r.Bool("chunked") {
		t.Fatalf("~10 KB should be chunked: %s", r)
	}
	ids := apitest.Strs(r.JSON["ids"])
	group := r.Str("group_id")
	if int(r.Num("chunk_count")) != len(ids) || len(ids) < 20 || group == "" {
		t.Fatalf("chunk_count %v, %d ids, group %q", r.Num("chunk_count"), len(ids), group)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		t.Fatalf("ids are not distinct: %v", ids)
	}
	var joined []string
	for _, id := range ids {
		g := e.Get(t, "/api/memory/"+id).Want(t, http.StatusOK)
		if g.Str("source_type") != "chunk" || g.Str("source_id") != group {
			t.Fatalf("chunk %s: source %q/%q, want chunk/%s", id, g.Str("source_type"), g.Str("source_id"), group)
		}
		if n := len([]rune(g.Str("content"))); n == 0 || n > 600 {
			t.Fatalf("chunk %s has %d characters", id, n)
		}
		if !slices.Equal(apitest.Strs(g.JSON["tags"]), []string{"big"}) || g.Str("project") != "p" {
			t.Fatalf("chunk %s lost the request's fields: %s", id, g)
		}
		if got := apitest.EventNames(e.HistoryEvents(t, id)); !slices.Equal(got, []string{"created"}) {
			t.Fatalf("chunk %s history = %v", id, got)
		}
		joined = append(joined, g.Str("content"))
	}
	if strings.Join(joined, " ") != strings.Join(sentences, " ") {
		t.Fatalf("chunks do not reassemble the content")
	}
	list := e.Get(t, "/api/memories?source_type=chunk&limit=1000").Want(t, http.StatusOK)
	if int(list.Num("total")) != len(ids) {
		t.Fatalf("list by source_type=chunk: total %v, want %d", list.Num("total"), len(ids))
	}
}

// Repeated sentences produce identical chunks. Signet answers with the
// distinct chunks (its 11 MB repeated-sentence capture has chunk_count 2);
// ids must at least not repeat, and chunk_count must match them.
func TestRememberChunkingRepeatedSentences(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	content := strings.Repeat("This is a sentence in a very large memory. ", 60) // 2580 chars
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": content}).Want(t, http.StatusOK)
	ids := apitest.Strs(r.JSON["ids"])
	distinct := slices.Compact(slices.Sorted(slices.Values(ids)))
	if int(r.Num("chunk_count")) != len(ids) {
		t.Fatalf("chunk_count %v but %d ids", r.Num("chunk_count"), len(ids))
	}
	if len(distinct) != len(ids) {
		t.Errorf("BUG: chunked remember returns the same id several times (%d ids, %d distinct): %v", len(ids), len(distinct), ids)
	}
	if rows := e.Count(t, `SELECT count(*) FROM memories`); rows != len(distinct) {
		t.Fatalf("%d rows stored, %d distinct ids", rows, len(distinct))
	}
}

// An idempotency key on long content must not collapse every chunk onto the
// first one: the rest of the content would be silently lost.
func TestRememberChunkingWithIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	content, sentences := tenKB()
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": content, "idempotency_key": "idem-long"}).Want(t, http.StatusOK)
	ids := apitest.Strs(r.JSON["ids"])
	distinct := slices.Compact(slices.Sorted(slices.Values(ids)))
	var stored []string
	for _, id := range distinct {
		stored = append(stored, e.Get(t, "/api/memory/"+id).Want(t, http.StatusOK).Str("content"))
	}
	last := sentences[len(sentences)-1]
	if !strings.Contains(strings.Join(stored, " "), last) {
		t.Errorf("BUG: remember with idempotency_key and content over max_content_chars stored %d of %d chunks (ids %v); the content after the first chunk is lost",
			len(distinct), len(ids), ids)
	}
	// Replaying the same request must not store anything new.
	before := e.State(t)
	e.Post(t, "/api/memory/remember", map[string]any{"content": content, "idempotency_key": "idem-long"}).Want(t, http.StatusOK)
	e.Unchanged(t, before)
}

// ---------------------------------------------------------------------------
// reads: get, list, history
// ---------------------------------------------------------------------------

func TestGetMemory(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, deployFact)
	e.Get(t, "/api/memory/00000000-0000-0000-0000-000000000000").WantErr(t, 404, core.CodeNotFound)
	e.Get(t, "/api/memory/not-a-real-id").WantErr(t, 404, core.CodeNotFound)
	g := e.Get(t, "/api/memory/"+id).Want(t, http.StatusOK)
	for _, k := range []string{"id", "content", "type", "importance", "tags", "pinned", "source_type", "confidence",
		"access_count", "is_deleted", "extraction_status", "version", "created_at", "updated_at", "updated_by"} {
		if _, ok := g.JSON[k]; !ok {
			t.Errorf("GET lacks %q: %s", k, g)
		}
	}
	if g.JSON["pinned"] != false || g.JSON["is_deleted"] != false {
		t.Fatalf("booleans should be JSON booleans: %s", g)
	}
	e.Del(t, id, map[string]any{"reason": "gone"}).Want(t, http.StatusOK)
	e.Get(t, "/api/memory/"+id).WantErr(t, 404, core.CodeNotFound)
	e.Get(t, "/api/memory/"+id+"?include_deleted=false").WantErr(t, 404, core.CodeNotFound)
	d := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, http.StatusOK)
	if !d.Bool("is_deleted") || d.Str("deleted_at") == "" || d.Num("version") != 2 {
		t.Fatalf("include_deleted: %s", d)
	}
}

func TestListMemories(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	day := 24 * time.Hour
	// Day 0 (2026-03-01).
	a := e.MustID(t, "alpha fact about builds", "type", "fact", "tags", "build,ci", "who", "alice", "project", "atlas")
	e.Clock.Advance(day)
	// Day 1 (2026-03-02).
	b := e.MustID(t, "beta preference about editors", "type", "preference", "tags", "editor", "who", "bob", "project", "atlas", "pinned", true)
	e.Clock.Advance(day)
	// Day 2 (2026-03-03).
	c := e.MustID(t, "gamma rule about tests", "type", "rule", "tags", []string{"CI", "tests"}, "who", "alice", "project", "zeus")
	d := e.MustID(t, "delta deleted memory", "type", "fact", "tags", "build", "who", "alice", "project", "atlas")
	e.Del(t, d, map[string]any{"reason": "gone"}).Want(t, http.StatusOK)

	ids := func(r *apitest.Resp) []string {
		var out []string
		for _, m := range r.List(t, "memories") {
			out = append(out, m["id"].(string))
		}
		return out
	}
	cases := []struct {
		query string
		want  []string // newest first
	}{
		{"", []string{c, b, a}},
		{"?type=fact", []string{a}},
		{"?type=fact&include_deleted=true", []string{d, a}},
		{"?only_deleted=true", []string{d}},
		{"?tags=ci", []string{c, a}},
		{"?tags=build,ci", []string{a}},
		{"?tags=build&include_deleted=1", []string{d, a}},
		{"?who=alice", []string{c, a}},
		{"?project=atlas", []string{b, a}},
		{"?pinned=true", []string{b}},
		{"?pinned=false", []string{c, a}},
		{"?since=2026-03-02", []string{c, b}},
		{"?until=2026-03-02", []string{b, a}},
		{"?since=2026-03-02&until=2026-03-02", []string{b}},
		{"?since=2026-03-01T12:00:00.001Z", []string{c, b}},
		{"?importance_min=0.8", []string{c, b, a}},
		{"?source_type=manual", []string{c, b, a}},
		{"?who=nobody", nil},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.Get(t, "/api/memories"+tc.query).Want(t, http.StatusOK)
			if got := ids(r); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if int(r.Num("total")) != len(tc.want) || int(r.Num("count")) != len(tc.want) || r.Bool("hasMore") {
				t.Fatalf("total/count/hasMore: %s", r)
			}
			if _, ok := r.JSON["memories"].([]any); !ok {
				t.Fatalf("memories must be an array even when empty: %s", r)
			}
		})
	}
	t.Run("paging", func(t *testing.T) {
		p1 := e.Get(t, "/api/memories?limit=2").Want(t, http.StatusOK)
		if got := ids(p1); !slices.Equal(got, []string{c, b}) || !p1.Bool("hasMore") || p1.Num("total") != 3 || p1.Num("limit") != 2 {
			t.Fatalf("page 1: %s", p1)
		}
		p2 := e.Get(t, "/api/memories?limit=2&offset=2").Want(t, http.StatusOK)
		if got := ids(p2); !slices.Equal(got, []string{a}) || p2.Bool("hasMore") || p2.Num("offset") != 2 {
			t.Fatalf("page 2: %s", p2)
		}
		p3 := e.Get(t, "/api/memories?limit=2&offset=10").Want(t, http.StatusOK)
		if len(ids(p3)) != 0 || p3.Bool("hasMore") {
			t.Fatalf("past the end: %s", p3)
		}
		stats, _ := p1.JSON["stats"].(map[string]any)
		if stats["total"] != 3.0 || stats["deleted"] != 1.0 {
			t.Fatalf("stats = %v", stats)
		}
	})
	for _, bad := range []struct{ q, field string }{
		{"limit=0", "limit"}, {"limit=-1", "limit"}, {"limit=abc", "limit"}, {"limit=1001", "limit"}, {"limit=1.5", "limit"},
		{"offset=-1", "offset"}, {"offset=x", "offset"},
		{"pinned=maybe", "pinned"}, {"since=yesterday", "since"}, {"until=2026-13-45", "until"},
		{"importance_min=2", "importance_min"}, {"importance_min=abc", "importance_min"},
	} {
		t.Run("bad "+bad.q, func(t *testing.T) {
			e.Get(t, "/api/memories?"+bad.q).WantInvalid(t, bad.field, "")
		})
	}
}

func TestMemoryHistory(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	as := func(actor, typ, req, sess string) http.Header {
		return apitest.Hdr("X-Cairn-Actor", actor, "X-Cairn-Actor-Type", typ, "X-Request-Id", req, "X-Cairn-Session-Id", sess)
	}
	r := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "history subject"}, as("alice", "agent", "req-1", "sess-1")).Want(t, 200)
	id := r.Str("id")
	if r.Header.Get("X-Request-Id") != "req-1" {
		t.Fatalf("X-Request-Id not echoed: %q", r.Header.Get("X-Request-Id"))
	}
	e.Clock.Advance(time.Minute)
	e.Do(t, "PATCH", "/api/memory/"+id, map[string]any{"content": "history subject, edited", "reason": "fix wording", "if_version": 1},
		as("bob", "harness", "req-2", "sess-2")).Want(t, 200)
	e.Clock.Advance(time.Minute)
	e.Do(t, "DELETE", "/api/memory/"+id, map[string]any{"reason": "obsolete"}, as("carol", "operator", "req-3", "sess-3")).Want(t, 200)
	e.Clock.Advance(time.Minute)
	e.Do(t, "POST", "/api/memory/"+id+"/recover", map[string]any{"reason": "mistake"}, as("dave", "sdk", "req-4", "sess-4")).Want(t, 200)

	h := e.Get(t, "/api/memory/"+id+"/history").Want(t, 200)
	if h.Str("memoryId") != id || h.Num("count") != 4 {
		t.Fatalf("history: %s", h)
	}
	hist := h.List(t, "history")
	want := []struct{ event, actor, typ, reason, req, sess string }{
		{"created", "alice", "agent", "remember", "req-1", "sess-1"},
		{"updated", "bob", "harness", "fix wording", "req-2", "sess-2"},
		{"deleted", "carol", "operator", "obsolete", "req-3", "sess-3"},
		{"recovered", "dave", "sdk", "mistake", "req-4", "sess-4"},
	}
	for i, w := range want {
		got := hist[i]
		if got["event"] != w.event || got["changedBy"] != w.actor || got["actorType"] != w.typ ||
			got["reason"] != w.reason || got["requestId"] != w.req || got["sessionId"] != w.sess || got["memoryId"] != id {
			t.Errorf("event %d = %v, want %+v", i, got, w)
		}
	}
	if hist[1]["oldContent"] != "history subject" || hist[1]["newContent"] != "history subject, edited" {
		t.Errorf("updated event content: %v", hist[1])
	}
	meta, _ := hist[1]["metadata"].(map[string]any)
	if meta["contentChanged"] != true || meta["ifVersion"] != 1.0 || !slices.Equal(apitest.Strs(meta["changedFields"]), []string{"content"}) {
		t.Errorf("updated metadata = %v", meta)
	}
	if meta, _ := hist[2]["metadata"].(map[string]any); meta["force"] != false {
		t.Errorf("deleted metadata = %v", meta)
	}
	// Oldest first by time, not by insertion luck.
	for i := 1; i < len(hist); i++ {
		if hist[i]["createdAt"].(string) < hist[i-1]["createdAt"].(string) {
			t.Errorf("history not oldest first: %v", apitest.EventNames(hist))
		}
	}
	if !slices.Equal(apitest.EventNames(e.Get(t, "/api/memory/"+id+"/history?limit=2").Want(t, 200).List(t, "history")), []string{"created", "updated"}) {
		t.Errorf("history limit=2 should keep the oldest two")
	}
	nf := e.Get(t, "/api/memory/00000000-0000-0000-0000-000000000000/history").WantErr(t, 404, core.CodeNotFound)
	if nf.Str("memoryId") != "00000000-0000-0000-0000-000000000000" {
		t.Errorf("404 should name memoryId: %s", nf)
	}
	e.Get(t, "/api/memory/"+id+"/history?limit=0").WantInvalid(t, "limit", "")
	e.Get(t, "/api/memory/"+id+"/history?limit=1001").WantInvalid(t, "limit", "")

	// Signet spells the headers x-signet-*; they work too.
	r = e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "signet headers"},
		apitest.Hdr("X-Signet-Actor", "sig", "X-Signet-Actor-Type", "pipeline", "X-Signet-Session-Id", "sig-sess")).Want(t, 200)
	got := e.HistoryEvents(t, r.Str("id"))[0]
	if got["changedBy"] != "sig" || got["actorType"] != "pipeline" || got["sessionId"] != "sig-sess" {
		t.Errorf("x-signet-* headers: %v", got)
	}
	// Unknown actor types fall back to operator; no actor is "api".
	r = e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "unknown actor type"}, apitest.Hdr("X-Cairn-Actor-Type", "robot")).Want(t, 200)
	if got := e.HistoryEvents(t, r.Str("id"))[0]; got["actorType"] != "operator" || got["changedBy"] != "api" {
		t.Errorf("defaults: %v", got)
	}
}

// The request id is accepted as X-Request-Id, X-Cairn-Request-Id or
// X-Signet-Request-Id and echoed back; whichever header carried it, it must
// be the one recorded in memory_history (Signet stores x-signet-request-id).
func TestHistoryRequestIDHeaderAliases(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	for i, name := range []string{"X-Request-Id", "X-Cairn-Request-Id", "X-Signet-Request-Id"} {
		t.Run(name, func(t *testing.T) {
			reqID := fmt.Sprintf("rid-%d", i)
			r := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "request id via " + name}, apitest.Hdr(name, reqID)).Want(t, 200)
			if r.Header.Get("X-Request-Id") != reqID {
				t.Fatalf("echoed X-Request-Id = %q, want %q", r.Header.Get("X-Request-Id"), reqID)
			}
			if got := e.HistoryEvents(t, r.Str("id"))[0]["requestId"]; got != reqID {
				t.Errorf("BUG: request id sent as %s is echoed but history.requestId = %v, want %q", name, got, reqID)
			}
		})
	}
	// Without any header the generated id is recorded.
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "generated request id"}).Want(t, 200)
	if got := e.HistoryEvents(t, r.Str("id"))[0]["requestId"]; got == nil || got != r.Header.Get("X-Request-Id") {
		t.Errorf("generated request id %q, history has %v", r.Header.Get("X-Request-Id"), got)
	}
}

func TestGlobalHistory(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	a := e.MustID(t, "global history one")
	e.Clock.Advance(time.Second)
	b := e.MustID(t, "global history two")
	e.Clock.Advance(time.Second)
	e.Del(t, a, map[string]any{"reason": "r"}).Want(t, 200)
	h := e.Get(t, "/api/history").Want(t, 200)
	hist := h.List(t, "history")
	if h.Num("count") != 3 || hist[0]["event"] != "deleted" || hist[2]["memoryId"] != a {
		t.Fatalf("global history newest first: %s", h)
	}
	if got := e.Get(t, "/api/history?memory_id="+b).Want(t, 200).Num("count"); got != 1 {
		t.Errorf("memory_id filter: %v", got)
	}
	if got := e.Get(t, "/api/history?event=deleted").Want(t, 200).Num("count"); got != 1 {
		t.Errorf("event filter: %v", got)
	}
	if got := e.Get(t, "/api/history?actor=api").Want(t, 200).Num("count"); got != 3 {
		t.Errorf("actor filter: %v", got)
	}
	if got := e.Get(t, "/api/history?before="+storage.FormatTime(apitest.ClockStart.Add(time.Second))).Want(t, 200).Num("count"); got != 1 {
		t.Errorf("before filter: %v", got)
	}
	if got := e.Get(t, "/api/history?limit=1").Want(t, 200).Num("count"); got != 1 {
		t.Errorf("limit: %v", got)
	}
	e.Get(t, "/api/history?limit=0").WantInvalid(t, "limit", "")
	e.Get(t, "/api/history?before=soon").WantInvalid(t, "before", "")
}

// ---------------------------------------------------------------------------
// PATCH
// ---------------------------------------------------------------------------

func TestPatchValidation(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "patch validation subject")
	cases := []struct {
		name, body, field, msg string
	}{
		{"missing reason", `{"importance":0.4}`, "reason", "reason is required"},
		{"blank reason", `{"importance":0.4,"reason":"  "}`, "reason", "reason is required"},
		{"reason number", `{"importance":0.4,"reason":5}`, "reason", "reason must be a string"},
		{"nothing to change", `{"reason":"r"}`, "patch", "at least one of content, type, tags, importance, pinned"},
		{"only nulls", `{"reason":"r","content":null,"importance":null,"pinned":null}`, "patch", "at least one of"},
		{"if_version 0", `{"reason":"r","importance":0.4,"if_version":0}`, "if_version", "if_version must be a positive integer"},
		{"if_version -1", `{"reason":"r","importance":0.4,"if_version":-1}`, "if_version", "if_version must be a positive integer"},
		{"if_version abc", `{"reason":"r","importance":0.4,"if_version":"abc"}`, "if_version", "if_version must be a positive integer"},
		{"if_version 1.5", `{"reason":"r","importance":0.4,"if_version":1.5}`, "if_version", "if_version must be a positive integer"},
		{"if_version true", `{"reason":"r","importance":0.4,"if_version":true}`, "if_version", "if_version must be a positive integer"},
		{"ifVersion 0", `{"reason":"r","importance":0.4,"ifVersion":0}`, "if_version", "if_version must be a positive integer"},
		{"if_version huge", `{"reason":"r","importance":0.4,"if_version":1e300}`, "if_version", "if_version must be a positive integer"},
		{"content number", `{"reason":"r","content":5}`, "content", "content must be a string"},
		{"content object", `{"reason":"r","content":{}}`, "content", "content must be a string"},
		{"content empty", `{"reason":"r","content":""}`, "content", "content must not be empty"},
		{"content whitespace", `{"reason":"r","content":" \n\t "}`, "content", "content must not be empty"},
		{"type empty", `{"reason":"r","type":""}`, "type", "type must be a non-empty string"},
		{"type blank", `{"reason":"r","type":"   "}`, "type", "type must be a non-empty string"},
		{"type number", `{"reason":"r","type":3}`, "type", "type must be"},
		{"tags number", `{"reason":"r","tags":5}`, "tags", "tags must be a string, string array, or null"},
		{"tags numbers", `{"reason":"r","tags":[1,2]}`, "tags", "tags must be a string, string array, or null"},
		{"tags object", `{"reason":"r","tags":{"a":"b"}}`, "tags", "tags must be a string, string array, or null"},
		{"importance 1.5", `{"reason":"r","importance":1.5}`, "importance", "importance must be a finite number between 0 and 1"},
		{"importance -0.1", `{"reason":"r","importance":-0.1}`, "importance", "importance must be a finite number between 0 and 1"},
		{"importance string", `{"reason":"r","importance":"high"}`, "importance", "importance must be a finite number between 0 and 1"},
		{"pinned string", `{"reason":"r","pinned":"maybe"}`, "pinned", "pinned must be a boolean"},
		{"pinned number", `{"reason":"r","pinned":2}`, "pinned", "pinned must be a boolean"},
		{"pinned object", `{"reason":"r","pinned":{}}`, "pinned", "pinned must be a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.State(t)
			e.Patch(t, id, apitest.RawBody(c.body)).WantInvalid(t, c.field, c.msg)
			e.Unchanged(t, before)
		})
	}
	for _, c := range []struct{ name, body string }{
		{"invalid JSON", `{"reason":`}, {"empty body", ``}, {"null body", `null`}, {"array body", `[{"reason":"r"}]`},
		{"invalid UTF-8", "{\"reason\":\"r\",\"content\":\"\xff\"}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.State(t)
			e.Patch(t, id, apitest.RawBody(c.body)).WantErr(t, 400, core.CodeInvalidJSON)
			e.Unchanged(t, before)
		})
	}
}

func TestPatchOutcomes(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, deployFact)
	other := e.MustID(t, "A different memory that already exists.")

	t.Run("unknown id", func(t *testing.T) {
		before := e.State(t)
		r := e.Patch(t, "00000000-0000-0000-0000-000000000000", map[string]any{"importance": 0.4, "reason": "bench"}).WantErr(t, 404, core.CodeNotFound)
		if r.Str("status") != "not_found" || r.Str("id") != "00000000-0000-0000-0000-000000000000" {
			t.Fatalf("not found: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("no changes", func(t *testing.T) {
		before := e.State(t)
		// Whitespace-only differences are not content changes.
		r := e.Patch(t, id, map[string]any{"importance": 0.8, "content": "  " + strings.ReplaceAll(deployFact, " ", "   ") + "\n",
			"type": "fact", "tags": []string{}, "pinned": false, "reason": "noop"}).Want(t, 200)
		if r.Str("status") != "no_changes" || r.Str("id") != id || r.Num("currentVersion") != 1 {
			t.Fatalf("no_changes: %s", r)
		}
		e.Unchanged(t, before)
	})
	var v int
	t.Run("updated", func(t *testing.T) {
		cur := e.Get(t, "/api/memory/"+id).Want(t, 200)
		v = int(cur.Num("version"))
		e.Clock.Advance(time.Hour)
		r := e.Patch(t, id, map[string]any{"importance": 0.4, "reason": "bench", "if_version": v}).Want(t, 200)
		if r.Str("status") != "updated" || r.Num("currentVersion") != float64(v) || r.Num("newVersion") != float64(v+1) || r.JSON["contentChanged"] != false {
			t.Fatalf("updated: %s", r)
		}
		g := e.Get(t, "/api/memory/"+id).Want(t, 200)
		if g.Num("importance") != 0.4 || g.Num("version") != float64(v+1) || g.Num("update_count") < 1 ||
			g.Str("updated_at") != storage.FormatTime(e.Clock.Now()) || g.Str("updated_by") != "api" {
			t.Fatalf("after update: %s", g)
		}
		v++
		r = e.Patch(t, id, map[string]any{"content": deployFact + " Also staging.", "tags": "a,b", "type": "runbook", "pinned": "true",
			"reason": "edit", "ifVersion": fmt.Sprint(v), "changedBy": "editor"}).Want(t, 200)
		if r.Str("status") != "updated" || r.JSON["contentChanged"] != true || r.Num("newVersion") != float64(v+1) {
			t.Fatalf("content update: %s", r)
		}
		v++
		g = e.Get(t, "/api/memory/"+id).Want(t, 200)
		if g.Str("content") != deployFact+" Also staging." || g.Str("type") != "runbook" || !g.Bool("pinned") ||
			!slices.Equal(apitest.Strs(g.JSON["tags"]), []string{"a", "b"}) || g.Str("updated_by") != "editor" {
			t.Fatalf("after content update: %s", g)
		}
		// tags null clears them.
		e.Patch(t, id, map[string]any{"tags": nil, "reason": "clear tags"}).Want(t, 200)
		v++
		if g := e.Get(t, "/api/memory/"+id).Want(t, 200); len(apitest.Strs(g.JSON["tags"])) != 0 {
			t.Fatalf("tags null should clear: %s", g)
		}
		// The new content is what recall finds.
		rec := e.Post(t, "/api/memory/recall", map[string]any{"query": "staging"}).Want(t, 200)
		if hits := rec.List(t, "results"); len(hits) != 1 || hits[0]["id"] != id {
			t.Fatalf("recall after content edit: %s", rec)
		}
	})
	t.Run("stale if_version", func(t *testing.T) {
		before := e.State(t)
		for _, body := range []map[string]any{
			{"importance": 0.1, "reason": "stale", "if_version": 1},
			{"importance": 0.1, "reason": "stale", "ifVersion": v + 5},
		} {
			r := e.Patch(t, id, body).WantErr(t, 409, core.CodeVersionConflict)
			if r.Str("status") != "version_conflict" || r.Num("currentVersion") != float64(v) {
				t.Fatalf("version conflict should report currentVersion %d: %s", v, r)
			}
		}
		e.Unchanged(t, before)
	})
	t.Run("duplicate content", func(t *testing.T) {
		before := e.State(t)
		r := e.Patch(t, id, map[string]any{"content": "a different memory that already exists", "reason": "dup"}).WantErr(t, 409, core.CodeDuplicate)
		if r.Str("duplicateMemoryId") != other || r.Str("status") != "duplicate_content_hash" {
			t.Fatalf("duplicate: %s", r)
		}
		e.Unchanged(t, before)
		// Moving to another project where the content is free is fine...
		e.Patch(t, other, map[string]any{"project": "elsewhere", "reason": "move"}).Want(t, 200)
		// ...and moving back into a project where it collides is refused.
		e.Patch(t, id, map[string]any{"content": "A different memory that already exists.", "project": "elsewhere", "reason": "dup"}).WantErr(t, 409, core.CodeDuplicate)
	})
	t.Run("deleted", func(t *testing.T) {
		gone := e.MustID(t, "soon deleted")
		e.Del(t, gone, map[string]any{"reason": "r"}).Want(t, 200)
		before := e.State(t)
		r := e.Patch(t, gone, map[string]any{"importance": 0.2, "reason": "r"}).WantErr(t, 409, core.CodeDeleted)
		if r.Str("status") != "deleted" || r.Num("currentVersion") != 2 {
			t.Fatalf("patch deleted: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("history", func(t *testing.T) {
		hist := e.HistoryEvents(t, id)
		got := apitest.EventNames(hist)
		want := []string{"created", "updated", "updated", "updated"}
		if !slices.Equal(got, want) {
			t.Fatalf("history = %v, want %v", got, want)
		}
	})
}

// PATCH content is bounded like remember content: guardrails.max_remember_chars
// must not be bypassed by remembering something short and editing it long.
func TestPatchContentOverRememberLimit(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "short at first")
	before := e.State(t)
	r := e.Patch(t, id, map[string]any{"content": strings.Repeat("long ", 20_000), "reason": "grow"})
	if r.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("BUG: PATCH with 100000-character content = %d, want 413 payload_too_large like remember (guardrails.max_remember_chars = 65536)", r.Status)
		return
	}
	r.WantErr(t, http.StatusRequestEntityTooLarge, core.CodeTooLarge)
	e.Unchanged(t, before)
}

// ---------------------------------------------------------------------------
// DELETE and recover
// ---------------------------------------------------------------------------

func TestDelete(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, deployFact)
	pinned := e.MustID(t, "User prefers bun over npm for TypeScript projects.", "pinned", true)

	t.Run("reason missing", func(t *testing.T) {
		for _, body := range []any{nil, map[string]any{}, map[string]any{"reason": ""}, map[string]any{"reason": "   "}, apitest.RawBody("")} {
			before := e.State(t)
			e.Del(t, id, body).WantInvalid(t, "reason", "reason is required")
			e.Unchanged(t, before)
		}
		before := e.State(t)
		e.Del(t, id, map[string]any{"reason": 5}).WantInvalid(t, "reason", "reason must be a string")
		e.Del(t, id, apitest.RawBody("{bad")).WantErr(t, 400, core.CodeInvalidJSON)
		e.Del(t, id, apitest.RawBody("null")).WantErr(t, 400, core.CodeInvalidJSON)
		e.Unchanged(t, before)
	})
	t.Run("unknown", func(t *testing.T) {
		before := e.State(t)
		r := e.Del(t, "00000000-0000-0000-0000-000000000000", map[string]any{"reason": "bench"}).WantErr(t, 404, core.CodeNotFound)
		if r.Str("status") != "not_found" {
			t.Fatalf("unknown: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("bad if_version", func(t *testing.T) {
		before := e.State(t)
		for _, q := range []string{"?reason=r&if_version=0", "?reason=r&if_version=abc", "?reason=r&if_version=-2", "?reason=r&ifVersion=1.5"} {
			e.Do(t, "DELETE", "/api/memory/"+id+q, nil, nil).WantInvalid(t, "if_version", "if_version must be a positive integer")
		}
		for _, v := range []any{0, -1, "abc", 1.5} {
			e.Del(t, id, map[string]any{"reason": "r", "if_version": v}).WantInvalid(t, "if_version", "if_version must be a positive integer")
		}
		e.Del(t, id, map[string]any{"reason": "r", "force": "sure"}).WantInvalid(t, "force", "force must be a boolean")
		e.Unchanged(t, before)
	})
	t.Run("stale if_version", func(t *testing.T) {
		before := e.State(t)
		r := e.Del(t, id, map[string]any{"reason": "r", "if_version": 7}).WantErr(t, 409, core.CodeVersionConflict)
		if r.Num("currentVersion") != 1 || r.Str("status") != "version_conflict" {
			t.Fatalf("stale: %s", r)
		}
		e.Do(t, "DELETE", "/api/memory/"+id+"?reason=r&if_version=3", nil, nil).WantErr(t, 409, core.CodeVersionConflict)
		e.Unchanged(t, before)
	})
	t.Run("pinned without force", func(t *testing.T) {
		before := e.State(t)
		r := e.Del(t, pinned, map[string]any{"reason": "bench"}).WantErr(t, 409, core.CodePinned)
		if r.Str("status") != "pinned_requires_force" || r.Num("currentVersion") != 1 || r.Str("error") != "Pinned memories require force=true" {
			t.Fatalf("pinned: %s", r)
		}
		e.Del(t, pinned, map[string]any{"reason": "bench", "force": false}).WantErr(t, 409, core.CodePinned)
		e.Unchanged(t, before)
	})
	t.Run("pipeline may not force", func(t *testing.T) {
		before := e.State(t)
		r := e.Do(t, "DELETE", "/api/memory/"+pinned, map[string]any{"reason": "auto", "force": true},
			apitest.Hdr("X-Cairn-Actor-Type", "pipeline", "X-Cairn-Actor", "pipeline-v2")).WantErr(t, 403, core.CodeForceDenied)
		if r.Str("status") != "autonomous_force_denied" {
			t.Fatalf("pipeline force: %s", r)
		}
		e.Do(t, "DELETE", "/api/memory/"+pinned+"?reason=auto&force=true", nil, apitest.Hdr("X-Signet-Actor-Type", "pipeline")).WantErr(t, 403, core.CodeForceDenied)
		e.Unchanged(t, before)
	})
	t.Run("pinned with force", func(t *testing.T) {
		r := e.Do(t, "DELETE", "/api/memory/"+pinned+"?reason=cleanup&force=true", nil, nil).Want(t, 200)
		if r.Str("status") != "deleted" || r.Num("currentVersion") != 1 || r.Num("newVersion") != 2 {
			t.Fatalf("force: %s", r)
		}
		hist := e.HistoryEvents(t, pinned)
		if meta, _ := hist[len(hist)-1]["metadata"].(map[string]any); meta["force"] != true {
			t.Fatalf("deleted metadata: %v", hist[len(hist)-1])
		}
	})
	t.Run("reason in query", func(t *testing.T) {
		r := e.Do(t, "DELETE", "/api/memory/"+id+"?reason=bench%20cleanup&if_version=1", nil, nil).Want(t, 200)
		if r.Str("status") != "deleted" || r.Num("newVersion") != 2 {
			t.Fatalf("delete: %s", r)
		}
		hist := e.HistoryEvents(t, id)
		if last := hist[len(hist)-1]; last["event"] != "deleted" || last["reason"] != "bench cleanup" || last["oldContent"] != deployFact {
			t.Fatalf("deleted event: %v", last)
		}
	})
	t.Run("already deleted", func(t *testing.T) {
		before := e.State(t)
		r := e.Del(t, id, map[string]any{"reason": "again"}).WantErr(t, 409, core.CodeAlreadyDeleted)
		if r.Str("status") != "already_deleted" {
			t.Fatalf("already deleted: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("deleted is hidden", func(t *testing.T) {
		e.Get(t, "/api/memory/"+id).WantErr(t, 404, core.CodeNotFound)
		if g := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200); !g.Bool("is_deleted") {
			t.Fatalf("include_deleted: %s", g)
		}
		if l := e.Get(t, "/api/memories").Want(t, 200); l.Num("total") != 0 {
			t.Fatalf("deleted rows listed: %s", l)
		}
		if r := e.Post(t, "/api/memory/recall", map[string]any{"query": "deploy script atlas"}).Want(t, 200); len(r.List(t, "results")) != 0 {
			t.Fatalf("recall after delete returns the deleted memory: %s", r)
		}
		if l := e.Get(t, "/api/memories?include_deleted=true").Want(t, 200); l.Num("total") != 2 {
			t.Fatalf("include_deleted list: %s", l)
		}
	})
}

func TestRecover(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, deployFact)
	live := e.MustID(t, "never deleted")

	t.Run("unknown", func(t *testing.T) {
		before := e.State(t)
		e.Post(t, "/api/memory/00000000-0000-0000-0000-000000000000/recover", map[string]any{"reason": "r"}).WantErr(t, 404, core.CodeNotFound)
		e.Unchanged(t, before)
	})
	t.Run("not deleted", func(t *testing.T) {
		before := e.State(t)
		r := e.Post(t, "/api/memory/"+live+"/recover", map[string]any{"reason": "r"}).WantErr(t, 409, core.CodeNotDeleted)
		if r.Str("status") != "not_deleted" || r.Str("error") != "Memory is not deleted" || r.Num("currentVersion") != 1 {
			t.Fatalf("not deleted: %s", r)
		}
		e.Unchanged(t, before)
	})
	e.Del(t, id, map[string]any{"reason": "oops"}).Want(t, 200)
	t.Run("reason missing", func(t *testing.T) {
		before := e.State(t)
		e.Post(t, "/api/memory/"+id+"/recover", nil).WantInvalid(t, "reason", "reason is required")
		e.Post(t, "/api/memory/"+id+"/recover", map[string]any{}).WantInvalid(t, "reason", "reason is required")
		e.Post(t, "/api/memory/"+id+"/recover", map[string]any{"reason": "r", "if_version": 0}).WantInvalid(t, "if_version", "")
		e.Unchanged(t, before)
	})
	t.Run("stale if_version", func(t *testing.T) {
		before := e.State(t)
		r := e.Post(t, "/api/memory/"+id+"/recover", map[string]any{"reason": "r", "if_version": 1}).WantErr(t, 409, core.CodeVersionConflict)
		if r.Num("currentVersion") != 2 {
			t.Fatalf("stale recover: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("live duplicate", func(t *testing.T) {
		dup := e.MustID(t, "the deploy script for project atlas lives in tools/deploy.sh and needs AWS_PROFILE=prod")
		before := e.State(t)
		r := e.Post(t, "/api/memory/"+id+"/recover", map[string]any{"reason": "r"}).WantErr(t, 409, core.CodeDuplicate)
		if r.Str("duplicateMemoryId") != dup {
			t.Fatalf("duplicate on recover: %s", r)
		}
		e.Unchanged(t, before)
		e.Del(t, dup, map[string]any{"reason": "make room"}).Want(t, 200)
	})
	t.Run("within window", func(t *testing.T) {
		e.Clock.Advance(29 * 24 * time.Hour)
		r := e.Do(t, "POST", "/api/memory/"+id+"/recover?reason=changed%20my%20mind&if_version=2", nil, nil).Want(t, 200)
		if r.Str("status") != "recovered" || r.Num("currentVersion") != 2 || r.Num("newVersion") != 3 || r.Num("retentionDays") != 30 {
			t.Fatalf("recover: %s", r)
		}
		g := e.Get(t, "/api/memory/"+id).Want(t, 200)
		if g.Bool("is_deleted") || g.Str("deleted_at") != "" || g.Num("version") != 3 {
			t.Fatalf("after recover: %s", g)
		}
		if got := apitest.EventNames(e.HistoryEvents(t, id)); !slices.Equal(got, []string{"created", "deleted", "recovered"}) {
			t.Fatalf("history = %v", got)
		}
		if r := e.Post(t, "/api/memory/recall", map[string]any{"query": "deploy atlas"}).Want(t, 200); len(r.List(t, "results")) != 1 {
			t.Fatalf("recovered memory not recalled: %s", r)
		}
	})
	t.Run("after 31 days", func(t *testing.T) {
		e.Del(t, id, map[string]any{"reason": "again"}).Want(t, 200)
		e.Clock.Advance(30 * 24 * time.Hour) // exactly the window: still recoverable
		before := e.State(t)
		e.Clock.Advance(24 * time.Hour)
		r := e.Post(t, "/api/memory/"+id+"/recover", map[string]any{"reason": "too late"}).WantErr(t, 409, core.CodeExpired)
		if r.Str("status") != "retention_expired" || r.Str("error") != "Recover window expired (30 days)" {
			t.Fatalf("expired: %s", r)
		}
		e.Unchanged(t, before)
	})
}

func TestRecoverAtExactWindow(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "recover at the edge of the window")
	e.Del(t, id, map[string]any{"reason": "r"}).Want(t, 200)
	e.Clock.Advance(30 * 24 * time.Hour)
	e.Post(t, "/api/memory/"+id+"/recover", map[string]any{"reason": "edge"}).Want(t, 200)
}

// ---------------------------------------------------------------------------
// batch modify
// ---------------------------------------------------------------------------

func TestBatchModify(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	a := e.MustID(t, "batch modify a")
	b := e.MustID(t, "batch modify b")
	c := e.MustID(t, "batch modify c")

	for _, bad := range []struct {
		name string
		body any
		msg  string
	}{
		{"missing patches", map[string]any{"reason": "r"}, "patches[] is required"},
		{"null patches", apitest.RawBody(`{"patches":null}`), "patches[] is required"},
		{"empty patches", map[string]any{"patches": []any{}, "reason": "r"}, "patches[] is required"},
		{"patches not array", map[string]any{"patches": "x"}, "patches must be an array"},
		{"patches object", map[string]any{"patches": map[string]any{"id": a}}, "patches must be an array"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			before := e.State(t)
			e.Post(t, "/api/memory/modify", bad.body).WantInvalid(t, "patches", bad.msg)
			e.Unchanged(t, before)
		})
	}
	t.Run("invalid bodies", func(t *testing.T) {
		before := e.State(t)
		for _, body := range []string{"", "{", "null", "[]"} {
			e.Post(t, "/api/memory/modify", apitest.RawBody(body)).WantErr(t, 400, core.CodeInvalidJSON)
		}
		e.Post(t, "/api/memory/modify", map[string]any{"patches": []any{}, "reason": 3}).WantInvalid(t, "reason", "")
		e.Unchanged(t, before)
	})
	t.Run("201 patches", func(t *testing.T) {
		patches := make([]map[string]any, 201)
		for i := range patches {
			patches[i] = map[string]any{"id": a, "importance": 0.1, "reason": "bulk"}
		}
		before := e.State(t)
		e.Post(t, "/api/memory/modify", map[string]any{"patches": patches}).WantInvalid(t, "patches", "patches[] exceeds maximum batch size (200)")
		e.Unchanged(t, before)
	})
	t.Run("200 patches", func(t *testing.T) {
		patches := make([]map[string]any, 200)
		for i := range patches {
			patches[i] = map[string]any{"id": fmt.Sprintf("missing-%d", i), "importance": 0.1}
		}
		r := e.Post(t, "/api/memory/modify", map[string]any{"patches": patches, "reason": "bulk"}).Want(t, 200)
		if r.Num("total") != 200 || r.Num("updated") != 0 || len(r.List(t, "results")) != 200 {
			t.Fatalf("200 patches: total %v updated %v", r.Num("total"), r.Num("updated"))
		}
	})
	t.Run("mixed results", func(t *testing.T) {
		r := e.Post(t, "/api/memory/modify", map[string]any{
			"reason":    "top-level reason",
			"changedBy": "batcher",
			"patches": []any{
				map[string]any{"id": a, "importance": 0.3, "reason": "own reason", "if_version": 1},
				map[string]any{"id": b, "importance": 0.3, "if_version": 7},
				map[string]any{"id": "00000000-0000-0000-0000-000000000000", "importance": 0.3},
				map[string]any{"importance": 0.3},
				map[string]any{"id": c, "tags": []string{"x"}, "ifVersion": 1},
				"not an object",
				map[string]any{"id": c, "importance": 9},
				map[string]any{"id": c},
				map[string]any{"id": c, "importance": 0.8},
			},
		}).Want(t, 200)
		res := r.List(t, "results")
		want := []struct{ id, status, errPart string }{
			{a, "updated", ""},
			{b, "version_conflict", ""},
			{"00000000-0000-0000-0000-000000000000", "not_found", ""},
			{"", "invalid_request", "Patch id is required"},
			{c, "updated", ""},
			{"", "invalid_request", "patch 5 must be a JSON object"},
			{c, "invalid_request", "importance must be a finite number between 0 and 1"},
			{c, "invalid_request", "at least one of"},
			{c, "no_changes", ""},
		}
		if r.Num("total") != float64(len(want)) || r.Num("updated") != 2 || len(res) != len(want) {
			t.Fatalf("mixed: %s", r)
		}
		for i, w := range want {
			if res[i]["status"] != w.status || (w.id != "" && res[i]["id"] != w.id) {
				t.Errorf("result %d = %v, want %+v", i, res[i], w)
			}
			if w.errPart != "" && !strings.Contains(fmt.Sprint(res[i]["error"]), w.errPart) {
				t.Errorf("result %d error = %v, want %q", i, res[i]["error"], w.errPart)
			}
		}
		if res[0]["newVersion"] != 2.0 || res[0]["contentChanged"] != false {
			t.Errorf("updated result: %v", res[0])
		}
		if res[1]["currentVersion"] != 1.0 {
			t.Errorf("conflict result: %v", res[1])
		}
		ha := e.HistoryEvents(t, a)
		hc := e.HistoryEvents(t, c)
		if ha[1]["reason"] != "own reason" || hc[1]["reason"] != "top-level reason" || hc[1]["changedBy"] != "batcher" {
			t.Errorf("reasons: a %v, c %v", ha[1], hc[1])
		}
		if len(e.HistoryEvents(t, b)) != 1 {
			t.Errorf("version conflict wrote history")
		}
	})
	t.Run("no reason anywhere", func(t *testing.T) {
		before := e.State(t)
		r := e.Post(t, "/api/memory/modify", map[string]any{"patches": []any{map[string]any{"id": a, "importance": 0.9}}}).Want(t, 200)
		res := r.List(t, "results")
		if r.Num("updated") != 0 || res[0]["status"] != "invalid_request" || !strings.Contains(fmt.Sprint(res[0]["error"]), "reason is required") {
			t.Fatalf("missing reason: %s", r)
		}
		e.Unchanged(t, before)
	})
	t.Run("duplicate and deleted", func(t *testing.T) {
		gone := e.MustID(t, "batch modify gone")
		e.Del(t, gone, map[string]any{"reason": "r"}).Want(t, 200)
		r := e.Post(t, "/api/memory/modify", map[string]any{"reason": "r", "patches": []any{
			map[string]any{"id": a, "content": "Batch modify B."},
			map[string]any{"id": gone, "importance": 0.1},
		}}).Want(t, 200)
		res := r.List(t, "results")
		if res[0]["status"] != "duplicate_content_hash" || res[0]["duplicateMemoryId"] != b || res[1]["status"] != "deleted" {
			t.Fatalf("duplicate/deleted: %s", r)
		}
	})
}

// ---------------------------------------------------------------------------
// batch forget
// ---------------------------------------------------------------------------

func TestBatchForget(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	var bulk []string
	for i := range 26 {
		bulk = append(bulk, e.MustID(t, fmt.Sprintf("bulk memory number %d about rotation", i), "tags", "bulk"))
	}
	small := []string{
		e.MustID(t, "small one about logging", "tags", "small"),
		e.MustID(t, "small two about logging", "tags", "small"),
	}
	pin := e.MustID(t, "small pinned about logging", "tags", "small", "pinned", true)

	t.Run("nothing given", func(t *testing.T) {
		before := e.State(t)
		for _, body := range []map[string]any{{}, {"mode": "execute", "reason": "r"}, {"query": "   "}, {"ids": []string{}}} {
			e.Post(t, "/api/memory/forget", body).WantInvalid(t, "query", "query, ids, or at least one filter")
		}
		e.Unchanged(t, before)
	})
	t.Run("bad fields", func(t *testing.T) {
		before := e.State(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"tags": "bulk", "limit": 0}, "limit"},
			{map[string]any{"tags": "bulk", "limit": "x"}, "limit"},
			{map[string]any{"tags": "bulk", "limit": -3}, "limit"},
			{map[string]any{"tags": "bulk", "limit": 2.5}, "limit"},
			{map[string]any{"tags": "bulk", "mode": "destroy"}, "mode"},
			{map[string]any{"ids": []any{"a", 1}}, "ids"},
			{map[string]any{"ids": []string{"a", " "}}, "ids"},
			{map[string]any{"ids": "a"}, "ids"},
			{map[string]any{"tags": 5}, "tags"},
			{map[string]any{"query": 5}, "query"},
			{map[string]any{"tags": "bulk", "since": "last week"}, "since"},
			{map[string]any{"tags": "bulk", "force": "perhaps"}, "force"},
			{map[string]any{"tags": "bulk", "mode": "execute", "reason": "r", "limit": 0}, "limit"},
		} {
			e.Post(t, "/api/memory/forget", c.body).WantInvalid(t, c.field, "")
		}
		for _, body := range []string{"", "{", "null", "[1]"} {
			e.Post(t, "/api/memory/forget", apitest.RawBody(body)).WantErr(t, 400, core.CodeInvalidJSON)
		}
		e.Unchanged(t, before)
	})
	t.Run("small preview and execute", func(t *testing.T) {
		before := e.State(t)
		p := e.Post(t, "/api/memory/forget", map[string]any{"tags": "small"}).Want(t, 200)
		cands := p.List(t, "candidates")
		if p.Str("mode") != "preview" || p.Num("count") != 3 || p.Bool("requiresConfirm") || p.Str("confirmToken") == "" || len(cands) != 3 {
			t.Fatalf("preview: %s", p)
		}
		if cands[0]["id"] != pin || cands[0]["pinned"] != true || cands[0]["version"] != 1.0 {
			t.Fatalf("filter-only candidates are ordered pinned first: %v", cands)
		}
		e.Unchanged(t, before)

		// Without force the pinned one is refused, the others go.
		r := e.Post(t, "/api/memory/forget", map[string]any{"tags": "small", "mode": "execute", "reason": "cleanup"}).Want(t, 200)
		if r.Str("mode") != "execute" || r.Num("requested") != 3 || r.Num("deleted") != 2 {
			t.Fatalf("execute: %s", r)
		}
		status := map[string]string{}
		for _, res := range r.List(t, "results") {
			status[res["id"].(string)] = res["status"].(string)
		}
		if status[pin] != "pinned_requires_force" || status[small[0]] != "deleted" || status[small[1]] != "deleted" {
			t.Fatalf("results: %v", status)
		}
		if h := e.HistoryEvents(t, small[0]); h[len(h)-1]["reason"] != "cleanup" {
			t.Fatalf("history reason: %v", h[len(h)-1])
		}
		// Force takes the pinned one, except for the pipeline.
		r = e.Do(t, "POST", "/api/memory/forget", map[string]any{"tags": "small", "mode": "execute", "reason": "auto", "force": true},
			apitest.Hdr("X-Cairn-Actor-Type", "pipeline")).Want(t, 200)
		if r.Num("deleted") != 0 || r.List(t, "results")[0]["status"] != "autonomous_force_denied" {
			t.Fatalf("pipeline force: %s", r)
		}
		r = e.Post(t, "/api/memory/forget", map[string]any{"ids": []string{pin}, "mode": "execute", "reason": "cleanup", "force": true}).Want(t, 200)
		if r.Num("deleted") != 1 {
			t.Fatalf("force: %s", r)
		}
		// Deleted rows are no longer candidates.
		if p := e.Post(t, "/api/memory/forget", map[string]any{"tags": "small"}).Want(t, 200); p.Num("count") != 0 {
			t.Fatalf("deleted memories are candidates: %s", p)
		}
	})
	t.Run("execute guards", func(t *testing.T) {
		before := e.State(t)
		e.Post(t, "/api/memory/forget", map[string]any{"tags": "bulk", "mode": "execute"}).WantInvalid(t, "reason", "reason is required for execute mode")
		e.Post(t, "/api/memory/forget", map[string]any{"tags": "bulk", "mode": "execute", "reason": "  "}).WantInvalid(t, "reason", "reason is required")
		for _, k := range []string{"if_version", "ifVersion"} {
			e.Post(t, "/api/memory/forget", map[string]any{"ids": bulk[:1], "mode": "execute", "reason": "r", k: 1}).
				WantInvalid(t, "if_version", "if_version is not supported for batch forget")
		}
		e.Unchanged(t, before)
	})
	t.Run("26 need a token", func(t *testing.T) {
		sel := map[string]any{"tags": "bulk", "limit": 50}
		p := e.Post(t, "/api/memory/forget", sel).Want(t, 200)
		token := p.Str("confirmToken")
		if p.Num("count") != 26 || !p.Bool("requiresConfirm") || token != core.ConfirmToken(bulk) {
			t.Fatalf("preview of 26: count %v requiresConfirm %v token %q (want %q)", p.Num("count"), p.Bool("requiresConfirm"), token, core.ConfirmToken(bulk))
		}
		// The same selection by ids gives the same token.
		if p2 := e.Post(t, "/api/memory/forget", map[string]any{"ids": bulk, "limit": 26}).Want(t, 200); p2.Str("confirmToken") != token {
			t.Fatalf("token differs for the same selection: %s", p2)
		}
		before := e.State(t)
		exec := map[string]any{"tags": "bulk", "limit": 50, "mode": "execute", "reason": "rotate"}
		r := e.Post(t, "/api/memory/forget", exec).WantErr(t, 400, core.CodeConfirmRequired)
		if !r.Bool("requiresConfirm") || r.Str("confirmToken") != token || r.Num("count") != 26 {
			t.Fatalf("execute without token: %s", r)
		}
		// A token from another preview (25 of the 26) does not unlock this one.
		other := e.Post(t, "/api/memory/forget", map[string]any{"tags": "bulk", "limit": 25}).Want(t, 200)
		if other.Bool("requiresConfirm") || other.Str("confirmToken") == token {
			t.Fatalf("preview of 25: %s", other)
		}
		exec["confirm_token"] = other.Str("confirmToken")
		e.Post(t, "/api/memory/forget", exec).WantErr(t, 400, core.CodeConfirmRequired)
		exec["confirm_token"] = "not-a-token"
		e.Post(t, "/api/memory/forget", exec).WantErr(t, 400, core.CodeConfirmRequired)
		e.Unchanged(t, before)

		delete(exec, "confirm_token")
		exec["confirmToken"] = token
		r = e.Post(t, "/api/memory/forget", exec).Want(t, 200)
		if r.Num("deleted") != 26 || r.Num("requested") != 26 {
			t.Fatalf("execute with token: %s", r)
		}
		for _, res := range r.List(t, "results") {
			if res["status"] != "deleted" {
				t.Fatalf("result: %v", res)
			}
		}
		if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE event = 'deleted' AND reason = 'rotate'`); n != 26 {
			t.Fatalf("%d deleted events with the reason, want 26", n)
		}
		if l := e.Get(t, "/api/memories?tags=bulk").Want(t, 200); l.Num("total") != 0 {
			t.Fatalf("bulk memories still listed: %s", l)
		}
	})
	t.Run("query selection", func(t *testing.T) {
		x := e.MustID(t, "the rotation schedule for oncall")
		p := e.Post(t, "/api/memory/forget", map[string]any{"query": "\"oncall\" AND (rotation OR *)"}).Want(t, 200)
		c := p.List(t, "candidates")
		if len(c) != 1 || c[0]["id"] != x {
			t.Fatalf("query preview: %s", p)
		}
		if s, _ := c[0]["score"].(float64); s <= 0 || s >= 1 {
			t.Fatalf("score %v", c[0]["score"])
		}
	})
}

// Signet's preview is {mode,count,requiresConfirm,confirmToken,candidates:[…]}
// and its execute answer {mode,requested,deleted,results:[…]}: the arrays and
// counts are there even when the selection is empty, so clients can iterate
// without checking for a missing field.
func TestBatchForgetEmptySelectionShape(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	e.MustID(t, "a memory that does not match")
	p := e.Post(t, "/api/memory/forget", map[string]any{"tags": "nothing-has-this"}).Want(t, 200)
	if p.Num("count") != 0 || p.Bool("requiresConfirm") {
		t.Fatalf("empty preview: %s", p)
	}
	if c, ok := p.JSON["candidates"].([]any); !ok || len(c) != 0 {
		t.Errorf("BUG: preview of an empty selection has no \"candidates\": [] (got %s)", p)
	}
	x := e.Post(t, "/api/memory/forget", map[string]any{"tags": "nothing-has-this", "mode": "execute", "reason": "r"}).Want(t, 200)
	if x.Num("deleted") != 0 {
		t.Fatalf("empty execute: %s", x)
	}
	if res, ok := x.JSON["results"].([]any); !ok || len(res) != 0 {
		t.Errorf("BUG: execute of an empty selection has no \"results\": [] (got %s)", x)
	}
	if _, ok := x.JSON["requested"]; !ok {
		t.Errorf("BUG: execute of an empty selection has no \"requested\": 0 (got %s)", x)
	}
}

// ---------------------------------------------------------------------------
// recall
// ---------------------------------------------------------------------------

func TestRecall(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	deploy := e.MustID(t, deployFact)
	bun := e.MustID(t, "User prefers bun over npm for TypeScript projects.", "who", "bench", "pinned", true, "importance", 0.9, "tags", "tooling")
	uni := e.MustID(t, "Ünïcödé test: 東京 meeting moved to Thursday 🚀")
	gone := e.MustID(t, "deploy atlas secret rotation notes")
	e.Del(t, gone, map[string]any{"reason": "r"}).Want(t, 200)

	ids := func(r *apitest.Resp) []string {
		var out []string
		for _, h := range r.List(t, "results") {
			out = append(out, h["id"].(string))
		}
		return out
	}
	t.Run("basic", func(t *testing.T) {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "deploy script atlas"}).Want(t, 200)
		hits := r.List(t, "results")
		if len(hits) != 1 || hits[0]["id"] != deploy || r.Str("method") != "keyword" || r.Str("query") != "deploy script atlas" {
			t.Fatalf("basic: %s", r)
		}
		h := hits[0]
		if h["source"] != "keyword" || h["content_length"] != float64(len(deployFact)) || h["truncated"] != false {
			t.Fatalf("hit: %v", h)
		}
		if s := h["score"].(float64); s <= 0 || s > 1 {
			t.Fatalf("score %v", s)
		}
		if _, ok := h["tags"].([]any); !ok {
			t.Fatalf("tags must be an array: %v", h)
		}
	})
	t.Run("filters", func(t *testing.T) {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "bun npm", "who": "bench", "pinned": true, "importance_min": 0.5, "tags": "tooling"}).Want(t, 200)
		if got := ids(r); !slices.Equal(got, []string{bun}) {
			t.Fatalf("filters: %v", got)
		}
		r = e.Post(t, "/api/memory/recall", map[string]any{"query": "bun npm", "pinned": false}).Want(t, 200)
		if len(ids(r)) != 0 {
			t.Fatalf("pinned=false: %s", r)
		}
		r = e.Post(t, "/api/memory/recall", map[string]any{"query": "bun", "keywordQuery": "deploy"}).Want(t, 200)
		if got := ids(r); !slices.Equal(got, []string{deploy}) {
			t.Fatalf("keywordQuery: %v", got)
		}
	})
	t.Run("unicode", func(t *testing.T) {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "東京 meeting"}).Want(t, 200)
		if got := ids(r); !slices.Equal(got, []string{uni}) {
			t.Fatalf("unicode: %v", got)
		}
		r = e.Post(t, "/api/memory/recall", map[string]any{"query": "unicode"}).Want(t, 200) // remove_diacritics
		if got := ids(r); !slices.Equal(got, []string{uni}) {
			t.Fatalf("diacritics: %v", got)
		}
	})
	t.Run("limit", func(t *testing.T) {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "deploy bun meeting", "limit": 2}).Want(t, 200)
		if len(ids(r)) != 2 {
			t.Fatalf("limit 2: %s", r)
		}
		r = e.Post(t, "/api/memory/recall", map[string]any{"query": "deploy", "limit": "5"}).Want(t, 200)
		if len(ids(r)) != 1 {
			t.Fatalf("limit as string: %s", r)
		}
	})
	t.Run("rejects", func(t *testing.T) {
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"query": ""}, "query"},
			{map[string]any{"query": "   "}, "query"},
			{map[string]any{}, "query"},
			{map[string]any{"query": nil}, "query"},
			{map[string]any{"query": 42}, "query"},
			{map[string]any{"query": []string{"a"}}, "query"},
			{map[string]any{"query": "deploy", "limit": 0}, "limit"},
			{map[string]any{"query": "deploy", "limit": -1}, "limit"},
			{map[string]any{"query": "deploy", "limit": 1_000_000_000}, "limit"},
			{map[string]any{"query": "deploy", "limit": 1001}, "limit"},
			{map[string]any{"query": "deploy", "limit": 2.5}, "limit"},
			{map[string]any{"query": "deploy", "limit": "many"}, "limit"},
			{map[string]any{"query": "deploy", "importance_min": 3}, "importance_min"},
			{map[string]any{"query": "deploy", "since": "never"}, "since"},
			{map[string]any{"query": "deploy", "pinned": "perhaps"}, "pinned"},
			{map[string]any{"query": "deploy", "tags": 1}, "tags"},
			{map[string]any{"query": "deploy", "keyword_query": 1}, "keyword_query"},
		} {
			e.Post(t, "/api/memory/recall", c.body).WantInvalid(t, c.field, "")
		}
		for _, body := range []string{"{oops", "", "null", "[]", "\"deploy\""} {
			e.Post(t, "/api/memory/recall", apitest.RawBody(body)).WantErr(t, 400, core.CodeInvalidJSON)
		}
	})
	t.Run("hostile queries", func(t *testing.T) {
		var cjk strings.Builder
		for cjk.Len() < 100_000 {
			cjk.WriteString("東京 deploy \"NEAR( ")
		}
		queries := []string{
			`"deploy" AND (atlas OR *) NEAR -x ^ :`,
			`NEAR(`, `NEAR(deploy atlas, 2)`, `AND OR NOT`, `NOT deploy`, `deploy NOT`, `"`, `"""`, `*`, `^deploy`,
			`deploy*`, `content:deploy`, `{content}: deploy`, `-deploy`, `+deploy`, `(`, `)`, `deploy)`,
			`🚀🚀🚀`, `東京 meeting`, `東京`, "\u0301\u0301", "ﬁ ligature", "İstanbul", "\x00deploy", "deploy\x00",
			strings.Repeat("deploy ", 20_000), cjk.String(), strings.Repeat("a", 100_000),
			"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", `\"\\`, "'; DROP TABLE memories; --", "%_%", "rotation notes",
		}
		for _, q := range queries {
			r := e.Post(t, "/api/memory/recall", map[string]any{"query": q})
			if r.Status != 200 {
				t.Errorf("query %.60q: %s", q, r)
				continue
			}
			if slices.Contains(ids(r), gone) {
				t.Errorf("query %.60q returned the deleted memory", q)
			}
		}
		// Batch forget runs the same sanitizer.
		for _, q := range queries[:10] {
			if r := e.Post(t, "/api/memory/forget", map[string]any{"query": q}); r.Status != 200 {
				t.Errorf("forget query %.60q: %s", q, r)
			}
		}
	})
	t.Run("deleted never returned", func(t *testing.T) {
		r := e.Post(t, "/api/memory/recall", map[string]any{"query": "secret rotation notes", "limit": 1000}).Want(t, 200)
		if slices.Contains(ids(r), gone) {
			t.Fatalf("deleted memory recalled: %s", r)
		}
	})
}

// ---------------------------------------------------------------------------
// Kill switch
// ---------------------------------------------------------------------------

func TestMutationsFrozen(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	live := e.MustID(t, "frozen live memory", "tags", "frozen")
	dead := e.MustID(t, "frozen deleted memory", "tags", "frozen")
	e.Del(t, dead, map[string]any{"reason": "r"}).Want(t, 200)
	export := e.Get(t, "/api/memories/export?include_deleted=true")
	if export.Status != 200 {
		t.Fatalf("export: %s", export)
	}
	freshLine := `{"id":"0197aaaa-0000-7000-8000-000000000001","content":"imported while frozen","importance":0.5}` + "\n"

	e.Svc.SetMutationsFrozen(true)
	before := e.State(t)
	cases := []struct {
		name, method, path string
		body               any
	}{
		{"remember", "POST", "/api/memory/remember", map[string]any{"content": "new while frozen"}},
		{"remember duplicate", "POST", "/api/memory/remember", map[string]any{"content": "frozen live memory"}},
		{"save", "POST", "/api/memory/save", map[string]any{"content": "saved while frozen"}},
		{"patch", "PATCH", "/api/memory/" + live, map[string]any{"importance": 0.1, "reason": "r"}},
		{"delete", "DELETE", "/api/memory/" + live, map[string]any{"reason": "r"}},
		{"delete via query", "DELETE", "/api/memory/" + live + "?reason=r", nil},
		{"recover", "POST", "/api/memory/" + dead + "/recover", map[string]any{"reason": "r"}},
		{"modify", "POST", "/api/memory/modify", map[string]any{"reason": "r", "patches": []any{map[string]any{"id": live, "importance": 0.1}}}},
		{"forget execute", "POST", "/api/memory/forget", map[string]any{"tags": "frozen", "mode": "execute", "reason": "r"}},
		{"import", "POST", "/api/memories/import", apitest.RawBody(freshLine)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(t, c.method, c.path, c.body, nil).WantErr(t, http.StatusServiceUnavailable, core.CodeFrozen)
			if r.Str("error") != "Mutations are frozen (kill switch active)" {
				t.Fatalf("message: %q", r.Str("error"))
			}
			e.Unchanged(t, before)
		})
	}
	t.Run("reads still work", func(t *testing.T) {
		e.Get(t, "/api/memories").Want(t, 200)
		e.Get(t, "/api/memory/"+live).Want(t, 200)
		e.Get(t, "/api/memory/"+live+"/history").Want(t, 200)
		e.Get(t, "/api/history").Want(t, 200)
		e.Get(t, "/health").Want(t, 200)
		e.Get(t, "/api/status").Want(t, 200)
		e.Post(t, "/api/memory/recall", map[string]any{"query": "frozen"}).Want(t, 200)
		if ex := e.Get(t, "/api/memories/export"); ex.Status != 200 {
			t.Fatalf("export while frozen: %s", ex)
		}
		p := e.Post(t, "/api/memory/forget", map[string]any{"tags": "frozen"}).Want(t, 200)
		if p.Str("mode") != "preview" || p.Num("count") != 1 {
			t.Fatalf("forget preview while frozen: %s", p)
		}
		e.Unchanged(t, before)
	})
	e.Svc.SetMutationsFrozen(false)
	e.Remember(t, "new after thaw")
}

// ---------------------------------------------------------------------------
// Export and import
// ---------------------------------------------------------------------------

func ndjson(tb testing.TB, raw []byte) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			tb.Fatalf("export line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestExportImport(t *testing.T) {
	t.Parallel()
	src := apitest.NewEnv(t)
	a := src.MustID(t, "export me first", "tags", "x,y", "project", "atlas")
	src.Clock.Advance(time.Minute)
	b := src.MustID(t, "export me second", "pinned", true)
	src.Patch(t, b, map[string]any{"importance": 0.2, "reason": "r"}).Want(t, 200)
	d := src.MustID(t, "export me deleted")
	src.Del(t, d, map[string]any{"reason": "r"}).Want(t, 200)

	ex := src.Get(t, "/api/memories/export")
	if ex.Status != 200 || ex.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("export: %s", ex)
	}
	lines := ndjson(t, ex.Raw)
	if len(lines) != 3 || lines[2]["_end"] != true || lines[0]["id"] != a || lines[1]["id"] != b {
		t.Fatalf("export lines: %v", lines)
	}
	all := src.Get(t, "/api/memories/export?include_deleted=true")
	if n := len(ndjson(t, all.Raw)); n != 4 {
		t.Fatalf("export include_deleted: %d lines", n)
	}
	src.Get(t, "/api/memories/export?pinned=maybe").WantInvalid(t, "pinned", "")

	dst := apitest.NewEnv(t)
	r := dst.Post(t, "/api/memories/import", apitest.RawBody(all.Raw)).Want(t, 200)
	if r.Num("total") != 3 || r.Num("imported") != 3 || r.Num("existing") != 0 || r.Num("deduped") != 0 {
		t.Fatalf("import: %s", r)
	}
	g := dst.Get(t, "/api/memory/"+b).Want(t, 200)
	if g.Num("version") != 2 || g.Num("importance") != 0.2 || !g.Bool("pinned") {
		t.Fatalf("imported b: %s", g)
	}
	if g := dst.Get(t, "/api/memory/"+a).Want(t, 200); g.Str("project") != "atlas" || !slices.Equal(apitest.Strs(g.JSON["tags"]), []string{"x", "y"}) {
		t.Fatalf("imported a: %s", g)
	}
	dst.Get(t, "/api/memory/"+d).WantErr(t, 404, core.CodeNotFound)
	if g := dst.Get(t, "/api/memory/"+d+"?include_deleted=true").Want(t, 200); !g.Bool("is_deleted") {
		t.Fatalf("imported d: %s", g)
	}
	h := dst.HistoryEvents(t, a)
	if len(h) != 1 || h[0]["event"] != "created" || h[0]["reason"] != "import" {
		t.Fatalf("import history: %v", h)
	}
	// Importing again changes nothing.
	before := dst.State(t)
	r = dst.Post(t, "/api/memories/import", apitest.RawBody(all.Raw)).Want(t, 200)
	if r.Num("existing") != 3 || r.Num("imported") != 0 {
		t.Fatalf("re-import: %s", r)
	}
	dst.Unchanged(t, before)
	// Same content under a new id is deduped.
	r = dst.Post(t, "/api/memories/import", apitest.RawBody(`{"id":"new-id-1","content":"EXPORT ME SECOND."}`+"\n")).Want(t, 200)
	if r.Num("deduped") != 1 {
		t.Fatalf("dedup on import: %s", r)
	}
	dst.Unchanged(t, before)

	t.Run("bad lines write nothing", func(t *testing.T) {
		good := `{"content":"fine line"}` + "\n"
		cases := []struct {
			name, body, field string
			line              float64
		}{
			{"invalid JSON", good + "{nope\n", "", 2},
			{"array line", good + "[1]\n", "", 2},
			{"null line", good + "null\n", "", 2},
			{"empty content", good + `{"content":"  "}` + "\n", "content", 2},
			{"content number", good + `{"content":5}` + "\n", "content", 2},
			{"importance 2", good + `{"content":"x","importance":2}` + "\n", "importance", 2},
			{"tags string", good + `{"content":"x","tags":"a,b"}` + "\n", "tags", 2},
			{"bad time", good + `{"content":"x","created_at":"yesterday"}` + "\n", "created_at", 2},
			{"deleted without time", good + `{"content":"x","is_deleted":true}` + "\n", "deleted_at", 2},
			{"negative version", "\n\n" + `{"content":"x","version":-1}` + "\n", "version", 3},
			{"invalid UTF-8", good + "{\"content\":\"\xff\"}\n", "", 2},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := dst.State(t)
				r := dst.Post(t, "/api/memories/import", apitest.RawBody(c.body)).WantErr(t, 400, core.CodeInvalidRequest)
				if r.Num("line") != c.line || (c.field != "" && r.Str("field") != c.field) {
					t.Fatalf("line/field: %s", r)
				}
				dst.Unchanged(t, before)
			})
		}
	})
}

// An import line whose idempotency_key is already taken is the caller's
// mistake, not a server failure: it must not be a 500, and the batch must
// not be half applied.
func TestImportIdempotencyKeyCollision(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	e.Remember(t, "owner of the key", "idempotency_key", "k-1")
	before := e.State(t)
	body := `{"content":"first import line"}` + "\n" + `{"content":"another memory with the same key","idempotency_key":"k-1"}` + "\n"
	r := e.Post(t, "/api/memories/import", apitest.RawBody(body))
	if r.Status >= 500 {
		t.Errorf("BUG: import with a taken idempotency_key answers %s; want a 4xx naming the line (or the record counted as existing/deduped)", r)
	}
	if r.Status >= 400 {
		e.Unchanged(t, before)
	}
}
