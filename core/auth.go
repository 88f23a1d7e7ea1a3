package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core/config"
)

// authInfo is what the auth layer learned about a request.
type authInfo struct {
	claims        *auth.Claims
	authenticated bool // a valid token was presented
}

type authCtxKey struct{}

func authFrom(ctx context.Context) authInfo {
	v, _ := ctx.Value(authCtxKey{}).(authInfo)
	return v
}

// authGate is the API's authentication, authorization and rate limiting.
type authGate struct {
	a *API

	mu      sync.Mutex
	secret  []byte
	windows map[string]*rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

func newAuthGate(a *API) *authGate { return &authGate{a: a, windows: map[string]*rateWindow{}} }

func (g *authGate) cfg() config.AuthConfig { return g.a.svc.cfg.Auth }

func (g *authGate) now() time.Time { return g.a.svc.now() }

// loadSecret returns the signing secret, creating it on first use.
func (g *authGate) loadSecret() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.secret != nil {
		return g.secret, nil
	}
	s, err := auth.LoadOrCreateSecret(auth.AuthSecretPath(g.cfg(), filepath.Dir(g.a.svc.db.Path())))
	if err != nil {
		return nil, err
	}
	g.secret = s
	return s, nil
}

// routeRule is what a route needs: a permission, an optional rate limiter,
// and how a project scope applies to it.
type routeRule struct {
	perm    string // "" means any caller that got past authentication
	limiter string
	scope   scopeKind
}

type scopeKind int

const (
	scopeNone    scopeKind = iota // not project data, or scoped elsewhere
	scopeQuery                    // force the "project" query parameter
	scopeBody                     // force the "project" field of a JSON body
	scopeID                       // the memory named by {id} must be in scope
	scopeIDWrite                  // as scopeID, for a mutation
	scopeBatch                    // ids/patches in the body must be in scope
	scopeDenied                   // not available to project-scoped tokens
)

