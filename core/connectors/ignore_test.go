package connectors

import (
	"strings"
	"testing"
)

func TestIgnoreRules(t *testing.T) {
	rules := append(append(ignoreRules{}, builtinIgnores...), parseIgnore("", strings.NewReader(`
# comment
*.log
/build-output
drafts/
docs/**/private.md
!keep.log
\#hash.md
`))...)
	rules = append(rules, parseIgnore("notes", strings.NewReader("secret*\n/top.md\n"))...)
	for _, c := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"a.log", false, true},
		{"deep/x/a.log", false, true},
		{"keep.log", false, false},
		{"build-output", true, true},
		{"x/build-output", true, false}, // anchored to the root
		{"drafts", true, true},
		{"drafts", false, false}, // folders only
		{"x/drafts", true, true},
		{"docs/private.md", false, true},
		{"docs/a/b/private.md", false, true},
		{"other/private.md", false, false},
		{"#hash.md", false, true},
		{"node_modules", true, true},
		{"a/.git", true, true},
		{"notes/secret-plan.md", false, true},
		{"notes/sub/secret.md", false, true},
		{"secret.md", false, false}, // notes/.gitignore covers notes/ only
		{"notes/top.md", false, true},
		{"notes/sub/top.md", false, false},
		{"readme.md", false, false},
	} {
		if got := rules.ignored(c.path, c.dir); got != c.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

// FuzzIgnore: a .gitignore is outside input; parsing and matching never
// panic.
func FuzzIgnore(f *testing.F) {
	for _, s := range []string{"*.log\n!keep.log", "a/**/b", "[a-", "[!x]y", "**", "/", "\\!x", "a/**"} {
		f.Add(s, "a/b/keep.log")
	}
	f.Fuzz(func(t *testing.T, rules, p string) {
		rs := parseIgnore("", strings.NewReader(rules))
		rs.ignored(p, false)
		rs.ignored(p, true)
	})
}
