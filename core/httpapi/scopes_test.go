package httpapi_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// A token confined to a project writes project memories only: a user or
// agent scope would carry the memory out of it.
func TestScopeConfinedToken(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed, apitest.AuthMode(auth.ModeTeam))
	tok := apitest.Bearer(e.Token(t, "agent", "/p/atlas"))
	e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "the user prefers tabs", "scope": "user"}, tok).WantErr(t, 403, auth.CodeForbidden)
	e.Do(t, "POST", "/api/memory/remember", map[string]any{"content": "the user prefers tabs", "scope": "project"}, tok).Want(t, 200)
}
