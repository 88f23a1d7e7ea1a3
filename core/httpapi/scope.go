package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/storage"
)

// Scope confinement: what a token with a scope (project, agent, user; see
// auth.TokenScope) may see and change. The route table declares each
// route's scopeKind; confine applies it before the handler runs.
//
// The rules, route by route:
//   - Lists and searches are forced to the token's project (the
//     "project" query parameter or body field is replaced).
//   - What a scoped token creates is stamped with its scope: the project,
//     and its agent (else its user) as the author ("who") and, for an
//     agent, as the harness of its hooks and sessions.
//   - A memory, session or job named by id that lies outside the scope is
//     not found (404, the answer for one that does not exist) when read,
//     and forbidden (403) when changed or used: a change names an id the
//     caller already holds, and a refusal it can act on is kinder than a
//     puzzling "not found".
//   - A change may not move a memory out of the project, nor give it
//     another author; an agent- or user-scoped token changes only the
//     memories its agent or user authored.
//   - Routes over installation-wide data (history of every memory,
//     proposals, documents, the graph, analytics, diagnostics, jobs
//     lists, repairs) are refused.
//
// Every refusal is recorded in the analytics error ring as
// MUTATION_SCOPE_DENIED.
//
// Bodies are decoded once, here, and handed to the handler through the
// request's context (readBody), so the value checked is the value used.

// confine applies info's scope to r according to kind. It returns the
// request the handler is to serve, or the refusal.
func (g *authGate) confine(w http.ResponseWriter, r *http.Request, kind scopeKind, info authInfo) (*http.Request, *core.Error) {
	s := info.claims.Scope
	limit := g.a.svc.Config().Server.MaxBodyBytes
	switch kind {
	case scopeGlobal, scopeMCP:
		return r, nil
	case scopeDenied:
		return r, g.deny(r, "not available to a scoped token", "")
	case scopeQuery, scopeSessions:
		if s.Project != "" {
			q := r.URL.Query()
			q.Del("projects")
			q.Set("project", s.Project)
			r.URL.RawQuery = q.Encode()
		}
		return r, nil
	case scopeSession:
		return r, g.checkSession(r, info, r.PathValue("key"), false)
	case scopeMemory:
		return r, g.checkMemory(r, info, pathID(r), false)
	case scopeMemoryWrite:
		id := pathID(r)
		if e := g.checkMemory(r, info, id, true); e != nil || r.Method != http.MethodPatch {
			return r, e
		}
		return g.withBody(w, r, limit, func(b body) *core.Error {
			p, e := patchFrom(b, id)
			if e != nil {
				return nil // the handler answers the same
			}
			return g.checkPatch(r, info, p)
		})
	case scopeCreate:
		return g.withBody(w, r, limit, func(b body) *core.Error {
			force(b, "project", s.Project)
			force(b, "who", s.Author())
			in, e := rememberInputFrom(b)
			if e != nil {
				return nil
			}
			if e := g.checkSession(r, info, in.SessionID, true); e != nil {
				return e
			}
			if sc, _ := evolution.NormalizeScope(in.Scope); sc != "" && s.Project != "" {
				return g.deny(r, "a token scoped to a project writes project memories only: scope "+sc+" would leave it", "")
			}
			return g.checkDedupKeys(r, info, in.IdempotencyKey, core.OrDefault(in.SourceType, "manual"), in.SourceID)
		})
	case scopeSearch:
		return g.withBody(w, r, limit, func(b body) *core.Error {
			force(b, "project", s.Project)
			if in, e := recallInputFrom(b); e == nil && in.Expand {
				return g.deny(r, "expand is not available to a scoped token: it reads session transcripts", "")
			}
			return nil
		})
	case scopeModifyBatch:
		return g.withBody(w, r, limit, func(b body) *core.Error {
			patches, e := patchesFrom(b)
			if e != nil {
				return nil
			}
			for _, p := range patches {
				if p.Malformed != nil { // never applied: the handler reports it
					continue
				}
				if e := g.checkMemory(r, info, p.ID, true); e != nil {
					return e
				}
				if e := g.checkPatch(r, info, p); e != nil {
					return e
				}
			}
			return nil
		})
	case scopeForgetBatch:
		return g.withBody(w, r, limit, func(b body) *core.Error {
			force(b, "project", s.Project)
			force(b, "who", s.Author())
			in, e := forgetInputFrom(b)
			if e != nil {
				return nil
			}
			for _, id := range in.IDs {
				if e := g.checkMemory(r, info, id, true); e != nil {
					return e
				}
			}
			return nil
		})
	case scopeHook:
		return g.withBody(w, r, g.a.hookLimit(), func(b body) *core.Error {
			force(b, "project", s.Project)
			force(b, "harness", s.Agent)
			force(b, "who", s.Author())
			h, e := hookRequestFrom(b)
			if e != nil {
				return nil
			}
			if e := g.checkSession(r, info, h.SessionKey, true); e != nil {
				return e
			}
			return g.checkDedupKeys(r, info, h.IdempotencyKey, "", "")
		})
	case scopeJob:
		return r, g.checkJob(r, info, pathID(r))
	}
	// A kind added to the table but not here: refuse rather than serve.
	return r, g.deny(r, fmt.Sprintf("route scope %s is not enforced", kind), "")
}