// routeRules maps the router's patterns to what they need. A pattern not
// listed needs admin, so a new route is closed until someone opens it.
var routeRules = map[string]routeRule{
	"GET /api/status":                     {perm: auth.PermRecall},
	"GET /api/auth/whoami":                {},
	"POST /api/auth/token":                {perm: auth.PermAdmin, limiter: "admin"},
	"POST /api/memory/remember":           {perm: auth.PermRemember, scope: scopeBody},
	"POST /api/memory/save":               {perm: auth.PermRemember, scope: scopeBody},
	"POST /api/memory/recall":             {perm: auth.PermRecall, scope: scopeBody},
	"GET /api/memory/search":              {perm: auth.PermRecall, scope: scopeQuery},
	"GET /memory/search":                  {perm: auth.PermRecall, scope: scopeQuery},
	"GET /memory/similar":                 {perm: auth.PermRecall, scope: scopeDenied},
	"GET /api/embeddings":                 {perm: auth.PermDiagnostics, scope: scopeDenied},
	"GET /api/embeddings/status":          {perm: auth.PermDiagnostics},
	"GET /api/memories":                   {perm: auth.PermRecall, scope: scopeQuery},
	"GET /api/memories/export":            {perm: auth.PermRecall, scope: scopeQuery},
	"POST /api/memories/import":           {perm: auth.PermAdmin, limiter: "admin"},
	"POST /api/memory/modify":             {perm: auth.PermModify, limiter: "modify", scope: scopeBatch},
	"POST /api/memory/forget":             {perm: auth.PermForget, limiter: "batchForget", scope: scopeBatch},
	"GET /api/memory/{id}":                {perm: auth.PermRecall, scope: scopeID},
	"PATCH /api/memory/{id}":              {perm: auth.PermModify, limiter: "modify", scope: scopeIDWrite},
	"DELETE /api/memory/{id}":             {perm: auth.PermForget, limiter: "forget", scope: scopeIDWrite},
	"POST /api/memory/{id}/recover":       {perm: auth.PermRecover, scope: scopeIDWrite},
	"GET /api/history":                    {perm: auth.PermDiagnostics, scope: scopeDenied},
	"/mcp":                                {perm: auth.PermRemember, scope: scopeDenied},
	"POST /api/hooks/session-start":       {perm: auth.PermRecall},
	"POST /api/hooks/user-prompt-submit":  {perm: auth.PermRecall},
	"POST /api/hooks/recall":              {perm: auth.PermRecall},
	"POST /api/hooks/session-end":         {perm: auth.PermRemember},
	"POST /api/hooks/remember":            {perm: auth.PermRemember},
	"POST /api/hooks/pre-compaction":      {perm: auth.PermRemember},
	"POST /api/hooks/compaction-complete": {perm: auth.PermRemember},
	"GET /api/sessions":                   {perm: auth.PermRecall},
	"GET /api/sessions/{key}":             {perm: auth.PermRecall},
	"GET /api/proposals":                  {perm: auth.PermDiagnostics, scope: scopeDenied},
	"GET /api/proposals/{id}":             {perm: auth.PermDiagnostics, scope: scopeDenied},
	"POST /api/proposals/{id}/approve":    {perm: auth.PermModify, limiter: "modify", scope: scopeDenied},
	"POST /api/proposals/{id}/reject":     {perm: auth.PermModify, limiter: "modify", scope: scopeDenied},
	"GET /api/jobs/{id}":                  {perm: auth.PermDocuments},
	"GET /api/jobs":                       {perm: auth.PermDiagnostics},
	"POST /api/jobs/{id}/retry":           {perm: auth.PermAdmin, limiter: "admin"},
	"GET /api/graph/entities":             {perm: auth.PermRecall, scope: scopeDenied},
	"GET /api/pipeline/status":            {perm: auth.PermDiagnostics},
	"GET /api/diagnostics":                {perm: auth.PermDiagnostics},
	"GET /api/diagnostics/{domain}":       {perm: auth.PermDiagnostics},
	"GET /api/analytics/usage":            {perm: auth.PermAnalytics},
	"GET /api/analytics/errors":           {perm: auth.PermAnalytics},
	"GET /api/analytics/latency":          {perm: auth.PermAnalytics},
	"GET /api/analytics/latency/samples":  {perm: auth.PermAnalytics},
	"GET /api/memory/{a}/{b} jobs":        {perm: auth.PermDocuments},
	"GET /api/memory/{a}/{b} history":     {perm: auth.PermRecall, scope: scopeID},
	"GET /api/memory/{a}/{b} other":       {},
	"GET /api/repair":                     {perm: auth.PermAdmin, scope: scopeDenied},
	"GET /api/repair/embedding-gaps":      {perm: auth.PermAdmin, scope: scopeDenied},
	"GET /api/repair/dedup-stats":         {perm: auth.PermAdmin, scope: scopeDenied},
	"GET /api/maintenance":                {perm: auth.PermAdmin, scope: scopeDenied},
	"POST /api/maintenance/run":           {perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied},
	"POST /api/repair/{action}":           {perm: auth.PermAdmin, limiter: "admin", scope: scopeDenied},
	"POST /api/documents":                 {perm: auth.PermDocuments, scope: scopeDenied},
	"GET /api/documents":                  {perm: auth.PermDocuments, scope: scopeDenied},
	"GET /api/documents/{id}":             {perm: auth.PermDocuments, scope: scopeDenied},
	"GET /api/documents/{id}/chunks":      {perm: auth.PermDocuments, scope: scopeDenied},
	"DELETE /api/documents/{id}":          {perm: auth.PermDocuments, limiter: "forget", scope: scopeDenied},
}

// ruleFor finds the rule of the route r will reach; pattern is "" when no
// route matches (the router will answer 404 or 405).
func (g *authGate) ruleFor(r *http.Request) (routeRule, string) {
	_, pattern := g.a.mux.Handler(r)
	if pattern == "" {
		return routeRule{}, ""
	}
	if pattern == "GET /api/memory/{a}/{b}" {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case len(parts) == 4 && parts[2] == "jobs":
			return routeRules[pattern+" jobs"], pattern
		case len(parts) == 4 && parts[3] == "history":
			return routeRules[pattern+" history"], pattern
		}
		return routeRules[pattern+" other"], pattern
	}
	if rule, ok := routeRules[pattern]; ok {
		return rule, pattern
	}
	return routeRule{perm: auth.PermAdmin}, pattern
}

