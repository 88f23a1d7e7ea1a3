// Package project is cairn's one rule for what project a memory, a session
// or a query belongs to. A project's identity is its repository root: the
// nearest folder, from the working directory up, that holds a .git entry
// (a folder, or a file in worktrees and submodules); outside a repository,
// the folder itself. Its display name is the root's base name, or the
// NAME of a [projects.NAME] table whose root it is; config aliases are
// more names for it.
//
// Two halves, on purpose:
//
//   - FindRoot, ForDir and Current touch the file system. Only the local
//     process that runs in the user's folder calls them: the hook shim, the
//     CLI, the MCP stdio server, and the one-time migration at open.
//   - Normalize, Name and Resolver are pure string functions. The server
//     uses only these on what a request carries: anything on loopback is
//     reachable by every web page and local process, so the server never
//     opens or stats a path a request names.
package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"golang.org/x/text/unicode/norm"
)

// Normalize returns the canonical form of a project as a user or a request
// gives it: surrounding space trimmed; an absolute path cleaned (no
// trailing slash, no "." or ".." parts); a name folded (see below). Empty
// means no project. A project with a control character or a line
// separator, invalid UTF-8 or more than config.MaxProjectChars bytes is
// refused.
//
// A name (not a path) is folded so that what looks alike is alike: its
// invisible formatting characters (zero-width space, joiners, bidi marks,
// embeddings, overrides and isolates, soft hyphen, BOM, tag characters)
// are dropped and it is put in Unicode NFKC form (full-width ａｌｐｈａ is
// alpha, the ligature ﬁ is fi). So "alpha\u200b", "ａｌｐｈａ" and
// "\u202ealpha" all are the project alpha: what a person reads is what
// the name is, and no look-alike makes a second project. A name that
// folds to a path ("／srv／x") is that path.
//
// A path is the identity of a folder on disk and keeps its bytes (NFKC
// would name another folder, or none): its display must go through
// text.DisplayLine, which shows invisible characters as <U+XXXX>, and a
// name that folds to its base name meets it as ambiguous in Resolve rather
// than silently.
func Normalize(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > config.MaxProjectChars {
		return "", fmt.Errorf("project is longer than %d bytes", config.MaxProjectChars)
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, badProjectRune) {
		return "", errors.New("project must be text without control characters")
	}
	if !IsPath(s) {
		s = foldName(s)
		if s == "" {
			return "", errors.New("project must not be only invisible characters")
		}
		if len(s) > config.MaxProjectChars {
			return "", fmt.Errorf("project is longer than %d bytes", config.MaxProjectChars)
		}
		if strings.ContainsFunc(s, badProjectRune) {
			return "", errors.New("project must be text without control characters")
		}
	}
	for IsPath(s) {
		// Cleaning may bare a space ("/a /." → "/a "): trim and clean
		// until neither changes anything (each round shortens s).
		c := strings.TrimSpace(filepath.Clean(s))
		if c == s {
			break
		}
		s = c
	}
	return s, nil
}

// badProjectRune is a character no project may hold: a control character
// or a line or paragraph separator.
func badProjectRune(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// foldName is a name as Normalize folds it: invisible formatting
// characters dropped, NFKC, space trimmed, until nothing changes (NFKC
// after a drop can compose anew; a few rounds at most).
func foldName(s string) string {
	for range 4 {
		f := strings.TrimSpace(norm.NFKC.String(strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Cf, r) {
				return -1
			}
			return r
		}, s)))
		if f == s {
			break
		}
		s = f
	}
	return s
}

// IsPath reports whether a (normalized) project is a folder path rather
// than a short name.
func IsPath(id string) bool { return strings.HasPrefix(id, "/") }

// Name is the display name of a project identity: a path's base name, a
// name itself.
func Name(id string) string {
	if IsPath(id) {
		if b := filepath.Base(id); b != "/" {
			return b
		}
	}
	return id
}

// Under reports whether the path p is root or inside it (string prefix at
// a path boundary: /a/bc is not under /a/b).
func Under(p, root string) bool {
	if !IsPath(p) || !IsPath(root) {
		return false
	}
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root) && p[len(root)] == '/'
}

// FindRoot returns the repository root of dir: the nearest folder from dir
// up that holds a config.DefaultProjectMarker (.git) entry, else dir
// itself (cleaned). It only stats; it never runs git.
func FindRoot(dir string) string {
	root, _ := findRepo(dir)
	return root
}

