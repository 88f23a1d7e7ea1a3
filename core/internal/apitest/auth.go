package apitest

import (
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/auth"
)

// ScopedToken signs a token of role with scope (project, agent, user),
// valid for an hour on the env's clock.
func (e *Env) ScopedToken(tb testing.TB, role string, scope auth.TokenScope) string {
	tb.Helper()
	t, err := auth.SignToken(e.Secret(tb), auth.NewClaims(role, scope, time.Hour, e.Clock.Now()))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}
