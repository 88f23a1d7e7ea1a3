package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// GET /health is answered ahead of the API's middleware (serveHealth): it
// keeps what every answer has — the caller's request id or a new one, the
// browser guard, its count in the usage analytics — and serves HEAD, while
// other methods still get the router's 405.
func TestHealthAnsweredAheadOfTheMiddleware(t *testing.T) {
	e := apitest.NewEnv(t)
	before := e.Svc.Analytics().Usage().Endpoints["GET /health"].Count

	h := e.Do(t, "GET", "/health", nil, apitest.Hdr("X-Request-Id", "probe-1")).Want(t, http.StatusOK)
	if got := h.Header.Get("X-Request-Id"); got != "probe-1" {
		t.Fatalf("X-Request-Id %q, want the caller's probe-1", got)
	}
	if h.Str("status") != "healthy" || h.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("health answer: %s", h)
	}
	if h := e.Get(t, "/health").Want(t, http.StatusOK); h.Header.Get("X-Request-Id") == "" {
		t.Fatal("an answer without a request id")
	}
	if r := e.Do(t, "HEAD", "/health", nil, nil); r.Status != http.StatusOK {
		t.Fatalf("HEAD /health: %d", r.Status)
	}
	e.Do(t, "POST", "/health", map[string]any{}, nil).WantErr(t, http.StatusMethodNotAllowed, "method_not_allowed")
	e.Do(t, "GET", "/health", nil, apitest.Hdr("Origin", "https://evil.example")).WantErr(t, http.StatusForbidden, "forbidden_origin")

	u := e.Svc.Analytics().Usage().Endpoints["GET /health"]
	if got := u.Count - before; got != 4 { // GET, GET, HEAD and the refused one
		t.Fatalf("/health counted %d times in the usage analytics, want 4", got)
	}
	if u.Errors != 1 {
		t.Fatalf("/health errors counted %d, want 1 (the refused origin)", u.Errors)
	}
}