// wrap guards next according to auth.mode.
func (g *authGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := g.cfg().Mode
		if mode == "" || mode == auth.AuthLocal || r.URL.Path == "/health" {
			next.ServeHTTP(w, r)
			return
		}
		authz := strings.TrimSpace(r.Header.Get("Authorization"))
		r.Header.Del("Authorization") // nothing downstream may see or log it
		var info authInfo
		switch {
		case authz == "" && mode == auth.AuthHybrid && remoteIsLoopback(r):
			// A local caller in hybrid mode is trusted as the owner; the
			// connection's address decides, never the Host header.
			info = authInfo{claims: &auth.Claims{Sub: "local", Role: "admin"}}
		case authz == "":
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &Error{Status: http.StatusUnauthorized, Code: auth.CodeUnauthorized, Message: "authentication required"})
			return
		default:
			scheme, tok, _ := strings.Cut(authz, " ")
			if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
				w.Header().Set("WWW-Authenticate", "Bearer")
				writeError(w, &Error{Status: http.StatusUnauthorized, Code: auth.CodeUnauthorized, Message: "authentication required: use Authorization: Bearer <token>"})
				return
			}
			secret, err := g.loadSecret()
			if err != nil {
				g.a.log.Error("auth secret", "err", err)
				writeError(w, &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "auth secret unavailable"})
				return
			}
			c, err := auth.VerifyToken(secret, strings.TrimSpace(tok), g.now())
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				writeError(w, &Error{Status: http.StatusUnauthorized, Code: auth.CodeUnauthorized, Message: err.Error()})
				return
			}
			info = authInfo{claims: c, authenticated: true}
			// The token's subject is the actor; headers cannot override it.
			r.Header.Del("X-Signet-Actor")
			r.Header.Set("X-Cairn-Actor", c.Sub)
		}
		r = r.WithContext(context.WithValue(r.Context(), authCtxKey{}, info))

		rule, pattern := g.ruleFor(r)
		if pattern == "" {
			next.ServeHTTP(w, r) // the router's own 404/405
			return
		}
		c := info.claims
		if rule.perm != "" && !auth.RoleHas(c.Role, rule.perm) {
			writeError(w, &Error{Status: http.StatusForbidden, Code: auth.CodeForbidden,
				Message: fmt.Sprintf("role '%s' lacks '%s' permission", c.Role, rule.perm)})
			return
		}
		if rule.limiter != "" && info.authenticated {
			if retry, ok := g.allow(c.Sub, rule.limiter); !ok {
				secs := int(math.Ceil(retry.Seconds()))
				w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
				writeError(w, &Error{Status: http.StatusTooManyRequests, Code: auth.CodeRateLimited, Message: "rate limit exceeded",
					Extra: map[string]any{"retryAfter": g.now().Add(retry).UnixMilli(), "operation": rule.limiter}})
				return
			}
		}
		if c.Role != "admin" && c.Scope.Project != "" {
			var e *Error
			r, e = g.applyScope(w, r, rule.scope, c.Scope.Project)
			if e != nil {
				writeError(w, e)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func remoteIsLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// allow counts one request of op by sub in the current fixed window; when
// the window is full it returns how long until it resets.
func (g *authGate) allow(sub, op string) (time.Duration, bool) {
	cfg := g.cfg()
	limit := map[string]int{"forget": cfg.RateForget, "modify": cfg.RateModify, "batchForget": cfg.RateBatchForget, "admin": cfg.RateAdmin}[op]
	if limit <= 0 {
		return 0, true
	}
	window := time.Duration(cfg.RateWindow)
	if window <= 0 {
		window = config.DefaultAuthRateWindow
	}
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	key := sub + ":" + op
	w := g.windows[key]
	if w == nil || !now.Before(w.start.Add(window)) {
		w = &rateWindow{start: now}
		g.windows[key] = w
	}
	if w.count >= limit {
		return w.start.Add(window).Sub(now), false
	}
	w.count++
	return 0, true
}

var errOutOfScope = &Error{Status: http.StatusForbidden, Code: auth.CodeForbidden, Message: "token scope does not cover this project"}

// applyScope confines a project-scoped caller to its project: list and
// search filters are forced to it, bodies are rewritten, and a memory of
// another project is not found (reads) or forbidden (writes).
func (g *authGate) applyScope(w http.ResponseWriter, r *http.Request, kind scopeKind, project string) (*http.Request, *Error) {
	switch kind {
	case scopeQuery:
		q := r.URL.Query()
		q.Del("projects")
		q.Set("project", project)
		r.URL.RawQuery = q.Encode()
	case scopeDenied:
		return r, &Error{Status: http.StatusForbidden, Code: auth.CodeForbidden, Message: "not available to a project-scoped token"}
	case scopeID, scopeIDWrite:
		// The router has not set path values yet: every such route is
		// /api/memory/{id}[/...].
		id := ""
		if parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/"); len(parts) >= 3 {
			id = parts[2]
		}
		if e := g.memoryInScope(r, id, project, kind == scopeIDWrite); e != nil {
			return r, e
		}
	case scopeBody, scopeBatch:
		obj, raw, e := g.readObject(w, r)
		if e != nil {
			return r, e
		}
		if obj == nil {
			r.Body = io.NopCloser(bytes.NewReader(raw))
			return r, nil // not an object: the handler explains
		}
		if kind == scopeBatch {
			if e := g.batchInScope(r, obj, project); e != nil {
				return r, e
			}
		}
		if kind == scopeBody || r.URL.Path == "/api/memory/forget" {
			obj["project"], _ = json.Marshal(project)
		}
		raw, _ = json.Marshal(obj)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		r.ContentLength = int64(len(raw))
		r.Header.Del("Transfer-Encoding")
	}
	return r, nil
}

func (g *authGate) readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, []byte, *Error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.a.svc.cfg.Server.MaxBodyBytes))
	if err != nil {
		return nil, nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge, Message: "request body too large"}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, raw, nil
	}
	return obj, raw, nil
}