// force sets field to value in b, unless value is "" (the scope does not
// restrict it).
func force(b body, field, value string) {
	if value != "" {
		b[field], _ = json.Marshal(value)
	}
}

// withBody decodes r's JSON body within limit, lets check confine it, and
// hands the decoded (and confined) body to the handler through the
// context; the raw body is replaced by its encoding for any reader of
// r.Body. A body that cannot be decoded is refused here as the handler
// would refuse it.
func (g *authGate) withBody(w http.ResponseWriter, r *http.Request, limit int64, check func(body) *core.Error) (*http.Request, *core.Error) {
	raw, e := readRaw(w, r, limit)
	if e != nil {
		return r, e
	}
	b, e := parseBody(raw)
	if e != nil {
		return r, e
	}
	if e := check(b); e != nil {
		return r, e
	}
	enc, err := json.Marshal(b)
	if err != nil {
		return r, core.AsError(err)
	}
	r = r.WithContext(context.WithValue(r.Context(), decodedBodyKey{}, &decodedBody{b: b, size: int64(len(raw))}))
	r.Body = io.NopCloser(bytes.NewReader(enc))
	r.ContentLength = int64(len(enc))
	r.Header.Del("Transfer-Encoding")
	return r, nil
}

// pathID is the id a memory or job route names: {id}, or the id of
// GET /api/memory/{a}/{b} (history and jobs).
func pathID(r *http.Request) string {
	if id := r.PathValue("id"); id != "" {
		return id
	}
	_, id := memorySub(r)
	return id
}

// checkMemory checks memory id against the scope: a memory of another
// project is not found when read and forbidden when changed; a change
// needs the memory's author to be the token's agent or user. A memory
// that does not exist passes: the handler answers.
func (g *authGate) checkMemory(r *http.Request, info authInfo, id string, write bool) *core.Error {
	if id == "" {
		return nil
	}
	m, err := g.a.svc.Get(r.Context(), id, true)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	} else if err != nil {
		return core.AsError(err)
	}
	s := info.claims.Scope
	switch {
	case !s.CoversProject(m.Project) && write:
		return g.deny(r, fmt.Sprintf("token scope does not cover memory %s (another project)", id), id)
	case !s.CoversProject(m.Project):
		if kind, _ := memorySub(r); kind == "history" {
			return g.hide(r, id, &core.Error{Code: core.CodeNotFound, Message: "Not found", Extra: map[string]any{"memoryId": id}})
		}
		return g.hide(r, id, &core.Error{Code: core.CodeNotFound, Message: core.ErrNotFound.Message})
	case write && !s.CoversAuthor(m.Who):
		return g.deny(r, fmt.Sprintf("token scope does not cover memory %s (another author)", id), id)
	}
	return nil
}

// checkPatch refuses a change that would move a memory out of the
// token's project or give it an author outside the token's scope.
func (g *authGate) checkPatch(r *http.Request, info authInfo, p core.Patch) *core.Error {
	s := info.claims.Scope
	if p.Project != nil && !s.CoversProject(*p.Project) {
		return g.deny(r, fmt.Sprintf("token scope does not cover project %q: a memory cannot move out of %q", *p.Project, s.Project), p.ID)
	}
	if p.Who != nil && s.Author() != "" && !s.CoversAuthor(*p.Who) {
		return g.deny(r, fmt.Sprintf("token scope does not cover author %q", *p.Who), p.ID)
	}
	return nil
}

// checkSession checks session key against the scope: a session of another
// project (or, for an agent-scoped token, of another agent) is not found
// when read and forbidden when used. A new key passes: the session will
// be created in the token's scope.
func (g *authGate) checkSession(r *http.Request, info authInfo, key string, use bool) *core.Error {
	if key == "" {
		return nil
	}
	project, harness, err := storage.SessionOwner(r.Context(), g.a.svc.DB().Reader(), key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	} else if err != nil {
		return core.AsError(err)
	}
	s := info.claims.Scope
	if s.CoversProject(project) && s.CoversHarness(harness) {
		return nil
	}
	if use {
		return g.deny(r, fmt.Sprintf("token scope does not cover session %q (another project or agent)", key), "")
	}
	return g.hide(r, "", &core.Error{Code: core.CodeNotFound, Message: "no session " + key})
}