// findRepo is FindRoot that also says whether a repository was found.
func findRepo(dir string) (string, bool) {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, config.DefaultProjectMarker)); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, false
		}
		d = parent
	}
}

// ForDir is the project of a working directory: the root of the
// [projects.NAME] table it is in (the deepest), else its repository root.
func ForDir(projects map[string]config.ProjectConfig, dir string) string {
	dir, err := Normalize(dir)
	if err != nil || !IsPath(dir) {
		return dir
	}
	best := ""
	for _, p := range projects {
		if Under(dir, p.Root) && len(p.Root) > len(best) {
			best = p.Root
		}
	}
	if root, ok := findRepo(dir); ok && len(root) > len(best) {
		// A repository nested inside a configured folder is its own project.
		best = root
	}
	if best == "" {
		return dir
	}
	return best
}

// Current is the project of this process's working directory (ForDir of
// os.Getwd): what the CLI and the hook shim use when no project is named.
func Current(cfg *config.Config) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	return ForDir(cfg.Projects, wd), nil
}

// AmbiguousError is a short name that more than one known project has.
type AmbiguousError struct {
	Name       string
	Candidates []string
}

// Error names the candidates as a person can tell them apart: invisible
// characters shown as <U+XXXX> (text.DisplayLine).
func (e *AmbiguousError) Error() string {
	shown := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		shown[i] = text.DisplayLine(c)
	}
	return fmt.Sprintf("project %q is ambiguous: %s; give the folder, or set an alias in [projects.NAME]",
		e.Name, strings.Join(shown, ", "))
}

// Resolver maps what a user or a request names to a project identity, by
// strings only: the config's [projects.NAME] tables and the projects the
// store knows.
type Resolver struct {
	configured map[string]config.ProjectConfig
	known      []string // normalized identities, sorted
}

// NewResolver returns a resolver over the config's projects and the
// identities the store knows (storage.KnownProjects).
func NewResolver(projects map[string]config.ProjectConfig, known []string) *Resolver {
	r := &Resolver{configured: projects}
	for _, k := range known {
		if n, err := Normalize(k); err == nil && n != "" {
			r.known = append(r.known, n)
		}
	}
	slices.Sort(r.known)
	r.known = slices.Compact(r.known)
	return r
}

// Resolve returns the identity of s:
//
//   - empty: no project;
//   - a path: the deepest configured or known root it is in (a working
//     directory sent by an older hook shim finds its repository this
//     way), else the path itself;
//   - a name: the root of the [projects.NAME] table named so or having
//     it as an alias; else the one known root with that display name (an
//     *AmbiguousError names them when several have it); else the name
//     itself (a project known by name only, until its root is seen).
func (r *Resolver) Resolve(s string) (string, error) {
	n, err := Normalize(s)
	if err != nil || n == "" {
		return n, err
	}
	if IsPath(n) {
		best := ""
		for _, p := range r.configured {
			if Under(n, p.Root) && len(p.Root) > len(best) {
				best = p.Root
			}
		}
		for _, k := range r.known {
			// A project at "/" (a session once started there) would
			// swallow every folder: it is only ever itself.
			if (Under(n, k) && k != "/" || n == k) && len(k) > len(best) {
				best = k
			}
		}
		if best != "" {
			return best, nil
		}
		return n, nil
	}
	if p, ok := r.configured[n]; ok {
		return p.Root, nil
	}
	// Configured names and aliases, and known folders' base names, are
	// compared folded as n is: a name typed full width finds its project,
	// and a folder whose name only looks like n is a candidate beside it
	// (an ambiguity the user sees) rather than never considered.
	for name, p := range r.configured {
		if foldName(name) == n || slices.ContainsFunc(p.Aliases, func(a string) bool { return a == n || foldName(a) == n }) {
			return p.Root, nil
		}
	}
	var hits []string
	for _, k := range r.known {
		if IsPath(k) && (Name(k) == n || foldName(Name(k)) == n) {
			hits = append(hits, k)
		}
	}
	switch len(hits) {
	case 0:
		return n, nil
	case 1:
		return hits[0], nil
	}
	return "", &AmbiguousError{Name: n, Candidates: hits}
}

// DisplayName is the name a project is shown by: the NAME of the
// [projects.NAME] table whose root it is, else Name(id).
func (r *Resolver) DisplayName(id string) string {
	for name, p := range r.configured {
		if p.Root == id {
			return name
		}
	}
	return Name(id)
}
