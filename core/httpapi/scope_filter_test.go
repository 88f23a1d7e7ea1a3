package httpapi_test

import (
	"slices"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// Recall and list take a scope: the user's memories, an agent's, or the
// projects' own (the vector index's filter is tested in core/vector); an
// unknown scope is refused naming the field.
func TestRecallAndListByScope(t *testing.T) {
	e := apitest.NewEnv(t)
	user := e.MustID(t, "I prefer tabs over spaces in every editor", "scope", "user")
	agent := e.MustID(t, "I format Go code with gofmt before every commit", "scope", "agent", "who", "claude-code")
	proj := e.MustID(t, "This repository formats code with two spaces", "project", "webshop")
	for _, tc := range []struct {
		scope string
		want  string
	}{{"user", user}, {"agent", agent}, {"project", proj}} {
		for _, mode := range []string{"keyword", ""} {
			r := e.Post(t, "/api/memory/recall", map[string]any{"query": "code formatting tabs spaces editor gofmt", "scope": tc.scope, "mode": mode}).Want(t, 200)
			var got []string
			for _, h := range r.List(t, "results") {
				got = append(got, h["id"].(string))
			}
			if len(got) == 0 || slices.ContainsFunc(got, func(id string) bool { return id != tc.want }) {
				t.Errorf("recall scope %s mode %q: %v, want only %s", tc.scope, mode, got, tc.want)
			}
		}
		l := e.Get(t, "/api/memories?scope="+tc.scope).Want(t, 200)
		if ms := l.List(t, "memories"); len(ms) != 1 || ms[0]["id"] != tc.want {
			t.Errorf("list scope %s: %v", tc.scope, ms)
		}
	}
	e.Post(t, "/api/memory/recall", map[string]any{"query": "tabs", "scope": "team"}).WantInvalid(t, "scope", "scope must be project, user or agent")
	e.Get(t, "/api/memories?scope=team").WantInvalid(t, "scope", "scope must be project, user or agent")
}