// checkDedupKeys refuses a write whose idempotency key or source id is
// already held by a memory outside the scope: the write path deduplicates
// on them across projects and would answer with that memory.
func (g *authGate) checkDedupKeys(r *http.Request, info authInfo, idemKey, sourceType, sourceID string) *core.Error {
	ctx, q := r.Context(), g.a.svc.DB().Reader()
	var found []*storage.Memory
	if idemKey != "" {
		m, err := storage.FindLiveByIdempotencyKey(ctx, q, idemKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return core.AsError(err)
		}
		found = append(found, m)
	}
	if sourceID != "" && sourceType != "chunk" {
		m, err := storage.FindLiveBySource(ctx, q, sourceType, sourceID)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return core.AsError(err)
		}
		found = append(found, m)
	}
	for _, m := range found {
		if m != nil && !info.claims.Scope.CoversProject(m.Project) {
			return g.deny(r, "token scope does not cover the memory this idempotency key or source id names", m.ID)
		}
	}
	return nil
}

// checkJob hides a job that is not about a memory or session in scope:
// its payload and result (the facts extracted) are that memory's or
// session's content. Document jobs belong to no project.
func (g *authGate) checkJob(r *http.Request, info authInfo, id string) *core.Error {
	if id == "" {
		return nil
	}
	j, err := g.a.app.Jobs.Get(r.Context(), id)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil
	} else if err != nil {
		return core.AsError(err)
	}
	s := info.claims.Scope
	visible := false
	switch {
	case j.MemoryID != "":
		m, err := g.a.svc.Get(r.Context(), j.MemoryID, true)
		visible = err == nil && s.CoversProject(m.Project)
	case j.DocumentID == "" && j.JobType == jobs.SessionExtract:
		var p struct {
			SessionKey string `json:"session_key"`
		}
		if json.Unmarshal([]byte(j.Payload), &p) == nil && p.SessionKey != "" {
			project, harness, err := storage.SessionOwner(r.Context(), g.a.svc.DB().Reader(), p.SessionKey)
			visible = err == nil && s.CoversProject(project) && s.CoversHarness(harness)
		}
	}
	if visible {
		return nil
	}
	return g.hide(r, j.MemoryID, &core.Error{Code: core.CodeNotFound, Message: core.ErrNotFound.Message})
}

// deny refuses a request outside the caller's scope (403) and records it.
func (g *authGate) deny(r *http.Request, msg, memoryID string) *core.Error {
	recordScopeDenied(g.a.svc, r.Context(), r.Method+" "+r.URL.Path+": "+msg, memoryID)
	return &core.Error{Code: auth.CodeForbidden, Message: msg}
}

// hide answers a read outside the caller's scope as if the target did not
// exist, and records the refusal.
func (g *authGate) hide(r *http.Request, memoryID string, answer *core.Error) *core.Error {
	recordScopeDenied(g.a.svc, r.Context(), r.Method+" "+r.URL.Path+": outside the token's scope, answered not found", memoryID)
	return answer
}

// recordScopeDenied puts a scope refusal in the analytics error ring. It
// is the one place refusals are recorded, for the gate and the MCP tools.
func recordScopeDenied(svc *core.Service, ctx context.Context, msg, memoryID string) {
	info := authFrom(ctx)
	svc.Analytics().RecordError(analytics.ErrorEvent{Stage: analytics.StageMutation, Code: analytics.CodeMutationScopeDenied, Message: msg, RequestID: info.requestID, MemoryID: memoryID, Actor: info.actor})
}

// hookLimit bounds a hook request body: hooks.max_body_bytes, else
// server.max_body_bytes.
func (a *API) hookLimit() int64 {
	if limit := a.svc.Config().Hooks.MaxBodyBytes; limit > 0 {
		return limit
	}
	return a.svc.Config().Server.MaxBodyBytes
}

// confineHook tells the hook flows who calls: a token caller's writes are
// recorded as the token, and a project-scoped token's hooks see its
// project's memories only (no other project's, none without a project).
func confineHook(r *http.Request, h *hooks.Request) {
	info := authFrom(r.Context())
	if !info.authenticated {
		return
	}
	h.Caller = core.Actor{Name: info.actor, Type: auth.ActorType(info.claims.Role)}
	h.Confined = info.claims.Scoped() && info.claims.Scope.Project != ""
}

// visibleSessions drops from a session list what a scoped caller may not
// see (the list is already forced to its project; an agent-scoped token
// sees its agent's sessions only).
func visibleSessions(r *http.Request, list []*sessions.Info) []*sessions.Info {
	c := authFrom(r.Context()).claims
	if !c.Scoped() {
		return list
	}
	return slices.DeleteFunc(list, func(x *sessions.Info) bool {
		return !c.Scope.CoversProject(x.Project) || !c.Scope.CoversHarness(x.Harness)
	})
}
