package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
	"golang.org/x/text/unicode/norm"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"", "", false},
		{"   ", "", false},
		{"atlas", "atlas", false},
		{"  atlas  ", "atlas", false},
		{"/home/dev/atlas", "/home/dev/atlas", false},
		{"/home/dev/atlas/", "/home/dev/atlas", false},
		{"/home/dev//atlas/./src/..", "/home/dev/atlas", false},
		{"/", "/", false},
		{"atlas-api", "atlas-api", false},
		{"at\nlas", "", true},
		{"at\x00las", "", true},
		{"\xff\xfe", "", true},
		{strings.Repeat("a", config.MaxProjectChars+1), "", true},
		// Look-alike names of issue 29 are the one project alpha.
		{"alpha\u200b", "alpha", false},
		{"ａｌｐｈａ", "alpha", false},
		{"\u202ealpha", "alpha", false},
		{"\u2066al\u00adpha\u2069\ufeff", "alpha", false},
		{"ﬁnance", "finance", false},
		{"e\u200b\u0301", "\u00e9", false}, // composes once the space is gone: still idempotent
		{"\u3000alpha\u3000", "alpha", false},
		{"／srv／alpha／", "/srv/alpha", false},
		{"\u200b", "", true},
		{"al\u2028pha", "", true},
		{"al\u0085pha", "", true}, // C1
		// A path keeps its bytes: it names a folder on disk.
		{"/home/dev/ａｌｐｈａ", "/home/dev/ａｌｐｈａ", false},
		{"/home/dev/\u202ealpha/", "/home/dev/\u202ealpha", false},
	} {
		got, err := Normalize(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestNameAndUnder(t *testing.T) {
	for _, tc := range []struct{ id, name string }{
		{"/home/dev/atlas", "atlas"}, {"atlas", "atlas"}, {"/", "/"}, {"/srv/a b", "a b"},
	} {
		if got := Name(tc.id); got != tc.name {
			t.Errorf("Name(%q) = %q, want %q", tc.id, got, tc.name)
		}
	}
	for _, tc := range []struct {
		p, root string
		want    bool
	}{
		{"/home/dev/atlas", "/home/dev/atlas", true},
		{"/home/dev/atlas/src/x", "/home/dev/atlas", true},
		{"/home/dev/atlas2", "/home/dev/atlas", false},
		{"/home/dev", "/home/dev/atlas", false},
		{"atlas", "atlas", false},
		{"/x", "/", true},
	} {
		if got := Under(tc.p, tc.root); got != tc.want {
			t.Errorf("Under(%q, %q) = %v, want %v", tc.p, tc.root, got, tc.want)
		}
	}
}

// TestFindRoot builds a repository (a .git folder), a worktree (a .git
// file) and a plain folder, and finds each one's root from deep inside.
func TestFindRoot(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "atlas")
	wt := filepath.Join(base, "atlas-wt")
	plain := filepath.Join(base, "notes", "deep")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "src", "api"), filepath.Join(wt, "cmd"), plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+repo+"/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{repo, repo},
		{filepath.Join(repo, "src", "api"), repo},
		{filepath.Join(repo, "src", "api") + "/", repo},
		{filepath.Join(wt, "cmd"), wt},
		{plain, plain},
	} {
		if got := FindRoot(tc.dir); got != tc.want {
			t.Errorf("FindRoot(%q) = %q, want %q", tc.dir, got, tc.want)
		}
	}
	// A configured folder holds the repositories inside it, but a
	// repository nested in it is its own project.
	projects := map[string]config.ProjectConfig{"notes": {Root: filepath.Join(base, "notes")}, "all": {Root: base}}
	for _, tc := range []struct{ dir, want string }{
		{plain, filepath.Join(base, "notes")},
		{filepath.Join(repo, "src"), repo},
		{base, base},
	} {
		if got := ForDir(projects, tc.dir); got != tc.want {
			t.Errorf("ForDir(%q) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	cfg := map[string]config.ProjectConfig{
		"atlas": {Root: "/home/dev/atlas", Aliases: []string{"atlas-api"}},
		"mono":  {Root: "/srv/mono/services"},
	}
	known := []string{"/home/dev/atlas", "/home/dev/zephyr", "/work/a/api", "/work/b/api", "legacy", "/opt/solo/", "", "/",
		"/work/c/nova", "/work/d/ｎｏｖａ", "/work/e/beta", "/work/f/\u202ebeta"}
	r := NewResolver(cfg, known)
	for _, tc := range []struct {
		in, want  string
		ambiguous []string
		bad       bool
	}{
		{in: "", want: ""},
		// Names: a config name or alias, else the one known root with that
		// base name, else the name itself.
		{in: "atlas", want: "/home/dev/atlas"},
		{in: "atlas-api", want: "/home/dev/atlas"},
		{in: "mono", want: "/srv/mono/services"},
		{in: "zephyr", want: "/home/dev/zephyr"},
		{in: " zephyr ", want: "/home/dev/zephyr"},
		{in: "solo", want: "/opt/solo"},
		{in: "legacy", want: "legacy"},
		{in: "unknown", want: "unknown"},
		{in: "Zephyr", want: "Zephyr"}, // names are case-sensitive, like folders
		{in: "api", ambiguous: []string{"/work/a/api", "/work/b/api"}},
		// Paths: the deepest configured or known root they are in, by
		// string prefix only, else the path.
		{in: "/home/dev/atlas", want: "/home/dev/atlas"},
		{in: "/home/dev/atlas/src/cmd/", want: "/home/dev/atlas"},
		{in: "/home/dev/atlas2", want: "/home/dev/atlas2"},
		{in: "/srv/mono/services/billing", want: "/srv/mono/services"},
		{in: "/srv/mono", want: "/srv/mono"},
		{in: "/nowhere/../home/dev/zephyr/x", want: "/home/dev/zephyr"},
		{in: "/srv/other", want: "/srv/other"}, // not folded into a project at /
		{in: "/", want: "/"},
		{in: "bad\x07", bad: true},
		// Folded names find their project; a folder whose name only
		// looks like the one asked for makes it ambiguous, never silent.
		{in: "ｚｅｐｈｙｒ", want: "/home/dev/zephyr"},
		{in: "zephyr\u200b", want: "/home/dev/zephyr"},
		{in: "ａｔｌａｓ", want: "/home/dev/atlas"},
		{in: "ａｔｌａｓ-ａｐｉ", want: "/home/dev/atlas"},
		{in: "nova", ambiguous: []string{"/work/c/nova", "/work/d/ｎｏｖａ"}},
		{in: "beta", ambiguous: []string{"/work/e/beta", "/work/f/\u202ebeta"}},
	} {
		got, err := r.Resolve(tc.in)
		var amb *AmbiguousError
		switch {
		case tc.bad:
			if err == nil {
				t.Errorf("Resolve(%q) = %q, want an error", tc.in, got)
			}
		case tc.ambiguous != nil:
			if !errors.As(err, &amb) || strings.Join(amb.Candidates, ",") != strings.Join(tc.ambiguous, ",") {
				t.Errorf("Resolve(%q) = %q, %v; want ambiguous among %v", tc.in, got, err, tc.ambiguous)
			} else if !strings.Contains(err.Error(), text.DisplayLine(tc.ambiguous[0])) || !strings.Contains(err.Error(), text.DisplayLine(tc.ambiguous[1])) ||
				strings.ContainsRune(err.Error(), '\u202e') {
				t.Errorf("the ambiguity error does not name the candidates: %v", err)
			}
		case err != nil || got != tc.want:
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if got := r.DisplayName("/srv/mono/services"); got != "mono" {
		t.Errorf("DisplayName of a configured root = %q, want its table name", got)
	}
	if got := r.DisplayName("/home/dev/zephyr"); got != "zephyr" {
		t.Errorf("DisplayName = %q, want the base name", got)
	}
}

// FuzzNormalize: any input either is refused or normalizes to a value that
// normalizes to itself, has no surrounding space and no control character,
// fits the bound, and, for a path, has no trailing slash or dot parts; the
// resolver never panics on it.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "atlas", "/home/dev/atlas/", "/a/../../b", " /x/./y ", "a/b", "\x00", "\xff", "/", "//", "atlas\n", "~/atlas", "api",
		"alpha\u200b", "ａｌｐｈａ", "\u202ealpha", "e\u200b\u0301", "／x／．．", "\u200b"} {
		f.Add(s)
	}
	r := NewResolver(map[string]config.ProjectConfig{"atlas": {Root: "/home/dev/atlas", Aliases: []string{"a"}}},
		[]string{"/home/dev/atlas", "/w/api", "/v/api", "name"})
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Normalize(s)
		if _, rerr := r.Resolve(s); (rerr == nil) != (err == nil) && !errors.As(rerr, new(*AmbiguousError)) {
			t.Fatalf("Resolve(%q) error %v but Normalize error %v", s, rerr, err)
		}
		if err != nil {
			return
		}
		again, err := Normalize(n)
		if err != nil || again != n {
			t.Fatalf("Normalize(%q) = %q, then %q, %v: not idempotent", s, n, again, err)
		}
		if n != strings.TrimSpace(n) || strings.ContainsFunc(n, unicode.IsControl) || len(n) > config.MaxProjectChars {
			t.Fatalf("Normalize(%q) = %q", s, n)
		}
		if !IsPath(n) && (strings.ContainsFunc(n, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) || !norm.NFKC.IsNormalString(n)) {
			t.Fatalf("Normalize(%q) = %q: a name with an invisible character or not in NFKC", s, n)
		}
		if IsPath(n) && n != "/" && (strings.HasSuffix(n, "/") || strings.Contains(n+"/", "/./") || strings.Contains(n+"/", "/../") || strings.Contains(n, "//")) {
			t.Fatalf("Normalize(%q) = %q: not a clean path", s, n)
		}
		if n != "" && Name(n) == "" {
			t.Fatalf("Name(%q) is empty", n)
		}
	})
}
