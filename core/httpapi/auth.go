package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
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
	authenticated bool   // a valid token was presented
	limitKey      string // whose rate limits the request counts against
	actor         string // who the history records (a token caller)
	requestID     string
}

type authCtxKey struct{}

func authFrom(ctx context.Context) authInfo {
	v, _ := ctx.Value(authCtxKey{}).(authInfo)
	return v
}

// authGate is the API's authentication, authorization and rate limiting.
// wrap authenticates every request before routing; guard, around each
// route's handler, authorizes it, counts it against its rate limit and
// confines a scoped token (scope.go).
type authGate struct {
	a *API

	mu      sync.Mutex
	secret  []byte
	revoked *auth.Revocations // cairn token revoke's list (auth.RevokedPath)
	windows map[string]*rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

func newAuthGate(a *API) *authGate { return &authGate{a: a, windows: map[string]*rateWindow{}} }

func (g *authGate) cfg() config.AuthConfig { return g.a.svc.Config().Auth }

func (g *authGate) now() time.Time { return g.a.svc.Now() }

func (g *authGate) open() bool {
	mode := g.cfg().Mode
	return mode == "" || mode == auth.ModeLocal
}

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
	g.revoked = auth.NewRevocations(auth.RevokedPath(g.cfg(), filepath.Dir(g.a.svc.DB().Path())))
	return s, nil
}

// verify checks a token and that it is not revoked.
func (g *authGate) verify(secret []byte, tok string) (*auth.Claims, error) {
	c, err := auth.VerifyToken(secret, tok, g.now())
	if err != nil {
		return nil, err
	}
	revoked, err := g.revoked.Revoked(auth.Identity(c, tok))
	if err != nil {
		g.a.log.Error("auth revocations", "err", err)
		return nil, auth.ErrTokenRevoked // unreadable: refused, not guessed
	}
	if revoked {
		return nil, auth.ErrTokenRevoked
	}
	return c, nil
}

// wrap authenticates requests according to auth.mode. Who the caller is
// lands in the request's context; the actor headers are rewritten from the
// token, so nothing a token caller sends can name another actor or actor
// type.
func (g *authGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.open() || r.URL.Path == "/health" {
			next.ServeHTTP(w, r)
			return
		}
		authz := strings.TrimSpace(r.Header.Get("Authorization"))
		r.Header.Del("Authorization") // nothing downstream may see or log it
		info := authInfo{requestID: r.Header.Get("X-Request-Id")}
		switch {
		case authz == "" && g.cfg().Mode == auth.ModeHybrid && remoteIsLoopback(r) && !isBrowserRequest(r):
			// A local caller in hybrid mode is trusted as the owner, as in
			// local mode; the connection's address decides, never the Host
			// header, a web page in the user's browser is never that caller,
			// and its rate limits are its address's.
			info.claims = &auth.Claims{Sub: "local", Role: "admin"}
			info.limitKey = "addr:" + remoteHost(r)
		case authz == "":
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: "authentication required"})
			return
		default:
			scheme, tok, _ := strings.Cut(authz, " ")
			tok = strings.TrimSpace(tok)
			if !strings.EqualFold(scheme, "Bearer") || tok == "" {
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
			c, err := g.verify(secret, tok)
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: err.Error()})
				return
			}
			info.claims, info.authenticated = c, true
			info.limitKey = "token:" + auth.Identity(c, tok)
			info.actor = auth.ActorName(c, tok)
			// The token is the actor, name and type; headers cannot say
			// otherwise.
			for _, h := range []string{"X-Signet-Actor", "X-Signet-Actor-Type"} {
				r.Header.Del(h)
			}
			r.Header.Set("X-Cairn-Actor", info.actor)
			r.Header.Set("X-Cairn-Actor-Type", auth.ActorType(c.Role))
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authCtxKey{}, info)))
	})
}

