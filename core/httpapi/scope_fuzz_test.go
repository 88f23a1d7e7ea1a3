package httpapi_test

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// FuzzScopedModify sends arbitrary batch modify bodies with a token scoped
// to alpha; $A and $B in the input stand for a memory of alpha and one of
// beta. Whatever the body (repeated keys, keys differing in case, nested
// patches, broken JSON), beta never changes and nothing answers 5xx: the
// gate and the handler read one value.
func FuzzScopedModify(f *testing.F) {
	sf := newScopeFixture(f, auth.ModeTeam)
	e := sf.e
	tok := apitest.Bearer(e.Token(f, "operator", projA))
	for _, seed := range []string{
		`{"reason":"x","patches":[{"id":"$B","ID":"$A","importance":0.2}]}`,
		`{"reason":"x","patches":[{"id":"$A","project":"beta"}]}`,
		`{"reason":"x","patches":[{"id":"$A","project":"alpha","Project":"beta"}]}`,
		`{"reason":"x","patches":[{"id":"$A"}],"patches":[{"id":"$B","content":"y"}]}`,
		`{"reason":"x","patches":[{"id":"$A","importance":0.3},{"id":"$B","pinned":true}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		body := strings.NewReplacer("$A", sf.memA, "$B", sf.memB).Replace(tmpl)
		before := sf.betaState(t)
		r := e.Do(t, "POST", "/api/memory/modify", apitest.RawBody(body), tok)
		if r.Status >= 500 {
			t.Fatalf("%q: %s", body, r)
		}
		if after := sf.betaState(t); after != before {
			t.Fatalf("%q changed beta (%s):\nbefore %s\nafter  %s", body, r, before, after)
		}
	})
}
