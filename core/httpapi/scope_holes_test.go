package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The holes of issue 15, one test each. They share the fixture of the
// scope matrix (scope_test.go): alpha is the token's project, beta is not.

// PATCH /api/memory/{id} with "project" moved a memory of alpha into beta.
func TestScopePatchCannotMoveProject(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	e.Do(t, "PATCH", "/api/memory/"+f.memA, map[string]any{"reason": "move", "project": projB}, tok).WantErr(t, 403, auth.CodeForbidden)
	if m, _ := e.Svc.Get(context.Background(), f.memA, false); m.Project != projA || m.Version != 1 {
		t.Fatalf("moved: %+v", m)
	}
	// Within the project a patch works, "project" included.
	e.Do(t, "PATCH", "/api/memory/"+f.memA, map[string]any{"reason": "same", "project": projA, "importance": 0.3}, tok).Want(t, 200)
	// The batch route is held to the same rule, patch by patch.
	before := e.State(t)
	e.Do(t, "POST", "/api/memory/modify", map[string]any{"reason": "move", "patches": []any{
		map[string]any{"id": f.memA, "importance": 0.4}, map[string]any{"id": f.memA, "project": projB}}}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Unchanged(t, before)
}

// POST /api/memory/modify: the gate read the patch id case-insensitively
// (a struct) and the handler exactly (a map), so {"id": beta's, "ID":
// alpha's} passed the gate as alpha's and changed beta's. Bodies whose
// keys differ only in case, or repeat, are now refused before anyone
// reads them, and the gate reads the patches with the handler's own code.
func TestScopeModifyKeyCase(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	before := f.betaState(t)
	for name, raw := range map[string]string{
		"id then ID":    `{"reason":"x","patches":[{"id":"` + f.memB + `","ID":"` + f.memA + `","importance":0.2}]}`,
		"ID then id":    `{"reason":"x","patches":[{"ID":"` + f.memA + `","id":"` + f.memB + `","importance":0.2}]}`,
		"ID alone":      `{"reason":"x","patches":[{"ID":"` + f.memB + `","importance":0.2}]}`,
		"duplicate id":  `{"reason":"x","patches":[{"id":"` + f.memA + `","id":"` + f.memB + `","importance":0.2}]}`,
		"Patches":       `{"reason":"x","Patches":[{"id":"` + f.memB + `","importance":0.2}]}`,
		"two patches":   `{"reason":"x","patches":[{"id":"` + f.memA + `"}],"patches":[{"id":"` + f.memB + `","importance":0.2}]}`,
		"Project moved": `{"reason":"x","patches":[{"id":"` + f.memA + `","project":"` + projA + `","Project":"` + projB + `"}]}`,
	} {
		r := e.Do(t, "POST", "/api/memory/modify", apitest.RawBody(raw), tok).WantErr(t, 400, core.CodeInvalidRequest)
		if r.Str("field") == "" {
			t.Errorf("%s: the refusal names no field: %s", name, r)
		}
	}
	if after := f.betaState(t); after != before {
		t.Fatalf("beta changed:\n%s\n%s", before, after)
	}
	if m, _ := e.Svc.Get(context.Background(), f.memA, false); m.Project != projA {
		t.Fatalf("alpha's memory moved: %+v", m)
	}
}

// session-end (and every hook) with a session key of another project was
// accepted: it ended beta's session and replaced its transcript.
func TestScopeSessionEndForeignKey(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	before := f.betaState(t)
	for _, key := range []string{"session_key", "sessionKey", "session_id", "sessionId"} {
		e.Do(t, "POST", "/api/hooks/session-end", map[string]any{"harness": "claude-code", key: betaKey, "project": projA,
			"transcript": "User: mine now"}, tok).WantErr(t, 403, auth.CodeForbidden)
	}
	// A memory filed under beta's session would carry its transcript into
	// recall's expand.
	for _, key := range []string{"session_id", "sessionId"} {
		e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "tied to beta", key: betaKey}, tok).WantErr(t, 403, auth.CodeForbidden)
	}
	if after := f.betaState(t); after != before {
		t.Fatalf("beta's session changed:\n%s\n%s", before, after)
	}
	e.Do(t, "GET", "/api/sessions/"+betaKey, nil, tok).WantErr(t, 404, core.CodeNotFound)
	// The token's own sessions work, and are filed under its project
	// whatever the body says.
	e.Do(t, "POST", "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_key": "alpha-1", "project": projB,
		"transcript": "User: alpha's own"}, tok).Want(t, 200)
	s := e.Do(t, "GET", "/api/sessions/alpha-1", nil, tok).Want(t, 200)
	if s.Str("project") != projA || !strings.Contains(s.Str("transcript"), "alpha's own") {
		t.Fatalf("own session: %s", s)
	}
	list := e.Do(t, "GET", "/api/sessions?project="+projB, nil, tok).Want(t, 200).List(t, "sessions")
	if len(list) != 1 || list[0]["key"] != "alpha-1" {
		t.Fatalf("sessions: %v", list)
	}
}

