package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpService is a keyword-only service over a fresh database.
func mcpService(t *testing.T) *app.App {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "mcp.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return app.New(db, config.DefaultConfig(), app.Options{})
}

// mcpSession connects an SDK client named "test-agent" to NewMCPServer
// over the in-memory transports.
func mcpSession(t *testing.T, ap *app.App) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := httpapi.NewMCPServer(ap, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpCall calls a tool and returns its result, its text and its structured
// output decoded as a map.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res, strings.Join(text, "\n"), out
}

// mcpOK calls a tool that must succeed.
func mcpOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res, text, out := mcpCall(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	if out == nil {
		t.Fatalf("%s: no structured content", name)
	}
	if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "{") {
		t.Fatalf("%s: text content should be a human summary, got %q", name, text)
	}
	return text, out
}

// mcpFail calls a tool that must fail with an isError result whose text
// contains every one of want.
func mcpFail(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want ...string) string {
	t.Helper()
	res, text, _ := mcpCall(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) should fail, got %s", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s(%v) error %q should mention %q", name, args, text, w)
		}
	}
	return text
}

func mcpStore(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	_, out := mcpOK(t, cs, "memory_store", args)
	id, _ := out["id"].(string)
	if id == "" {
		t.Fatalf("memory_store returned no id: %v", out)
	}
	return id
}

