package auth

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// Revocation: a signed token stays valid until it expires, so a token
// given to the wrong agent is revoked by its id (Identity: the token's own
// id, or the digest of an older token's payload). Revoked ids are listed,
// one per line with the time, in a file beside the signing secret; the
// auth gate reads it again whenever it changes, so `cairn token revoke`
// works whether or not cairn is running, and a revoked token is refused
// at its next request.

// ErrTokenRevoked is the 401 of a revoked token.
var ErrTokenRevoked = errors.New("token revoked")

// RevokedPath is where the revoked token ids are listed: auth-revoked in
// the folder of the signing secret.
func RevokedPath(cfg config.AuthConfig, dataDir string) string {
	return filepath.Join(filepath.Dir(SecretPath(cfg, dataDir)), "auth-revoked")
}

// tokenIDForm is what Identity returns: 16 hex digits, or "p" and 16.
var tokenIDForm = regexp.MustCompile(`^p?[0-9a-f]{16}$`)

// TokenID is the id of what a user passes to revoke: a token id as
// Identity names it (what whoami and history show), or a whole token.
func TokenID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if tokenIDForm.MatchString(s) {
		return s, nil
	}
	payload, _, ok := strings.Cut(s, ".")
	if ok {
		if raw, err := b64.DecodeString(payload); err == nil {
			var c Claims
			if json.Unmarshal(raw, &c) == nil && c.Exp != 0 {
				return Identity(&c, s), nil
			}
		}
	}
	return "", fmt.Errorf("%q is neither a token id (16 hex digits, as whoami and history show it) nor a token", s)
}

// Revoke adds id to the list at path (made, mode 0600, if missing). It
// reports false when id was revoked already.
func Revoke(path, id string, now time.Time) (bool, error) {
	if !tokenIDForm.MatchString(id) {
		return false, fmt.Errorf("%q is not a token id", id)
	}
	ids, err := readRevoked(path)
	if err != nil {
		return false, err
	}
	if ids[id] {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return false, fmt.Errorf("revoke token: %w", err)
	}
	_, err = fmt.Fprintf(f, "%s %s\n", id, now.UTC().Format(time.RFC3339))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("revoke token: %w", err)
	}
	return true, nil
}

// readRevoked reads the ids listed at path (none when it does not exist).
func readRevoked(path string) (map[string]bool, error) {
	ids := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ids, nil
	} else if err != nil {
		return nil, fmt.Errorf("read revoked tokens: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), " "); tokenIDForm.MatchString(id) {
			ids[id] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read revoked tokens: %w", err)
	}
	return ids, nil
}

// Revocations is the list at one path as the auth gate checks it: read
// again when the file's size or modification time changes.
type Revocations struct {
	path string

	mu   sync.Mutex
	seen os.FileInfo // the file as last read (nil: absent)
	ids  map[string]bool
}

// NewRevocations returns the list kept at path.
func NewRevocations(path string) *Revocations {
	return &Revocations{path: path, ids: map[string]bool{}}
}

// Revoked reports whether the token id is revoked. An unreadable list is
// an error: the gate refuses rather than guesses.
func (r *Revocations) Revoked(id string) (bool, error) {
	fi, err := os.Stat(r.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read revoked tokens: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !sameFile(fi, r.seen) {
		ids, err := readRevoked(r.path)
		if err != nil {
			return false, err
		}
		r.ids, r.seen = ids, fi
	}
	return r.ids[id], nil
}

func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
