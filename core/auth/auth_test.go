package auth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/auth"
)

func TestTokenSignVerify(t *testing.T) {
	secret := []byte(strings.Repeat("k", 32))
	now := time.Unix(1_800_000_000, 0)
	c := auth.NewClaims("agent", auth.TokenScope{Project: "p"}, time.Hour, now)
	tok, err := auth.SignToken(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(tok, ".") != 1 {
		t.Fatalf("token %q is not two parts", tok)
	}
	got, err := auth.VerifyToken(secret, tok, now)
	if err != nil || got.Sub != "token:agent:"+c.ID || len(c.ID) != 16 || got.ID != c.ID || got.Role != "agent" || got.Scope.Project != "p" || got.Exp != now.Add(time.Hour).Unix() {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if _, err := auth.VerifyToken(secret, tok, now.Add(time.Hour)); err != auth.ErrTokenExpired {
		t.Fatalf("expired: %v", err)
	}
	if _, err := auth.VerifyToken([]byte(strings.Repeat("x", 32)), tok, now); err != auth.ErrTokenSignature {
		t.Fatalf("other secret: %v", err)
	}
	payload, sig, _ := strings.Cut(tok, ".")
	// A payload changed to admin keeps the old signature: forged.
	forged, _ := auth.SignToken([]byte("attacker-secret-attacker-secret!!"), auth.NewClaims("admin", auth.TokenScope{}, time.Hour, now))
	fp, _, _ := strings.Cut(forged, ".")
	if _, err := auth.VerifyToken(secret, fp+"."+sig, now); err != auth.ErrTokenSignature {
		t.Fatalf("forged: %v", err)
	}
	for _, bad := range []string{"", "abc", payload, payload + ".", "." + sig, tok + ".x", payload + "." + sig + "." + sig, payload + ".!!!"} {
		if _, err := auth.VerifyToken(secret, bad, now); err != auth.ErrTokenMalformed {
			t.Errorf("%q: got %v, want malformed", bad, err)
		}
	}
}

func TestSecretFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "auth-secret")
	a, err := auth.LoadOrCreateSecret(p)
	if err != nil || len(a) != 32 {
		t.Fatalf("create: %d %v", len(a), err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	b, _ := auth.LoadOrCreateSecret(p)
	if string(a) != string(b) {
		t.Fatal("secret changed on reload")
	}
}

func TestTokenIdentity(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	a, b := auth.NewClaims("agent", auth.TokenScope{}, time.Hour, now), auth.NewClaims("agent", auth.TokenScope{}, time.Hour, now)
	if a.ID == b.ID || a.Sub == b.Sub || auth.Identity(&a, "") != a.ID {
		t.Fatalf("two tokens of a role share an identity: %+v %+v", a, b)
	}
	if auth.ActorName(&a, "") != a.Sub {
		t.Fatalf("actor %q, want the subject %q", auth.ActorName(&a, ""), a.Sub)
	}
	// A token minted before ids existed is named by its signed payload.
	secret := []byte(strings.Repeat("k", 32))
	old := auth.Claims{Sub: "token:agent", Role: "agent", IAT: 1, Exp: now.Add(time.Hour).Unix()}
	t1, _ := auth.SignToken(secret, old)
	old.IAT = 2
	t2, _ := auth.SignToken(secret, old)
	c1, err := auth.VerifyToken(secret, t1, now)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := auth.VerifyToken(secret, t2, now)
	if auth.Identity(c1, t1) == auth.Identity(c2, t2) || auth.ActorName(c1, t1) == auth.ActorName(c2, t2) ||
		!strings.HasPrefix(auth.ActorName(c1, t1), "token:agent#") {
		t.Fatalf("legacy tokens: %q %q", auth.ActorName(c1, t1), auth.ActorName(c2, t2))
	}
	if auth.ActorType("agent") != "agent" || auth.ActorType("operator") != "operator" || auth.ActorType("admin") != "operator" || auth.ActorType("readonly") != "operator" {
		t.Fatal("actor types")
	}
}

func TestScopeCovers(t *testing.T) {
	none := auth.TokenScope{}
	proj := auth.TokenScope{Project: "a"}
	agent := auth.TokenScope{Project: "a", Agent: "codex", User: "dana"}
	user := auth.TokenScope{User: "dana"}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"empty covers any project", none.CoversProject("b"), true},
		{"empty covers no project", none.CoversProject(""), true},
		{"own project", proj.CoversProject("a"), true},
		{"other project", proj.CoversProject("b"), false},
		{"no project", proj.CoversProject(""), false},
		{"project scope covers any author", proj.CoversAuthor("x"), true},
		{"agent authored", agent.CoversAuthor("codex"), true},
		{"user authored", agent.CoversAuthor("dana"), true},
		{"other author", agent.CoversAuthor("claude-code"), false},
		{"no author", agent.CoversAuthor(""), false},
		{"agent harness", agent.CoversHarness("codex"), true},
		{"other harness", agent.CoversHarness("claude-code"), false},
		{"user scope any harness", user.CoversHarness("claude-code"), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if agent.Author() != "codex" || user.Author() != "dana" || proj.Author() != "" {
		t.Error("author")
	}
	for _, c := range []struct {
		claims auth.Claims
		want   bool
	}{
		{auth.Claims{Role: "agent"}, false},
		{auth.Claims{Role: "agent", Scope: proj}, true},
		{auth.Claims{Role: "readonly", Scope: user}, true},
		{auth.Claims{Role: "admin", Scope: proj}, false},
	} {
		if c.claims.Scoped() != c.want {
			t.Errorf("%+v scoped: %v", c.claims, !c.want)
		}
	}
	var nilClaims *auth.Claims
	if nilClaims.Scoped() {
		t.Error("nil claims are scoped")
	}
}