// guard serves rt's handler to callers its access lets through. It runs
// after routing, so the path values it reads are the handler's.
func (g *authGate) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.open() {
			// Documents cost CPU (fetch, chunks, embeddings): they are
			// rate-limited in every mode, by address in local mode.
			if rt.access.limiter == limiterDocuments && !g.admit(w, "addr:"+remoteHost(r), limiterDocuments) {
				return
			}
			rt.handler.ServeHTTP(w, r)
			return
		}
		rule := rt.access
		if rt.pick != nil {
			rule = rt.pick(r)
		}
		if rule.perm == permPublic {
			rt.handler.ServeHTTP(w, r)
			return
		}
		info := authFrom(r.Context())
		c := info.claims
		if c == nil { // only /health passes wrap unauthenticated
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &core.Error{Code: auth.CodeUnauthorized, Message: "authentication required"})
			return
		}
		if rule.perm != permAnyRole && !auth.RoleHas(c.Role, rule.perm) {
			writeError(w, &core.Error{Code: auth.CodeForbidden,
				Message: fmt.Sprintf("role '%s' lacks '%s' permission", c.Role, rule.perm)})
			return
		}
		if rule.limiter != "" && info.limitKey != "" && !g.admit(w, info.limitKey, rule.limiter) {
			return
		}
		if c.Scoped() {
			var e *core.Error
			if r, e = g.confine(w, r, rule.scope, info); e != nil {
				writeError(w, e)
				return
			}
		}
		rt.handler.ServeHTTP(w, r)
	})
}

// readOnlyCaller reports whether r's caller may only read (a token whose
// role cannot remember, the readonly role): what it reads leaves no trace
// (no session rows, no access counts).
func readOnlyCaller(r *http.Request) bool { return readOnly(r.Context()) }

// readOnly is readOnlyCaller for the caller whose request ctx carries.
func readOnly(ctx context.Context) bool {
	c := authFrom(ctx).claims
	return c != nil && !auth.RoleHas(c.Role, auth.PermRemember)
}

// limiterDocuments is the rate-limit bucket of document creation.
const limiterDocuments = "documents"

// admit counts one request of op against key; over the limit it answers
// 429 with Retry-After and returns false.
func (g *authGate) admit(w http.ResponseWriter, key, op string) bool {
	retry, ok := g.allow(key, op)
	if ok {
		return true
	}
	secs := int(math.Ceil(retry.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	writeError(w, &core.Error{Code: auth.CodeRateLimited, Message: "rate limit exceeded",
		Extra: map[string]any{"retryAfter": g.now().Add(retry).UnixMilli(), "operation": op}})
	return false
}

func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return strings.Trim(host, "[]")
}

func remoteIsLoopback(r *http.Request) bool {
	ip := net.ParseIP(remoteHost(r))
	return ip != nil && ip.IsLoopback()
}

// maxRateWindows is how many rate windows the gate keeps before it drops
// the expired ones.
const maxRateWindows = 4096

// allow counts one request of op against key (a token, or the address of
// a local caller without one) in the current fixed window; when the
// window is full it returns how long until it resets.
func (g *authGate) allow(key, op string) (time.Duration, bool) {
	cfg := g.cfg()
	limit := map[string]int{"forget": cfg.RateForget, "modify": cfg.RateModify, "batchForget": cfg.RateBatchForget, "admin": cfg.RateAdmin,
		limiterDocuments: cfg.RateDocuments}[op]
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
	wkey := key + "\x00" + op
	w := g.windows[wkey]
	if w == nil && len(g.windows) >= maxRateWindows {
		for k, old := range g.windows { // forget the windows that are over
			if !now.Before(old.start.Add(window)) {
				delete(g.windows, k)
			}
		}
	}
	if w == nil || !now.Before(w.start.Add(window)) {
		w = &rateWindow{start: now}
		g.windows[wkey] = w
	}
	if w.count >= limit {
		return w.start.Add(window).Sub(now), false
	}
	w.count++
	return 0, true
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
		scope.Project, scope.Agent, scope.User = strings.TrimSpace(scope.Project), strings.TrimSpace(scope.Agent), strings.TrimSpace(scope.User)
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