func (g *authGate) memoryInScope(r *http.Request, id, project string, write bool) *Error {
	m, err := g.a.svc.Get(r.Context(), id, true)
	if err != nil || m == nil {
		return nil // the handler answers not found
	}
	if m.Project == project {
		return nil
	}
	if write {
		return errOutOfScope
	}
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "Not found", Extra: map[string]any{"memoryId": id}}
}

// batchInScope checks the ids of a batch forget and the patches of a batch
// modify.
func (g *authGate) batchInScope(r *http.Request, obj map[string]json.RawMessage, project string) *Error {
	var ids []string
	if raw, ok := obj["ids"]; ok {
		_ = json.Unmarshal(raw, &ids)
	}
	if raw, ok := obj["patches"]; ok {
		var patches []struct {
			ID      string  `json:"id"`
			Project *string `json:"project"`
		}
		_ = json.Unmarshal(raw, &patches)
		for _, p := range patches {
			if p.Project != nil && *p.Project != project {
				return errOutOfScope
			}
			ids = append(ids, p.ID)
		}
	}
	for _, id := range ids {
		if e := g.memoryInScope(r, id, project, true); e != nil {
			return e
		}
	}
	return nil
}

// authToken issues a token: POST /api/auth/token {role, scope?, ttlSeconds?}.
func (a *API) authToken(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.cfg.Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	if a.auth.cfg().Mode == auth.AuthLocal || a.auth.cfg().Mode == "" {
		writeError(w, invalid("mode", "tokens need auth.mode team or hybrid; local mode has no secret"))
		return
	}
	role, _, e := b.str("role")
	if e != nil {
		writeError(w, e)
		return
	}
	if !auth.ValidRole(role) {
		writeError(w, invalid("role", "role must be one of %s", strings.Join(auth.Roles, ", ")))
		return
	}
	var scope auth.TokenScope
	if raw, _ := b.field("scope"); raw != nil && string(raw) != "null" {
		if err := json.Unmarshal(raw, &scope); err != nil {
			writeError(w, invalid("scope", "scope must be an object {project?, agent?, user?}"))
			return
		}
	}
	ttl := time.Duration(a.auth.cfg().TokenTTL)
	if raw, _ := b.field("ttlSeconds", "ttl_seconds"); raw != nil {
		n, err := b.integer("ttlSeconds", "ttl_seconds")
		if err != nil || n == nil || *n < 1 || *n > 10*366*24*3600 {
			writeError(w, invalid("ttlSeconds", "ttlSeconds must be a positive integer of at most ten years"))
			return
		}
		ttl = time.Duration(*n) * time.Second
	}
	if ttl <= 0 {
		ttl = config.DefaultAuthTokenTTL
	}
	secret, err := a.auth.loadSecret()
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c := auth.NewClaims(role, scope, ttl, a.svc.now())
	tok, err := auth.SignToken(secret, c)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"token": tok, "expiresAt": time.Unix(c.Exp, 0).UTC().Format(time.RFC3339), "claims": c})
}

// whoami answers GET /api/auth/whoami.
func (a *API) whoami(w http.ResponseWriter, r *http.Request) {
	info := authFrom(r.Context())
	out := map[string]any{"authenticated": info.authenticated, "mode": a.svc.cfg.Auth.Mode, "claims": nil}
	if info.claims != nil {
		out["claims"] = info.claims
	}
	writeJSON(w, http.StatusOK, out)
}
