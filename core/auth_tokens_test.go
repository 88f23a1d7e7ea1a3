package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
)

func TestTokenSignVerify(t *testing.T) {
	secret := []byte(strings.Repeat("k", 32))
	now := time.Unix(1_800_000_000, 0)
	c := core.NewClaims("agent", core.TokenScope{Project: "p"}, time.Hour, now)
	tok, err := core.SignToken(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(tok, ".") != 1 {
		t.Fatalf("token %q is not two parts", tok)
	}
	got, err := core.VerifyToken(secret, tok, now)
	if err != nil || got.Sub != "token:agent" || got.Role != "agent" || got.Scope.Project != "p" || got.Exp != now.Add(time.Hour).Unix() {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if _, err := core.VerifyToken(secret, tok, now.Add(time.Hour)); err != core.ErrTokenExpired {
		t.Fatalf("expired: %v", err)
	}
	if _, err := core.VerifyToken([]byte(strings.Repeat("x", 32)), tok, now); err != core.ErrTokenSignature {
		t.Fatalf("other secret: %v", err)
	}
	payload, sig, _ := strings.Cut(tok, ".")
	// A payload changed to admin keeps the old signature: forged.
	forged, _ := core.SignToken([]byte("attacker-secret-attacker-secret!!"), core.NewClaims("admin", core.TokenScope{}, time.Hour, now))
	fp, _, _ := strings.Cut(forged, ".")
	if _, err := core.VerifyToken(secret, fp+"."+sig, now); err != core.ErrTokenSignature {
		t.Fatalf("forged: %v", err)
	}
	for _, bad := range []string{"", "abc", payload, payload + ".", "." + sig, tok + ".x", payload + "." + sig + "." + sig, payload + ".!!!"} {
		if _, err := core.VerifyToken(secret, bad, now); err != core.ErrTokenMalformed {
			t.Errorf("%q: got %v, want malformed", bad, err)
		}
	}
}

func TestSecretFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "auth-secret")
	a, err := core.LoadOrCreateSecret(p)
	if err != nil || len(a) != 32 {
		t.Fatalf("create: %d %v", len(a), err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	b, _ := core.LoadOrCreateSecret(p)
	if string(a) != string(b) {
		t.Fatal("secret changed on reload")
	}
}
