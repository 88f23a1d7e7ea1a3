package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// mutationRefusals returns the error ring's mutation entries.
func mutationRefusals(t *testing.T, e *apitest.Env, h http.Header) []map[string]any {
	t.Helper()
	return e.Do(t, "GET", "/api/analytics/errors?stage=mutation", nil, h).Want(t, 200).List(t, "errors")
}

// TestVersionConflictsReachTheErrorRing: a 409 version conflict (patch,
// forget, recover, batch modify) is recorded as MUTATION_CONFLICT with the
// memory, the actor and the request id.
func TestVersionConflictsReachTheErrorRing(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.NoPipeline)
	id := e.MustID(t, "a memory two agents edit at once")
	e.Do(t, "PATCH", "/api/memory/"+id, map[string]any{"reason": "edit", "importance": 0.2, "if_version": 7},
		apitest.Hdr("X-Cairn-Actor", "agent-b", "X-Request-Id", "req-conflict-1")).WantErr(t, 409, core.CodeVersionConflict)
	e.Del(t, id, map[string]any{"reason": "stale", "if_version": 9}).WantErr(t, 409, core.CodeVersionConflict)
	e.Post(t, "/api/memory/modify", map[string]any{"reason": "batch", "patches": []any{map[string]any{"id": id, "importance": 0.3, "if_version": 5}}}).Want(t, 200)
	e.Del(t, id, map[string]any{"reason": "gone"}).Want(t, 200)
	e.Do(t, "POST", "/api/memory/"+id+"/recover", map[string]any{"reason": "back", "if_version": 1}, nil).WantErr(t, 409, core.CodeVersionConflict)

	got := mutationRefusals(t, e, nil)
	if len(got) != 4 {
		t.Fatalf("want 4 MUTATION_CONFLICT entries, got %v", got)
	}
	for _, ev := range got {
		if ev["code"] != analytics.CodeMutationConflict || ev["memoryId"] != id {
			t.Fatalf("entry: %v", ev)
		}
	}
	oldest := got[len(got)-1]
	if oldest["actor"] != "agent-b" || oldest["requestId"] != "req-conflict-1" {
		t.Fatalf("the first conflict lacks its actor or request: %v", oldest)
	}
	// Other refusals are not conflicts.
	e.Del(t, "no-such-id", map[string]any{"reason": "x"}).WantErr(t, 404, core.CodeNotFound)
	if n := len(mutationRefusals(t, e, nil)); n != 4 {
		t.Fatalf("a not-found became a refusal entry: %d", n)
	}
}

// TestScopeDenialsReachTheErrorRing: a project-scoped token's write to
// another project is answered 403 and recorded as MUTATION_SCOPE_DENIED.
func TestScopeDenialsReachTheErrorRing(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t, apitest.AuthMode(auth.ModeTeam))
	theirs := e.MustIDAs(t, "beta's deploy rule", "project", "beta")
	tok := apitest.Bearer(e.Token(t, "agent", "alpha"))
	e.Do(t, "PATCH", "/api/memory/"+theirs, map[string]any{"importance": 0.1, "reason": "x"}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "GET", "/api/memory/"+theirs, nil, tok).WantErr(t, 404, core.CodeNotFound) // a read is hidden, not refused
	admin := apitest.Bearer(e.Token(t, "admin", ""))
	got := mutationRefusals(t, e, admin)
	if len(got) != 2 {
		t.Fatalf("scope refusals: %v", got)
	}
	for _, r := range got {
		if a, _ := r["actor"].(string); r["code"] != analytics.CodeMutationScopeDenied || !strings.HasPrefix(a, "token:agent:") || r["memoryId"] != theirs {
			t.Fatalf("scope refusal: %v", r)
		}
	}
}
