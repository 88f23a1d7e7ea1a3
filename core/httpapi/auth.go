package httpapi

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

	"github.com/cairnmem/cairn/core"

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

func (g *authGate) cfg() config.AuthConfig { return g.a.svc.Config().Auth }

func (g *authGate) now() time.Time { return g.a.svc.Now() }

// loadSecret returns the signing secret, creating it on first use.
func (g *authGate) loadSecret() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.secret != nil {
		return g.secret, nil
	}
	s, err := auth.LoadOrCreateSecret(auth.SecretPath(g.cfg(), filepath.Dir(g.a.svc.DB().Path())))
	if err != nil {
		return nil, err
	}
	g.secret = s
	return s, nil
}

// accessFor finds the access rule of the route r will reach; pattern is ""
// when no route matches (the router will answer 404 or 405).
func (g *authGate) accessFor(r *http.Request) (access, string) {
	_, pattern := g.a.mux.Handler(r)
	if pattern == "" {
		return access{}, ""
	}
	rt, ok := g.a.routes[pattern]
	switch {
	case !ok:
		return access{perm: auth.PermAdmin}, pattern // unreachable: every pattern is registered with its access
	case rt.pick != nil:
		return rt.pick(r), pattern
	}
	return rt.access, pattern
}

// wrap guards next according to auth.mode.
func (g *authGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := g.cfg().Mode
		if mode == "" || mode == auth.ModeLocal || r.URL.Path == "/health" {
			next.ServeHTTP(w, r)
			return
		}
		authz := strings.TrimSpace(r.Header.Get("Authorization"))
		r.Header.Del("Authorization") // nothing downstream may see or log it
		var info authInfo
		switch {
		case authz == "" && mode == auth.ModeHybrid && remoteIsLoopback(r) && !isBrowserRequest(r):
			// A local caller in hybrid mode is trusted as the owner; the
			// connection's address decides, never the Host header, and a
			// web page in the user's browser is never that caller.
			info = authInfo{claims: &auth.Claims{Sub: "local", Role: "admin"}}
		case authz == "":
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: "authentication required"})
			return
		default:
			scheme, tok, _ := strings.Cut(authz, " ")
			if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
				w.Header().Set("WWW-Authenticate", "Bearer")
				writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: "authentication required: use Authorization: Bearer <token>"})
				return
			}
			secret, err := g.loadSecret()
			if err != nil {
				g.a.log.Error("auth secret", "err", err)
				writeError(w, &core.Error{Code: core.CodeInternal, Message: "auth secret unavailable"})
				return
			}
			c, err := auth.VerifyToken(secret, strings.TrimSpace(tok), g.now())
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: err.Error()})
				return
			}
			info = authInfo{claims: c, authenticated: true}
			// The token's subject is the actor; headers cannot override it.
			r.Header.Del("X-Signet-Actor")
			r.Header.Set("X-Cairn-Actor", c.Sub)
		}
		r = r.WithContext(context.WithValue(r.Context(), authCtxKey{}, info))

		rule, pattern := g.accessFor(r)
		if pattern == "" {
			next.ServeHTTP(w, r) // the router's own 404/405
			return
		}
		c := info.claims
		if rule.perm != permAnyRole && !auth.RoleHas(c.Role, rule.perm) {
			writeError(w, &core.Error{Code: auth.CodeForbidden,
				Message: fmt.Sprintf("role '%s' lacks '%s' permission", c.Role, rule.perm)})
			return
		}
		if rule.limiter != "" && info.authenticated {
			if retry, ok := g.allow(c.Sub, rule.limiter); !ok {
				secs := int(math.Ceil(retry.Seconds()))
				w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
				writeError(w, &core.Error{Code: auth.CodeRateLimited, Message: "rate limit exceeded",
					Extra: map[string]any{"retryAfter": g.now().Add(retry).UnixMilli(), "operation": rule.limiter}})
				return
			}
		}
		if c.Role != "admin" && c.Scope.Project != "" {
			var e *core.Error
			r, e = g.applyScope(w, r, rule.scope, c.Scope.Project)
			if e != nil {
				g.a.recordScopeDenied(r, c.Sub, e)
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

var errOutOfScope = &core.Error{Code: auth.CodeForbidden, Message: "token scope does not cover this project"}

// applyScope confines a project-scoped caller to its project: list and
// search filters are forced to it, bodies are rewritten, and a memory of
// another project is not found (reads) or forbidden (writes).
func (g *authGate) applyScope(w http.ResponseWriter, r *http.Request, kind scopeKind, project string) (*http.Request, *core.Error) {
	switch kind {
	case scopeQuery:
		q := r.URL.Query()
		q.Del("projects")
		q.Set("project", project)
		r.URL.RawQuery = q.Encode()
	case scopeDenied:
		return r, &core.Error{Code: auth.CodeForbidden, Message: "not available to a project-scoped token"}
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

func (g *authGate) readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, []byte, *core.Error) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.a.svc.Config().Server.MaxBodyBytes))
	if err != nil {
		return nil, nil, &core.Error{Code: core.CodeTooLarge, Message: "request body too large"}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, raw, nil
	}
	return obj, raw, nil
}

func (g *authGate) memoryInScope(r *http.Request, id, project string, write bool) *core.Error {
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
	return &core.Error{Code: core.CodeNotFound, Message: "Not found", Extra: map[string]any{"memoryId": id}}
}

// batchInScope checks the ids of a batch forget and the patches of a batch
// modify.
func (g *authGate) batchInScope(r *http.Request, obj map[string]json.RawMessage, project string) *core.Error {
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
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	if a.auth.cfg().Mode == auth.ModeLocal || a.auth.cfg().Mode == "" {
		writeError(w, core.Invalid("mode", "tokens need auth.mode team or hybrid; local mode has no secret"))
		return
	}
	role, _, e := b.str("role")
	if e != nil {
		writeError(w, e)
		return
	}
	if !auth.ValidRole(role) {
		writeError(w, core.Invalid("role", "role must be one of %s", strings.Join(auth.Roles, ", ")))
		return
	}
	var scope auth.TokenScope
	if raw, _ := b.field("scope"); raw != nil && string(raw) != "null" {
		if err := json.Unmarshal(raw, &scope); err != nil {
			writeError(w, core.Invalid("scope", "scope must be an object {project?, agent?, user?}"))
			return
		}
	}
	ttl := time.Duration(a.auth.cfg().TokenTTL)
	if raw, _ := b.field("ttlSeconds", "ttl_seconds"); raw != nil {
		n, err := b.integer("ttlSeconds", "ttl_seconds")
		if err != nil || n == nil || *n < 1 || *n > 10*366*24*3600 {
			writeError(w, core.Invalid("ttlSeconds", "ttlSeconds must be a positive integer of at most ten years"))
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
	c := auth.NewClaims(role, scope, ttl, a.svc.Now())
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
	out := map[string]any{"authenticated": info.authenticated, "mode": a.svc.Config().Auth.Mode, "claims": nil}
	if info.claims != nil {
		out["claims"] = info.claims
	}
	writeJSON(w, http.StatusOK, out)
}