// Job results hold the facts extracted from a memory or a transcript:
// another project's job is not found.
func TestScopeJobResults(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	e.Exec(t, `UPDATE memory_jobs SET status = 'completed', result = ? WHERE id IN (?, ?)`, `{"facts":["`+betaMarker+` fact"]}`, f.jobB, f.sessJobB)
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	for _, id := range []string{f.jobB, f.sessJobB} {
		for _, path := range []string{"/api/jobs/", "/api/memory/jobs/"} {
			r := e.Do(t, "GET", path+id, nil, tok).WantErr(t, 404, core.CodeNotFound)
			if strings.Contains(string(r.Raw), betaMarker) {
				t.Fatalf("%s%s: %s", path, id, r)
			}
		}
	}
	// Its own project's job is there; so is a transcript job of its own
	// session.
	e.Do(t, "GET", "/api/jobs/"+f.jobA, nil, tok).Want(t, 200)
	own := e.Do(t, "POST", "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_key": "alpha-2",
		"transcript": "User: alpha"}, tok).Want(t, 200).Str("jobId")
	e.Do(t, "GET", "/api/memory/jobs/"+own, nil, tok).Want(t, 200)
	// A document's jobs belong to no project.
	doc := e.Do(t, "POST", "/api/documents", map[string]any{"source_type": "text", "content": "a document", "title": "d"}, f.admin).Str("id")
	var docJob string
	if err := e.RO.QueryRow(`SELECT id FROM memory_jobs WHERE document_id = ?`, doc).Scan(&docJob); err != nil {
		t.Fatal(err)
	}
	e.Do(t, "GET", "/api/jobs/"+docJob, nil, tok).WantErr(t, 404, core.CodeNotFound)
	// The job list is installation-wide: refused.
	e.Do(t, "GET", "/api/jobs", nil, apitest.Bearer(e.Token(t, "operator", projA))).WantErr(t, 403, auth.CodeForbidden)
}

// Rate limits were keyed by role: one agent could spend every agent's
// budget. They are per token now.
func TestRateLimitPerToken(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("team"), func(c *config.Config) { c.Auth.RateForget = 2 })
	one, two := apitest.Bearer(e.Token(t, "agent", "")), apitest.Bearer(e.Token(t, "agent", ""))
	for range 2 {
		e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, one).WantErr(t, 404, core.CodeNotFound)
	}
	e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, one).WantErr(t, 429, auth.CodeRateLimited)
	// Another token of the same role has its own budget.
	for range 2 {
		e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, two).WantErr(t, 404, core.CodeNotFound)
	}
	e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, two).WantErr(t, 429, auth.CodeRateLimited)
	// A token minted before tokens had ids is known by its signature.
	legacy := func(iat int64) http.Header {
		tok, err := auth.SignToken(e.Secret(t), auth.Claims{Sub: "token:agent", Role: "agent", IAT: iat, Exp: e.Clock.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return apitest.Bearer(tok)
	}
	l1, l2 := legacy(1), legacy(2)
	for range 2 {
		e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, l1).WantErr(t, 404, core.CodeNotFound)
	}
	e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, l1).WantErr(t, 429, auth.CodeRateLimited)
	e.Do(t, "DELETE", "/api/memory/nope?reason=x", nil, l2).WantErr(t, 404, core.CodeNotFound)
}

