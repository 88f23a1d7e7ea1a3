package httpapi

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
)

// Codes of the requests the browser guard refuses.
const (
	CodeForbiddenOrigin      = "forbidden_origin"
	CodeForbiddenHost        = "forbidden_host"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRequestTimeout       = "request_timeout"
)

// The browser guard keeps web pages out of the API. cairn listens on
// loopback, and a page the user visits can reach loopback: a form or a
// text/plain fetch is sent without a CORS preflight, and a DNS-rebound
// name makes the page same-origin with cairn. So, before auth, every
// request is checked:
//
//   - its Host is a loopback name (localhost, 127.0.0.1, [::1]), an IP
//     address, the host of server.addr, or one of server.allowed_hosts: a
//     rebound DNS name is refused (forbidden_host);
//   - its Origin, when it has one, is one of server.allowed_origins or
//     cairn's own (its address's port on a loopback name), and without an
//     Origin, Sec-Fetch-Site is not cross-site (forbidden_origin): a page
//     on another loopback port (a dev server on localhost:8000) is as
//     foreign as any web site, since it can send what any page sends;
//   - a write (POST, PUT, PATCH, DELETE) with a body is JSON, a type no
//     browser sends without a preflight (unsupported_media_type);
//   - a write a browser sends (Origin or Sec-Fetch-* headers) carries a
//     JSON Content-Type or an X-Cairn-* header even without a body: an
//     empty POST needs no preflight, and would run a repair, a sync or a
//     recover (forbidden_origin).
//
// Trusted origins get CORS answers (preflights included).
//
// IP addresses are accepted as hosts because rebinding needs a DNS name:
// a page whose origin is an IP address is cross-origin to cairn, and its
// requests carry that Origin.
type browserGuard struct {
	a       *API
	origins map[string]bool // normalized server.allowed_origins
	hosts   map[string]bool // normalized server.allowed_hosts
	// self is the address the guarded listener serves (host:port), whose
	// own origin passes; "" for none (the profiler's listener).
	self func() string
}

func newBrowserGuard(a *API, self func() string) *browserGuard {
	g := &browserGuard{a: a, origins: map[string]bool{}, hosts: map[string]bool{}, self: self}
	cfg := a.svc.Config().Server
	for _, o := range cfg.AllowedOrigins {
		if n, err := config.NormalizeOrigin(o); err == nil {
			g.origins[n] = true
		}
	}
	for _, h := range cfg.AllowedHosts {
		if n := config.NormalizeHost(h); n != "" {
			g.hosts[n] = true
		}
	}
	return g
}

// loopbackName reports whether a normalized host is a loopback name.
func loopbackName(h string) bool {
	switch h {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

func (g *browserGuard) hostAllowed(host string) bool {
	h := config.NormalizeHost(host)
	switch {
	case loopbackName(h), g.hosts[h]:
		return true
	case net.ParseIP(h) != nil:
		return true
	}
	return h != "" && h == config.NormalizeHost(g.self())
}

// originState says what the guard makes of a request's Origin header.
type originState int

const (
	originNone    originState = iota // no Origin header
	originSelf                       // cairn's own origin: its port on a loopback name
	originTrusted                    // one of server.allowed_origins
	originForeign                    // anything else, "null" included
)

func (g *browserGuard) origin(r *http.Request) (originState, string) {
	raw := r.Header.Get("Origin")
	if raw == "" {
		return originNone, ""
	}
	o, err := config.NormalizeOrigin(raw)
	switch {
	case err != nil:
		return originForeign, raw
	case g.origins[o]:
		return originTrusted, o
	}
	_, hostPort, _ := strings.Cut(o, "://")
	if _, port, err := net.SplitHostPort(hostPort); err == nil && loopbackName(config.NormalizeHost(hostPort)) {
		if _, selfPort, err := net.SplitHostPort(g.self()); err == nil && port == selfPort {
			return originSelf, o
		}
	}
	return originForeign, o
}

// check returns the refusal of r, or nil to let it through. A preflight
// from a trusted origin is answered here (handled is true).
func (g *browserGuard) check(w http.ResponseWriter, r *http.Request) (refusal *core.Error, handled bool) {
	if !g.hostAllowed(r.Host) {
		return &core.Error{Code: CodeForbiddenHost, Message: fmt.Sprintf(
			"Host %q is not a name of this cairn; add it to server.allowed_hosts if you reach cairn by it", r.Host)}, false
	}
	state, origin := g.origin(r)
	switch state {
	case originForeign:
		return &core.Error{Code: CodeForbiddenOrigin, Message: fmt.Sprintf(
			"requests from the web page origin %q are refused; add it to server.allowed_origins to trust it", origin)}, false
	case originNone:
		if strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") {
			return &core.Error{Code: CodeForbiddenOrigin, Message: "cross-site browser requests are refused"}, false
		}
	case originTrusted:
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, WWW-Authenticate")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, X-Cairn-Actor, X-Cairn-Actor-Type, X-Cairn-Session-Id, Mcp-Protocol-Version, Mcp-Session-Id")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return nil, true
		}
	}
	if e := checkContentType(r); e != nil {
		return e, false
	}
	if e := checkBrowserWrite(r); e != nil {
		return e, false
	}
	return nil, false
}

// checkBrowserWrite refuses a write a browser sends without a JSON
// Content-Type or an X-Cairn-* header: either makes the browser ask first
// (a CORS preflight, which only a trusted origin passes), and without
// either, an empty POST from any page would run a repair, a sync or a
// recover.
func checkBrowserWrite(r *http.Request) *core.Error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if !isBrowserRequest(r) {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && jsonMediaType(mt) {
		return nil
	}
	for k := range r.Header {
		if strings.HasPrefix(k, "X-Cairn-") {
			return nil
		}
	}
	return &core.Error{Code: CodeForbiddenOrigin, Message: fmt.Sprintf(
		"a %s from a web browser needs a JSON body (Content-Type: application/json) or an X-Cairn-Actor header", r.Method)}
}

// checkContentType refuses a write whose body is not JSON (or JSON lines).
// A body without a Content-Type is refused too: a browser sends a Blob
// that way without a preflight.
func checkContentType(r *http.Request) *core.Error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if r.ContentLength == 0 || (r.ContentLength < 0 && r.Body == http.NoBody) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && jsonMediaType(mt) {
		return nil
	}
	got := ct
	if got == "" {
		got = "none"
	}
	return &core.Error{Code: CodeUnsupportedMediaType, Message: fmt.Sprintf(
		"%s bodies must be JSON: send Content-Type: application/json (got %s)", r.Method, got),
		Extra: map[string]any{"field": "Content-Type"}}
}

func jsonMediaType(mt string) bool {
	switch mt {
	case "application/json", "application/x-ndjson", "application/jsonl":
		return true
	}
	return strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// isBrowserRequest reports whether a web browser sent r: browsers add an
// Origin to every request but simple GETs, and Sec-Fetch-* headers to all.
// Hybrid mode never trusts such a request as the local owner.
func isBrowserRequest(r *http.Request) bool {
	if r.Header.Get("Origin") != "" {
		return true
	}
	for k := range r.Header {
		if strings.HasPrefix(k, "Sec-Fetch-") {
			return true
		}
	}
	return false
}
