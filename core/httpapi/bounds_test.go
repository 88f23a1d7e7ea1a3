package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tag%d", i)
	}
	return out
}

// TestHugeTagFilterIs400: a filter of a thousand tags overflowed SQLite's
// expression tree (500) and made export answer an empty 200. Every route
// that filters by tags now answers 400 naming the field.
func TestHugeTagFilterIs400(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	e.MustID(t, "a memory with a tag", "tags", []string{"tag1"})
	before := e.State(t)
	tags := manyTags(1000)
	q := url.QueryEscape(strings.Join(tags, ","))
	for _, path := range []string{"/api/memories?tags=" + q, "/api/memories/export?tags=" + q, "/api/memory/search?q=memory&tags=" + q, "/memory/search?q=memory&tags=" + q} {
		e.Get(t, path).WantInvalid(t, "tags", "at most 32")
	}
	e.Post(t, "/api/memory/recall", map[string]any{"query": "memory", "tags": tags}).WantInvalid(t, "tags", "at most 32")
	e.Post(t, "/api/memory/forget", map[string]any{"tags": tags, "mode": "execute", "force": true}).WantInvalid(t, "tags", "at most 32")
	e.Unchanged(t, before)
	// The limit itself is accepted.
	e.Get(t, "/api/memories?tags="+url.QueryEscape(strings.Join(tags[:config.MaxTags], ","))).Want(t, 200)
	e.Post(t, "/api/memory/recall", map[string]any{"query": "memory", "tags": tags[:config.MaxTags]}).Want(t, 200)
}

// TestTagBoundsOnWrites: at most 32 tags of at most 64 characters, on
// every way tags are written.
func TestTagBoundsOnWrites(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "a memory to retag")
	before := e.State(t)
	long := strings.Repeat("x", config.MaxTagChars+1)
	for _, tags := range []any{manyTags(config.MaxTags + 1), []string{"ok", long}, "ok," + long} {
		e.Post(t, "/api/memory/remember", map[string]any{"content": "too many or too long tags", "tags": tags}).WantInvalid(t, "tags", "at most")
		e.Patch(t, id, map[string]any{"reason": "retag", "tags": tags}).WantInvalid(t, "tags", "at most")
		e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "hook write", "tags": tags}).WantInvalid(t, "tags", "at most")
	}
	r := e.Post(t, "/api/memory/modify", map[string]any{"reason": "retag", "patches": []any{map[string]any{"id": id, "tags": manyTags(40)}}}).Want(t, 200)
	if !strings.Contains(string(r.Raw), "at most 32") {
		t.Fatalf("batch modify accepted 40 tags: %s", r)
	}
	e.Unchanged(t, before)
	// The error does not echo the tag (it may be a secret).
	r = e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "tags": []string{long}})
	if strings.Contains(r.Str("error"), long) {
		t.Fatalf("the error repeats the tag: %s", r)
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": "exactly at the limits", "tags": append(manyTags(config.MaxTags-1), long[1:])}).Want(t, 200)
}

func importBody(lines ...any) apitest.RawBody {
	var b bytes.Buffer
	for _, l := range lines {
		switch v := l.(type) {
		case string:
			b.WriteString(v)
		default:
			raw, _ := json.Marshal(v)
			b.Write(raw)
		}
		b.WriteByte('\n')
	}
	return apitest.RawBody(b.Bytes())
}

// TestImportGuardrails: import goes through remember's guardrails. A 10 MB
// memory was stored; now it is refused with its line, before anything is
// written. A text/plain import is refused (415).
func TestImportGuardrails(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	before := e.State(t)
	nd := apitest.Hdr("Content-Type", "application/x-ndjson")
	huge := strings.Repeat("ten megabytes of one memory ", 10<<20/28)
	r := e.Do(t, "POST", "/api/memories/import", importBody(map[string]any{"content": "a fine first line"}, map[string]any{"content": huge}), nd).
		WantErr(t, http.StatusRequestEntityTooLarge, core.CodeTooLarge)
	if r.Num("line") != 2 || r.Str("field") != "content" || !strings.Contains(r.Str("error"), "guardrails.max_remember_chars") {
		t.Fatalf("the refusal does not name the line and field: %s", r)
	}
	e.Do(t, "POST", "/api/memories/import", importBody(map[string]any{"content": "tagged", "tags": manyTags(33)}), nd).
		WantInvalid(t, "tags", "at most 32")
	e.Do(t, "POST", "/api/memories/import", importBody(map[string]any{"content": "sent as text"}), apitest.Hdr("Content-Type", "text/plain")).
		WantErr(t, http.StatusUnsupportedMediaType, "unsupported_media_type")
	e.Unchanged(t, before)
}