// In hybrid mode a local caller without a token is limited by its address.
func TestRateLimitHybridLocalByAddress(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.AuthMode("hybrid"), func(c *config.Config) { c.Auth.RateForget = 1 })
	del := func(remote string) int {
		req := httptest.NewRequest("DELETE", "/api/memory/nope?reason=x", nil)
		req.RemoteAddr, req.Host = remote, "127.0.0.1:3850"
		rec := httptest.NewRecorder()
		e.H.ServeHTTP(rec, req)
		return rec.Code
	}
	if c := del("127.0.0.1:4000"); c != 404 {
		t.Fatalf("first: %d", c)
	}
	if c := del("127.0.0.1:4001"); c != 429 { // same address, another port
		t.Fatalf("second from the same address: %d, want 429", c)
	}
	if c := del("127.0.0.2:4000"); c != 404 {
		t.Fatalf("another address: %d", c)
	}
}

// History recorded every token of a role as one actor ("token:agent"),
// and took the actor type from a header. The token decides both now.
func TestHistoryActorIsTheToken(t *testing.T) {
	for _, mode := range []string{auth.ModeTeam, auth.ModeHybrid} {
		t.Run(mode, func(t *testing.T) {
			e := apitest.NewStoreEnv(t, apitest.AuthMode(mode))
			sub := func(tok string) string {
				r := e.Do(t, "GET", "/api/auth/whoami", nil, apitest.Bearer(tok)).Want(t, 200)
				return r.JSON["claims"].(map[string]any)["sub"].(string)
			}
			agent1, agent2, op := e.Token(t, "agent", ""), e.Token(t, "agent", ""), e.Token(t, "operator", "")
			if sub(agent1) == sub(agent2) {
				t.Fatalf("two tokens share a subject: %s", sub(agent1))
			}
			for i, c := range []struct{ tok, wantType string }{{agent1, core.ActorAgent}, {agent2, core.ActorAgent}, {op, core.ActorOperator}} {
				h := apitest.Bearer(c.tok)
				// The headers claim someone else; the token wins.
				h.Set("X-Cairn-Actor", "root")
				h.Set("X-Cairn-Actor-Type", core.ActorPipeline)
				h.Set("X-Signet-Actor", "root")
				h.Set("X-Signet-Actor-Type", core.ActorDaemon)
				id := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": fmt.Sprintf("written by token %d", i), "changed_by": "root"}, h).Want(t, 200).Str("id")
				e.Do(t, "PATCH", "/api/memory/"+id, map[string]any{"reason": "edit", "importance": 0.4, "changedBy": "root"}, h).Want(t, 200)
				hist, err := e.Svc.MemoryHistory(context.Background(), id, 10)
				if err != nil || len(hist) != 2 {
					t.Fatalf("history: %v %v", hist, err)
				}
				for _, ev := range hist {
					if ev.ChangedBy != sub(c.tok) || ev.ActorType != c.wantType {
						t.Errorf("%s: recorded %q (%s), want %q (%s)", ev.Event, ev.ChangedBy, ev.ActorType, sub(c.tok), c.wantType)
					}
				}
			}
		})
	}
}

