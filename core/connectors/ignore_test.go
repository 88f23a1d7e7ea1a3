package connectors

import (
	"regexp"
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
	f.Add("*.log\n/*.tmp\nbuild\ndocs/x.md\n*~", "a/b.log")
	f.Fuzz(func(t *testing.T, rules, p string) {
		rs := parseIgnore("", strings.NewReader(rules))
		rs.ignored(p, false)
		rs.ignored(p, true)
		// A rule matched as a string matches what its regular expression
		// would.
		for _, r := range rs {
			var glob string
			var anchored bool
			switch r.match {
			case matchExact:
				glob, anchored = r.lit, true
			case matchBase:
				glob = r.lit
			case matchSuffix:
				glob = "*" + r.lit
			case matchRootSuffix:
				glob, anchored = "*"+r.lit, true
			default:
				continue
			}
			re, err := regexp.Compile(globRegexp(glob, anchored))
			if err != nil {
				t.Fatalf("rule %+v: %v", r, err)
			}
			if got, want := r.matches(p), re.MatchString(p); got != want {
				t.Fatalf("rule %q (kind %d) on %q: %v, the regexp says %v", r.lit, r.match, p, got, want)
			}
		}
	})
}

// A .gitignore past its bounds is refused whole, and what its rules took
// from the sync's budget is given back.
func TestIgnoreBounds(t *testing.T) {
	b := &ignoreBudget{rules: 10, regexps: 2}
	if _, err := parseIgnoreBounded("", strings.NewReader("a\nb\nc*d\ne*f\ng*h\n"), b, 1<<20, 100); err == nil ||
		!strings.Contains(err.Error(), "pattern rules") || b.rules != 10 || b.regexps != 2 {
		t.Fatalf("regexp budget: %v %+v", err, b)
	}
	if _, err := parseIgnoreBounded("", strings.NewReader(strings.Repeat("x\n", 11)), b, 1<<20, 100); err == nil || b.rules != 10 {
		t.Fatalf("rule budget: %v %+v", err, b)
	}
	if _, err := parseIgnoreBounded("", strings.NewReader(strings.Repeat("x\n", 6)), b, 1<<20, 5); err == nil || !strings.Contains(err.Error(), "more than 5 rules") {
		t.Fatalf("rules of one file: %v", err)
	}
	if _, err := parseIgnoreBounded("", strings.NewReader(strings.Repeat("x", 101)), b, 100, 5); err == nil || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Fatalf("bytes of one file: %v", err)
	}
	rs, err := parseIgnoreBounded("sub", strings.NewReader("a\n*.log\n"), b, 1<<20, 5)
	if err != nil || len(rs) != 2 || b.rules != 8 {
		t.Fatalf("within bounds: %v %v %+v", rs, err, b)
	}
	// Shared down the tree: a chain evaluates the deepest rules first.
	chain := (&ignoreChain{rules: parseIgnore("", strings.NewReader("*.md\n"))}).with(parseIgnore("docs", strings.NewReader("!keep.md\n")))
	if !chain.ignored("x.md", false) || chain.ignored("docs/keep.md", false) || !chain.ignored("docs/other.md", false) {
		t.Fatal("chain order")
	}
}