const (
	anthropicSecret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"
	githubSecret    = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
)

func wantRedacted(t *testing.T, what, raw string) {
	t.Helper()
	if strings.Contains(raw, anthropicSecret) || strings.Contains(raw, githubSecret) {
		t.Fatalf("%s holds a secret: %s", what, raw)
	}
	if !strings.Contains(raw, "[REDACTED:") {
		t.Fatalf("%s shows no redaction: %s", what, raw)
	}
}

// TestFreeTextFieldsRedacted: tags, who, why, source_id, document titles
// and metadata are redacted like content, on remember, modify, hooks and
// import.
func TestFreeTextFieldsRedacted(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "the deploy key rotates monthly", "tags", []string{"ops", anthropicSecret}, "who", "bot "+githubSecret,
		"why", "pasted token="+anthropicSecret, "source_id", "src-"+githubSecret)
	m := e.Get(t, "/api/memory/"+id).Want(t, 200)
	for _, f := range []string{"tags", "who", "why", "source_id"} {
		wantRedacted(t, "remember's "+f, fmt.Sprint(m.JSON[f]))
	}

	// Fields written as name:value are not env-file secrets.
	plain := e.MustID(t, "a memory with structured fields", "tags", []string{"session:s-42", "auth:oauth"}, "who", "token:agent",
		"source_id", "session:s-42", "why", "password reset flow")
	m = e.Get(t, "/api/memory/"+plain).Want(t, 200)
	if m.Str("who") != "token:agent" || m.Str("source_id") != "session:s-42" || m.Str("why") != "password reset flow" ||
		fmt.Sprint(m.JSON["tags"]) != "[session:s-42 auth:oauth]" {
		t.Fatalf("structured fields taken for secrets: %s", m)
	}

	id2 := e.MustID(t, "a memory patched with secrets")
	e.Patch(t, id2, map[string]any{"reason": "test", "who": "me " + githubSecret, "tags": []string{anthropicSecret}}).Want(t, 200)
	m = e.Get(t, "/api/memory/"+id2).Want(t, 200)
	wantRedacted(t, "patched who", fmt.Sprint(m.JSON["who"]))
	wantRedacted(t, "patched tags", fmt.Sprint(m.JSON["tags"]))

	h := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "hooked memory",
		"who": "agent " + githubSecret, "tags": []string{anthropicSecret}}).Want(t, 200)
	m = e.Get(t, "/api/memory/"+h.Str("id")).Want(t, 200)
	wantRedacted(t, "hook who", fmt.Sprint(m.JSON["who"]))
	wantRedacted(t, "hook tags", fmt.Sprint(m.JSON["tags"]))

	e.Do(t, "POST", "/api/memories/import", importBody(map[string]any{"id": "imp-1", "content": "imported with key " + anthropicSecret,
		"tags": []string{githubSecret}, "who": githubSecret, "why": anthropicSecret, "source_id": githubSecret}),
		apitest.Hdr("Content-Type", "application/x-ndjson")).Want(t, 200)
	m = e.Get(t, "/api/memory/imp-1").Want(t, 200)
	for _, f := range []string{"content", "tags", "who", "why", "source_id"} {
		wantRedacted(t, "imported "+f, fmt.Sprint(m.JSON[f]))
	}

	d := e.Post(t, "/api/documents", map[string]any{"source_type": "text", "content": "a document body",
		"title": "notes " + anthropicSecret, "metadata": map[string]any{"token": githubSecret, "n": 12345678901234567}}).Want(t, 201)
	doc := e.Get(t, "/api/documents/"+d.Str("id")).Want(t, 200)
	wantRedacted(t, "document title", fmt.Sprint(doc.JSON["title"]))
	wantRedacted(t, "document metadata", string(doc.Raw))
	if !strings.Contains(string(doc.Raw), "12345678901234567") {
		t.Fatalf("metadata numbers changed by redaction: %s", doc.Raw)
	}
}