// An agent- or user-scoped token is that agent or user: what it writes is
// theirs, and it changes only what they authored.
func TestScopeAgentAndUser(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tok := apitest.Bearer(e.ScopedToken(t, "agent", auth.TokenScope{Project: projA, Agent: "codex"}))
	r := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "codex wrote this", "who": "claude-code"}, tok).Want(t, 200)
	own := r.Str("id")
	if r.Str("who") != "codex" || r.Str("project") != projA {
		t.Fatalf("remember: %s", r)
	}
	// memA is alpha's but authored by an admin token: readable, not changeable.
	e.Do(t, "GET", "/api/memory/"+f.memA, nil, tok).Want(t, 200)
	before := e.State(t)
	e.Do(t, "PATCH", "/api/memory/"+f.memA, map[string]any{"reason": "x", "importance": 0.2}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "DELETE", "/api/memory/"+f.memA+"?reason=x", nil, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "POST", "/api/memory/forget", map[string]any{"reason": "x", "ids": []string{f.memA}}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "PATCH", "/api/memory/"+own, map[string]any{"reason": "x", "who": "claude-code"}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Unchanged(t, before)
	e.Do(t, "PATCH", "/api/memory/"+own, map[string]any{"reason": "x", "importance": 0.2}, tok).Want(t, 200)
	// A batch forget by filter is held to the agent's memories.
	p := e.Do(t, "POST", "/api/memory/forget", map[string]any{"reason": "x", "mode": "preview", "query": "kettles codex wrote"}, tok).Want(t, 200)
	if strings.Contains(string(p.Raw), f.memA) {
		t.Fatalf("forget preview selects another author's memory: %s", p)
	}
	// Its hooks run as the agent, in the agent's sessions only.
	e.Do(t, "POST", "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_key": "codex-1"}, tok).Want(t, 200)
	s := e.Do(t, "GET", "/api/sessions/codex-1", nil, tok).Want(t, 200)
	if s.Str("harness") != "codex" || s.Str("project") != projA {
		t.Fatalf("session: %s", s)
	}
	e.Do(t, "POST", "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_key": "claude-1", "project": projA}, f.admin).Want(t, 200)
	e.Do(t, "POST", "/api/hooks/user-prompt-submit", map[string]any{"harness": "codex", "session_key": "claude-1", "prompt": "hello there"}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "GET", "/api/sessions/claude-1", nil, tok).WantErr(t, 404, core.CodeNotFound)
	if l := e.Do(t, "GET", "/api/sessions", nil, tok).Want(t, 200).List(t, "sessions"); len(l) != 1 || l[0]["key"] != "codex-1" {
		t.Fatalf("sessions: %v", l)
	}
	hr := e.Do(t, "POST", "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "hook write of codex", "who": "someone"}, tok).Want(t, 200)
	if m, _ := e.Svc.Get(context.Background(), hr.Str("id"), false); m.Who != "codex" || m.Project != projA {
		t.Fatalf("hook remember: %+v", m)
	}
	// A user-scoped token (no project) works the same way on authorship.
	ut := apitest.Bearer(e.ScopedToken(t, "agent", auth.TokenScope{User: "dana"}))
	if w := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "dana's note"}, ut).Want(t, 200).Str("who"); w != "dana" {
		t.Fatalf("user who: %q", w)
	}
	e.Do(t, "PATCH", "/api/memory/"+f.memB, map[string]any{"reason": "x", "importance": 0.2}, ut).WantErr(t, 403, auth.CodeForbidden)
}

// The hooks of a project-scoped token inject its project's memories only:
// not another project's (even with hooks.cross_project), not those without
// a project.
func TestScopeHooksConfined(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam, func(c *config.Config) {
		c.Hooks.CrossProject = true
		c.Hooks.PromptMinScore, c.Hooks.PromptMinCoverage = 0, 0 // about scope, not aboutness
	})
	e := f.e
	e.MustIDAs(t, "NOPROJECT kettles live in the common room")
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/api/hooks/session-start", map[string]any{"harness": "claude-code"}},
		{"/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "prompt": "where are the kettles kept, vault or room"}},
		{"/api/hooks/recall", map[string]any{"harness": "claude-code", "query": "kettles vault room"}},
		{"/api/hooks/pre-compaction", map[string]any{"harness": "claude-code"}},
	} {
		r := e.Do(t, "POST", c.path, c.body, tok).Want(t, 200)
		if s := string(r.Raw); strings.Contains(s, betaMarker) || strings.Contains(s, "NOPROJECT") || !strings.Contains(s, "shed") {
			t.Errorf("%s: %s", c.path, r)
		}
	}
	// The admin's hooks still see across projects (the configuration's choice).
	r := e.Do(t, "POST", "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA}, f.admin).Want(t, 200)
	if !strings.Contains(string(r.Raw), betaMarker) {
		t.Fatalf("cross_project no longer applies to unscoped callers: %s", r)
	}
}