func mcpResultIDs(out map[string]any, key string) []string {
	var ids []string
	list, _ := out[key].([]any)
	for _, r := range list {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	return ids
}

func TestMCPListTools(t *testing.T) {
	cs := mcpSession(t, mcpService(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		required              []string
		fields                []string
		readOnly, destructive bool
	}
	wants := map[string]want{
		"memory_search": {[]string{"query"}, []string{"query", "limit", "type", "tags", "project", "who", "min_score", "importance_min", "since", "until", "mode", "scope"}, true, false},
		"memory_store":  {[]string{"content"}, []string{"content", "type", "importance", "tags", "pinned", "project", "who", "key", "scope"}, false, false},
		"memory_get":    {[]string{"id"}, []string{"id"}, true, false},
		"memory_list":   {nil, []string{"limit", "offset", "type", "tags", "project", "who", "pinned"}, true, false},
		"memory_modify": {[]string{"id", "reason"}, []string{"id", "reason", "if_version", "content", "type", "importance", "tags", "pinned"}, false, false},
		"memory_forget": {[]string{"id", "reason"}, []string{"id", "reason", "force", "if_version"}, false, true},
	}
	if len(res.Tools) != len(wants) {
		t.Errorf("got %d tools, want %d", len(res.Tools), len(wants))
	}
	for _, tool := range res.Tools {
		w, ok := wants[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
		var schema struct {
			Type       string                    `json:"type"`
			Required   []string                  `json:"required"`
			Properties map[string]map[string]any `json:"properties"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatalf("%s: schema %s: %v", tool.Name, b, err)
		}
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name, schema.Type)
		}
		got := slices.Sorted(func(yield func(string) bool) {
			for k := range schema.Properties {
				if !yield(k) {
					return
				}
			}
		})
		if !slices.Equal(got, slices.Sorted(slices.Values(w.fields))) {
			t.Errorf("%s: fields %v, want %v", tool.Name, got, w.fields)
		}
		for name, p := range schema.Properties {
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			if _, ok := p["type"].(string); !ok {
				t.Errorf("%s.%s: type %v should be one plain type", tool.Name, name, p["type"])
			}
		}
		if !slices.Equal(slices.Sorted(slices.Values(schema.Required)), slices.Sorted(slices.Values(w.required))) {
			t.Errorf("%s: required %v, want %v", tool.Name, schema.Required, w.required)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, w.readOnly)
		}
		if !w.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != w.destructive) {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, a.DestructiveHint, w.destructive)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint should be false", tool.Name)
		}
	}
	// Bounds and defaults are in the schema.
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		s := string(b)
		switch tool.Name {
		case "memory_search":
			for _, frag := range []string{`"maximum":100`, `"default":10`, `"enum":["hybrid","keyword","vector"]`} {
				if !strings.Contains(s, frag) {
					t.Errorf("memory_search schema lacks %s: %s", frag, s)
				}
			}
		case "memory_list":
			for _, frag := range []string{`"maximum":200`, `"default":20`} {
				if !strings.Contains(s, frag) {
					t.Errorf("memory_list schema lacks %s: %s", frag, s)
				}
			}
		}
	}
}

func TestMCPStoreHonoursEveryInput(t *testing.T) {
	ap := mcpService(t)
	svc := ap.Service
	cs := mcpSession(t, ap)
	ctx := context.Background()

	text, out := mcpOK(t, cs, "memory_store", map[string]any{
		"content": "We chose SQLite with WAL for the local store", "type": "decision", "importance": 0.35,
		"tags": []string{"storage", "db"}, "pinned": true, "project": "cairn", "who": "reviewer",
	})
	id := out["id"].(string)
	if out["type"] != "decision" || out["deduped"] != false || out["pinned"] != true {
		t.Errorf("store output %v", out)
	}
	if !strings.Contains(text, id) || !strings.Contains(text, "decision") {
		t.Errorf("store text %q", text)
	}
	m, err := svc.Get(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != "decision" || m.Importance != 0.35 || !m.Pinned || m.Project != "cairn" || m.Who != "reviewer" ||
		!slices.Equal(m.Tags, []string{"storage", "db"}) {
		t.Errorf("stored %+v", m)
	}
	hist, err := svc.MemoryHistory(ctx, id, 10)
	if err != nil || len(hist) != 1 {
		t.Fatalf("history %v %v", hist, err)
	}
	if hist[0].ChangedBy != "test-agent" || hist[0].ActorType != core.ActorAgent {
		t.Errorf("actor %s/%s, want test-agent/agent", hist[0].ChangedBy, hist[0].ActorType)
	}

	// Without who the author is the client; the same content again is deduplicated.
	_, out2 := mcpOK(t, cs, "memory_store", map[string]any{"content": "Builds run with go 1.26"})
	m2, _ := svc.Get(ctx, out2["id"].(string), false)
	if m2.Who != "test-agent" || m2.Pinned {
		t.Errorf("default who/pinned: %+v", m2)
	}
	_, again := mcpOK(t, cs, "memory_store", map[string]any{"content": "Builds run with go 1.26"})
	if again["deduped"] != true || again["id"] != out2["id"] {
		t.Errorf("dedup: %v", again)
	}

	mcpFail(t, cs, "memory_store", map[string]any{"content": "   "}, "invalid_request", "content")
	mcpFail(t, cs, "memory_store", map[string]any{}, "content")
	mcpFail(t, cs, "memory_store", map[string]any{"content": "x", "importance": 2}, "importance")
}

func TestMCPSearchHonoursEveryInput(t *testing.T) {
	ap := mcpService(t)
	cs := mcpSession(t, ap)

	strong := mcpStore(t, cs, map[string]any{"content": "deploy deploy deploy: the deploy script deploys to staging first", "type": "rule", "importance": 0.9, "tags": []string{"ops", "deploy"}, "project": "alpha", "who": "alice"})
	weak := mcpStore(t, cs, map[string]any{"content": "a long note about many unrelated things, coffee, lunch, meetings, and once a deploy", "type": "fact", "importance": 0.2, "tags": []string{"ops"}, "project": "beta", "who": "bob"})
	other := mcpStore(t, cs, map[string]any{"content": "the deploy happens on fridays", "type": "decision", "importance": 0.6, "project": "alpha", "who": "alice"})

	search := func(args map[string]any) []string {
		t.Helper()
		args["query"] = "deploy"
		_, out := mcpOK(t, cs, "memory_search", args)
		if out["method"] != "keyword" {
			t.Errorf("method %v, want keyword (no embedder)", out["method"])
		}
		return mcpResultIDs(out, "results")
	}
	all := search(map[string]any{})
	if len(all) != 3 {
		t.Fatalf("all: %v", all)
	}
	set := func(ids ...string) []string { return slices.Sorted(slices.Values(ids)) }
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if !slices.Equal(set(got...), set(want...)) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	check("type", search(map[string]any{"type": "fact"}), weak)
	check("tags", search(map[string]any{"tags": []string{"deploy"}}), strong)
	check("tags all", search(map[string]any{"tags": []string{"ops"}}), strong, weak)
	check("project", search(map[string]any{"project": "alpha"}), strong, other)
	check("who", search(map[string]any{"who": "bob"}), weak)
	check("importance_min", search(map[string]any{"importance_min": 0.5}), strong, other)
	check("limit", search(map[string]any{"limit": 1}), all[0])
	check("mode keyword", search(map[string]any{"mode": "keyword"}), all...)
	check("since future", search(map[string]any{"since": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}))
	check("until past", search(map[string]any{"until": "2000-01-01"}))
	check("since/until today", search(map[string]any{"since": "2000-01-01", "until": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}), all...)

	// min_score drops results scoring below it (a score, not importance).
	_, out := mcpOK(t, cs, "memory_search", map[string]any{"query": "deploy"})
	var scores []float64
	for _, r := range out["results"].([]any) {
		scores = append(scores, r.(map[string]any)["score"].(float64))
	}
	lo, hi := slices.Min(scores), slices.Max(scores)
	if lo == hi {
		t.Fatalf("scores all equal: %v", scores)
	}
	cut := (lo + hi) / 2
	_, out = mcpOK(t, cs, "memory_search", map[string]any{"query": "deploy", "min_score": cut})
	kept := out["results"].([]any)
	if len(kept) == 0 || len(kept) == len(scores) {
		t.Errorf("min_score %.3f kept %d of %v", cut, len(kept), scores)
	}
	for _, r := range kept {
		if s := r.(map[string]any)["score"].(float64); s < cut {
			t.Errorf("score %.3f below min_score %.3f", s, cut)
		}
	}
	if int(out["count"].(float64)) != len(kept) {
		t.Errorf("count %v, results %d", out["count"], len(kept))
	}

	// Each hit carries the fields the spec lists.
	hit := out["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "content", "score", "type", "tags", "pinned", "importance", "created_at"} {
		if _, ok := hit[k]; !ok {
			t.Errorf("hit lacks %s: %v", k, hit)
		}
	}

	mcpFail(t, cs, "memory_search", map[string]any{}, "query")
	mcpFail(t, cs, "memory_search", map[string]any{"query": "deploy", "limit": 101}, "limit")
	mcpFail(t, cs, "memory_search", map[string]any{"query": "deploy", "mode": "psychic"}, "mode")
	mcpFail(t, cs, "memory_search", map[string]any{"query": "deploy", "min_score": 1.5}, "min_score")
	mcpFail(t, cs, "memory_search", map[string]any{"query": "deploy", "since": "last tuesday"}, "invalid_request", "since")
}

func TestMCPGetAndList(t *testing.T) {
	ap := mcpService(t)
	cs := mcpSession(t, ap)

	var ids []string
	for i, c := range []struct{ content, typ string }{
		{"alpha fact one", "fact"}, {"beta decision two", "decision"}, {"gamma fact three", "fact"},
		{"delta preference four", "preference"}, {"epsilon fact five", "fact"},
	} {
		args := map[string]any{"content": c.content, "type": c.typ, "project": "p", "tags": []string{"t"}}
		if i == 0 {
			args["pinned"], args["project"], args["who"], args["tags"] = true, "q", "zed", []string{"t", "u"}
		}
		ids = append(ids, mcpStore(t, cs, args))
	}

	text, m := mcpOK(t, cs, "memory_get", map[string]any{"id": ids[1]})
	if m["id"] != ids[1] || m["content"] != "beta decision two" || m["type"] != "decision" || m["version"] != float64(1) {
		t.Errorf("get: %v", m)
	}
	for _, k := range []string{"importance", "confidence", "tags", "pinned", "source_type", "content_hash", "created_at", "updated_at", "updated_by", "access_count", "is_deleted"} {
		if _, ok := m[k]; !ok {
			t.Errorf("get lacks %s", k)
		}
	}
	if !strings.Contains(text, "beta decision two") {
		t.Errorf("get text %q", text)
	}
	mcpFail(t, cs, "memory_get", map[string]any{"id": "no-such-id"}, "not_found", "no-such-id")
	mcpFail(t, cs, "memory_get", map[string]any{}, "id")

	list := func(args map[string]any) (map[string]any, []string) {
		t.Helper()
		_, out := mcpOK(t, cs, "memory_list", args)
		return out, mcpResultIDs(out, "memories")
	}
	out, got := list(map[string]any{})
	if out["total"] != float64(5) || len(got) != 5 || out["limit"] != float64(20) || out["has_more"] != false {
		t.Errorf("list all: %v", out)
	}
	out, got = list(map[string]any{"type": "fact"})
	if out["total"] != float64(3) || len(got) != 3 {
		t.Errorf("list type=fact: total %v ids %v", out["total"], got)
	}
	for _, mem := range out["memories"].([]any) {
		if mem.(map[string]any)["type"] != "fact" {
			t.Errorf("list type=fact returned %v", mem)
		}
	}
	out, got = list(map[string]any{"limit": 2, "offset": 1})
	if len(got) != 2 || out["total"] != float64(5) || out["has_more"] != true || out["offset"] != float64(1) {
		t.Errorf("paging: %v", out)
	}
	_, first := list(map[string]any{"limit": 3})
	if got[0] != first[1] || got[1] != first[2] {
		t.Errorf("offset 1 page %v does not follow %v", got, first)
	}
	_, got = list(map[string]any{"pinned": true})
	if !slices.Equal(got, ids[:1]) {
		t.Errorf("pinned: %v", got)
	}
	_, got = list(map[string]any{"pinned": false})
	if len(got) != 4 {
		t.Errorf("unpinned: %v", got)
	}
	for name, args := range map[string]map[string]any{
		"project": {"project": "q"}, "who": {"who": "zed"}, "tags": {"tags": []string{"u"}},
	} {
		if _, got = list(args); !slices.Equal(got, ids[:1]) {
			t.Errorf("%s: %v", name, got)
		}
	}
	mcpFail(t, cs, "memory_list", map[string]any{"limit": 201}, "limit")
	mcpFail(t, cs, "memory_list", map[string]any{"offset": -1}, "offset")
}

func TestMCPModifyAndForget(t *testing.T) {
	ap := mcpService(t)
	svc := ap.Service
	cs := mcpSession(t, ap)
	ctx := context.Background()
	id := mcpStore(t, cs, map[string]any{"content": "the cache lives in /tmp", "type": "fact"})

	_, out := mcpOK(t, cs, "memory_modify", map[string]any{
		"id": id, "reason": "moved", "if_version": 1, "content": "the cache lives in ~/.cache",
		"type": "decision", "importance": 0.4, "tags": []string{"cache"}, "pinned": true,
	})
	if out["status"] != "updated" || out["version"] != float64(2) || out["previous_version"] != float64(1) || out["content_changed"] != true {
		t.Errorf("modify: %v", out)
	}
	m, _ := svc.Get(ctx, id, false)
	if m.Content != "the cache lives in ~/.cache" || m.Type != "decision" || m.Importance != 0.4 || !m.Pinned ||
		!slices.Equal(m.Tags, []string{"cache"}) || m.Version != 2 {
		t.Errorf("after modify: %+v", m)
	}
	hist, _ := svc.MemoryHistory(ctx, id, 10)
	if last := hist[len(hist)-1]; last.Reason != "moved" || last.ChangedBy != "test-agent" || last.ActorType != core.ActorAgent {
		t.Errorf("history: %+v", last)
	}
	// Clearing tags with [] is honoured; an identical patch changes nothing.
	mcpOK(t, cs, "memory_modify", map[string]any{"id": id, "reason": "untag", "tags": []string{}})
	if m, _ := svc.Get(ctx, id, false); len(m.Tags) != 0 || m.Version != 3 {
		t.Errorf("untag: %+v", m)
	}
	_, out = mcpOK(t, cs, "memory_modify", map[string]any{"id": id, "reason": "same", "type": "decision"})
	if out["status"] != "no_changes" || out["version"] != float64(3) {
		t.Errorf("no-op modify: %v", out)
	}

	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "type": "fact"}, "reason")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "reason": "", "type": "fact"}, "reason")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "reason": "r"}, "invalid_request", "at least one")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "reason": "stale", "if_version": 1, "type": "fact"}, "version_conflict", "version 3")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": "nope", "reason": "r", "type": "fact"}, "not_found", "nope")

	// Forget: pinned needs force; if_version guards; reason required.
	mcpFail(t, cs, "memory_forget", map[string]any{"id": id}, "reason")
	mcpFail(t, cs, "memory_forget", map[string]any{"id": id, "reason": "old"}, "pinned_requires_force")
	mcpFail(t, cs, "memory_forget", map[string]any{"id": id, "reason": "old", "force": true, "if_version": 2}, "version_conflict")
	mcpFail(t, cs, "memory_forget", map[string]any{"id": "nope", "reason": "old"}, "not_found")
	_, out = mcpOK(t, cs, "memory_forget", map[string]any{"id": id, "reason": "old", "force": true, "if_version": 3})
	if out["status"] != "deleted" || out["version"] != float64(4) {
		t.Errorf("forget: %v", out)
	}
	hist, _ = svc.MemoryHistory(ctx, id, 10)
	if last := hist[len(hist)-1]; last.Event != storage.EventDeleted || last.Reason != "old" || last.ChangedBy != "test-agent" {
		t.Errorf("forget history: %+v", last)
	}
	mcpFail(t, cs, "memory_get", map[string]any{"id": id}, "not_found")
	mcpFail(t, cs, "memory_forget", map[string]any{"id": id, "reason": "again"}, "already_deleted")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "reason": "r", "type": "fact"}, "deleted")
}

func TestMCPFrozen(t *testing.T) {
	ap := mcpService(t)
	svc := ap.Service
	cs := mcpSession(t, ap)
	id := mcpStore(t, cs, map[string]any{"content": "frozen test memory"})
	svc.SetMutationsFrozen(true)
	mcpFail(t, cs, "memory_store", map[string]any{"content": "another"}, "mutations_frozen")
	mcpFail(t, cs, "memory_modify", map[string]any{"id": id, "reason": "r", "type": "fact"}, "mutations_frozen")
	mcpFail(t, cs, "memory_forget", map[string]any{"id": id, "reason": "r"}, "mutations_frozen")
	// Reads still work.
	mcpOK(t, cs, "memory_get", map[string]any{"id": id})
	mcpOK(t, cs, "memory_search", map[string]any{"query": "frozen"})
	mcpOK(t, cs, "memory_list", map[string]any{})
}

// The same tools over the API's /mcp (stateless Streamable HTTP).
func TestMCPOverHTTP(t *testing.T) {
	ap := mcpService(t)
	svc := ap.Service
	ts := httptest.NewServer(httpapi.NewAPI(ap, "test", "").Handler())
	defer ts.Close()
	ctx := context.Background()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 6 {
		t.Fatalf("%d tools", len(tools.Tools))
	}
	_, out := mcpOK(t, cs, "memory_store", map[string]any{"content": "the HTTP transport is stateless", "type": "decision"})
	id := out["id"].(string)
	_, out = mcpOK(t, cs, "memory_search", map[string]any{"query": "stateless transport"})
	if ids := mcpResultIDs(out, "results"); !slices.Equal(ids, []string{id}) {
		t.Errorf("search over HTTP: %v", out)
	}
	m, _ := svc.Get(ctx, id, false)
	if m.Type != "decision" {
		t.Errorf("type %q", m.Type)
	}
	hist, _ := svc.MemoryHistory(ctx, id, 10)
	if len(hist) != 1 || hist[0].ActorType != core.ActorAgent || hist[0].ChangedBy == "" {
		t.Errorf("history over HTTP: %+v", hist)
	}
	mcpFail(t, cs, "memory_get", map[string]any{"id": "missing"}, "not_found")

	// Stateless: no session id is issued, GET is refused, and a request
	// whose Host is not loopback is refused (DNS-rebinding protection).
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("plain tools/list: %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, err = http.Get(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: %d, want 405", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Host = "evil.example:80"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("rebinding Host: %d, want 403", resp.StatusCode)
	}
}
