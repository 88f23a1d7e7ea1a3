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
	if err != nil || got.Sub != "token:agent" || got.Role != "agent" || got.Scope.Project != "p" || got.Exp != now.Add(time.Hour).Unix() {
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