// The write path deduplicates on idempotency keys and source ids across
// projects and answers with the memory it found: a scoped token naming
// beta's key would read beta's memory.
func TestScopeDedupKeysForeign(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	idem := e.MustIDAs(t, betaMarker+" keyed", "project", projB, "idempotency_key", "beta-key-1")
	src := e.MustIDAs(t, betaMarker+" sourced", "project", projB, "source_type", "import", "source_id", "beta-src-1")
	tok := apitest.Bearer(e.Token(t, "agent", projA))
	for _, body := range []map[string]any{
		{"content": "x", "idempotency_key": "beta-key-1"},
		{"content": "x", "idempotencyKey": "beta-key-1"},
		{"content": "x", "source_type": "import", "source_id": "beta-src-1"},
	} {
		r := e.Do(t, "POST", "/api/memory/remember", body, tok).WantErr(t, 403, auth.CodeForbidden)
		if strings.Contains(string(r.Raw), betaMarker) || strings.Contains(string(r.Raw), idem) || strings.Contains(string(r.Raw), src) {
			t.Fatalf("%v: %s", body, r)
		}
	}
	e.Do(t, "POST", "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "x", "idempotency_key": "beta-key-1"}, tok).WantErr(t, 403, auth.CodeForbidden)
	// Its own keys deduplicate as before.
	a := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "alpha keyed", "idempotency_key": "alpha-key"}, tok).Want(t, 200).Str("id")
	if b := e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "alpha keyed", "idempotency_key": "alpha-key"}, tok).Want(t, 200).Str("id"); a != b {
		t.Fatalf("retry: %s != %s", a, b)
	}
}

// Every refusal reaches the error ring as MUTATION_SCOPE_DENIED, with the
// token as actor and the memory it named.
func TestScopeDenialRecorded(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tokStr := e.Token(t, "agent", projA)
	tok := apitest.Bearer(tokStr)
	sub := e.Do(t, "GET", "/api/auth/whoami", nil, tok).JSON["claims"].(map[string]any)["sub"].(string)
	e.Do(t, "DELETE", "/api/memory/"+f.memB+"?reason=x", nil, tok).WantErr(t, 403, auth.CodeForbidden)
	errs, _ := e.Svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageMutation})
	if len(errs) == 0 || errs[0].Code != analytics.CodeMutationScopeDenied || errs[0].Actor != sub || errs[0].MemoryID != f.memB || errs[0].RequestID == "" {
		t.Fatalf("error ring: %+v", errs)
	}
	// MCP refusals too.
	h := apitest.Bearer(tokStr)
	h.Set("Accept", "application/json, text/event-stream")
	r := e.Do(t, "POST", "/mcp", rpcToolCall("memory_forget", map[string]any{"id": f.memB, "reason": "x"}), h).Want(t, 200)
	if !strings.Contains(string(r.Raw), `"isError":true`) || !strings.Contains(string(r.Raw), auth.CodeForbidden) {
		t.Fatalf("mcp forget: %s", r)
	}
	errs, _ = e.Svc.Analytics().Errors(analytics.ErrorFilter{Stage: analytics.StageMutation})
	if errs[0].Code != analytics.CodeMutationScopeDenied || !strings.Contains(errs[0].Message, "memory_forget") || errs[0].Actor != sub {
		t.Fatalf("mcp refusal: %+v", errs[0])
	}
}

// MCP writes with a token are recorded as the token, stamped with its
// scope.
func TestScopeMCPStore(t *testing.T) {
	f := newScopeFixture(t, auth.ModeTeam)
	e := f.e
	tokStr := e.ScopedToken(t, "agent", auth.TokenScope{Project: projA, Agent: "codex"})
	h := apitest.Bearer(tokStr)
	h.Set("Accept", "application/json, text/event-stream")
	sub := e.Do(t, "GET", "/api/auth/whoami", nil, apitest.Bearer(tokStr)).JSON["claims"].(map[string]any)["sub"].(string)
	r := e.Do(t, "POST", "/mcp", rpcToolCall("memory_store", map[string]any{"content": "stored over mcp", "project": projB, "who": "claude-code"}), h).Want(t, 200)
	res := r.JSON["result"].(map[string]any)["structuredContent"].(map[string]any)
	m, err := e.Svc.Get(context.Background(), res["id"].(string), false)
	if err != nil || m.Project != projA || m.Who != "codex" {
		t.Fatalf("stored: %+v %v", m, err)
	}
	hist, _ := e.Svc.MemoryHistory(context.Background(), m.ID, 5)
	if len(hist) != 1 || hist[0].ChangedBy != sub || hist[0].ActorType != core.ActorAgent {
		t.Fatalf("history: %+v", hist)
	}
}
