package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// Auth modes (auth.mode).
const (
	ModeLocal  = "local"
	ModeTeam   = "team"
	ModeHybrid = "hybrid"
)

// Error codes of the auth layer.
const (
	CodeUnauthorized = "unauthorized"
	CodeForbidden    = "forbidden"
	CodeRateLimited  = "rate_limited"
)

// Permissions a role may hold.
const (
	PermRemember    = "remember"
	PermRecall      = "recall"
	PermModify      = "modify"
	PermForget      = "forget"
	PermRecover     = "recover"
	PermDocuments   = "documents"
	PermConnectors  = "connectors"
	PermDiagnostics = "diagnostics"
	PermAnalytics   = "analytics"
	PermAdmin       = "admin"
)

// Roles lists the roles a token may carry, most powerful first.
var Roles = []string{"admin", "operator", "agent", "readonly"}

var rolePerms = map[string][]string{
	"admin":    {PermRemember, PermRecall, PermModify, PermForget, PermRecover, PermDocuments, PermConnectors, PermDiagnostics, PermAnalytics, PermAdmin},
	"operator": {PermRemember, PermRecall, PermModify, PermForget, PermRecover, PermDocuments, PermConnectors, PermDiagnostics, PermAnalytics},
	"agent":    {PermRemember, PermRecall, PermModify, PermForget, PermRecover, PermDocuments},
	"readonly": {PermRecall},
}

// RoleHas reports whether role holds perm.
func RoleHas(role, perm string) bool {
	for _, p := range rolePerms[role] {
		if p == perm {
			return true
		}
	}
	return false
}

// ValidRole reports whether role is one of Roles.
func ValidRole(role string) bool { _, ok := rolePerms[role]; return ok }

// TokenScope narrows a token to one project, agent or user; empty fields
// are unrestricted.
type TokenScope struct {
	Project string `json:"project,omitempty"`
	Agent   string `json:"agent,omitempty"`
	User    string `json:"user,omitempty"`
}

// Claims are what a token asserts. Times are Unix seconds.
type Claims struct {
	Sub   string     `json:"sub"`
	Scope TokenScope `json:"scope"`
	Role  string     `json:"role"`
	IAT   int64      `json:"iat"`
	Exp   int64      `json:"exp"`
}

// Token errors; their text is what a 401 says.
var (
	ErrTokenMalformed = errors.New("malformed token")
	ErrTokenSignature = errors.New("invalid signature")
	ErrTokenExpired   = errors.New("token expired")
	ErrTokenRole      = errors.New("invalid role in token")
)

var b64 = base64.RawURLEncoding

// SignToken renders claims as base64url(JSON claims) "." base64url(HMAC-SHA256(secret, payload)).
func SignToken(secret []byte, c Claims) (string, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	payload := b64.EncodeToString(raw)
	return payload + "." + b64.EncodeToString(tokenMAC(secret, payload)), nil
}

func tokenMAC(secret []byte, payload string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// VerifyToken checks a token's form, signature, role and expiry at now.
func VerifyToken(secret []byte, token string, now time.Time) (*Claims, error) {
	payload, sig, ok := strings.Cut(token, ".")
	if !ok || payload == "" || sig == "" || strings.Contains(sig, ".") {
		return nil, ErrTokenMalformed
	}
	mac, err := b64.DecodeString(sig)
	if err != nil {
		return nil, ErrTokenMalformed
	}
	if !hmac.Equal(mac, tokenMAC(secret, payload)) {
		return nil, ErrTokenSignature
	}
	raw, err := b64.DecodeString(payload)
	if err != nil {
		return nil, ErrTokenMalformed
	}
	var c Claims
	if err := json.Unmarshal(raw, &c); err != nil || c.Exp == 0 {
		return nil, ErrTokenMalformed
	}
	if !ValidRole(c.Role) {
		return nil, ErrTokenRole
	}
	if now.Unix() >= c.Exp {
		return nil, ErrTokenExpired
	}
	return &c, nil
}

// NewClaims builds the claims of a fresh token for role, valid for ttl from now.
func NewClaims(role string, scope TokenScope, ttl time.Duration, now time.Time) Claims {
	return Claims{Sub: "token:" + role, Scope: scope, Role: role, IAT: now.Unix(), Exp: now.Add(ttl).Unix()}
}

// SecretPath is where the signing secret lives: auth.secret_file, or
// auth-secret in dataDir.
func SecretPath(cfg config.AuthConfig, dataDir string) string {
	if cfg.SecretFile != "" {
		return cfg.SecretFile
	}
	return filepath.Join(dataDir, "auth-secret")
}

// LoadOrCreateSecret reads the signing secret at path, creating it (32
// random bytes, mode 0600) if it does not exist. Creation is atomic, so two
// processes racing agree on one secret.
func LoadOrCreateSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) < 32 {
			return nil, fmt.Errorf("auth secret %s is too short (%d bytes)", path, len(b))
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read auth secret: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create auth secret folder: %w", err)
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".auth-secret-*")
	if err != nil {
		return nil, fmt.Errorf("create auth secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(secret)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write auth secret: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateSecret(path)
		}
		return nil, fmt.Errorf("install auth secret: %w", err)
	}
	return secret, nil
}
