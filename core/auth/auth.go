package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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
//
// The project confines what the token sees and changes: memories,
// sessions, transcripts and jobs of its project only, and what it writes
// lands there. The agent and the user name who the token is: what it
// writes is authored by them (who, and the harness of its sessions for an
// agent), and it may change or forget only memories they authored and use
// only the agent's sessions. Reads are not narrowed by agent or user:
// within its project a token reads what its project holds.
type TokenScope struct {
	Project string `json:"project,omitempty"`
	Agent   string `json:"agent,omitempty"`
	User    string `json:"user,omitempty"`
}

// Empty reports whether the scope restricts nothing.
func (s TokenScope) Empty() bool { return s.Project == "" && s.Agent == "" && s.User == "" }

// Author is who a scoped token writes as: its agent, else its user, else
// "" (no author is imposed).
func (s TokenScope) Author() string {
	if s.Agent != "" {
		return s.Agent
	}
	return s.User
}

// CoversProject reports whether a target in project is within the scope.
// A project-scoped token covers its own project only: neither another
// project nor memories that belong to no project.
func (s TokenScope) CoversProject(project string) bool {
	return s.Project == "" || s.Project == project
}

// CoversAuthor reports whether a memory authored by who (its "who") may be
// changed under the scope: any memory when the scope names no agent or
// user, else only memories whose author is the agent or the user.
func (s TokenScope) CoversAuthor(who string) bool {
	if s.Agent == "" && s.User == "" {
		return true
	}
	return who != "" && (who == s.Agent || who == s.User)
}

// CoversHarness reports whether a session run by harness is within the
// scope: an agent-scoped token uses only its own agent's sessions.
func (s TokenScope) CoversHarness(harness string) bool {
	return s.Agent == "" || s.Agent == harness
}

// Claims are what a token asserts. Times are Unix seconds. ID is the
// token's own id (JWT's jti): each issued token has one, so two tokens of
// one role are two actors, with their own rate limits and history.
type Claims struct {
	Sub   string     `json:"sub"`
	ID    string     `json:"jti,omitempty"`
	Scope TokenScope `json:"scope"`
	Role  string     `json:"role"`
	IAT   int64      `json:"iat"`
	Exp   int64      `json:"exp"`
}

// Scoped reports whether the claims are confined by their scope: admin
// tokens and tokens with an empty scope are not.
func (c *Claims) Scoped() bool { return c != nil && c.Role != "admin" && !c.Scope.Empty() }

// ActorType is the kind of actor the history records for a token's
// writes, decided by its role: agents are agents, everyone else operates.
func ActorType(role string) string {
	if role == "agent" {
		return "agent"
	}
	return "operator"
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

// NewClaims builds the claims of a fresh token for role, valid for ttl
// from now, with a new random id. Its subject, "token:ROLE:ID", is the
// actor its writes are recorded as.
func NewClaims(role string, scope TokenScope, ttl time.Duration, now time.Time) Claims {
	id := NewTokenID()
	return Claims{Sub: "token:" + role + ":" + id, ID: id, Scope: scope, Role: role, IAT: now.Unix(), Exp: now.Add(ttl).Unix()}
}

// NewTokenID returns a random token id (16 hex digits).
func NewTokenID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("auth: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// Identity names the token that carries c, for rate limits and history:
// its id when it has one; a token issued before ids existed is named by a
// digest of its signed payload, so no two tokens share a name.
func Identity(c *Claims, token string) string {
	if c.ID != "" {
		return c.ID
	}
	payload, _, _ := strings.Cut(token, ".")
	sum := sha256.Sum256([]byte(payload))
	return "p" + hex.EncodeToString(sum[:8])
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

// ActorName is who the history records for writes made with the token
// that carries c: its subject, made unique by the token's identity when
// the subject does not already hold it.
func ActorName(c *Claims, token string) string {
	id := Identity(c, token)
	if strings.Contains(c.Sub, id) {
		return c.Sub
	}
	return c.Sub + "#" + id
}
