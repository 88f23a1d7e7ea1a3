package connectors

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore: a pattern relative to the
// folder holding the file. Most lines of a long .gitignore are plain names
// or "*.ext": those are matched as strings (lit), only the others compile
// a regular expression (about 2 KB each), so a long file costs little.
type ignoreRule struct {
	base    string // folder of the .gitignore, relative to the root ("" for the root)
	match   matchKind
	lit     string         // matchExact, matchBase, matchSuffix
	re      *regexp.Regexp // matchRegexp
	negate  bool
	dirOnly bool
}

type matchKind uint8

const (
	matchRegexp     matchKind = iota
	matchExact                // an anchored name: the path itself
	matchBase                 // a name: the path's last element
	matchSuffix               // "*.ext": the last element ends so
	matchRootSuffix           // "/*.ext": a name at the folder's top that ends so
)

// lastElem is what follows p's last '/' (all of p without one).
func lastElem(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// ignoreRules is every rule in force in one folder, in the order they
// apply: the root's first, deeper folders' after; the last rule that
// matches decides (a "!" rule re-includes).
type ignoreRules []ignoreRule

// Bounds of what .gitignore files may cost. A .gitignore beyond them
// makes its folder skipped (reported, never read: skipping rules would
// read what the user meant to keep out).
var (
	maxIgnoreBytes        int64 = 512 << 10 // one file
	maxIgnoreRules              = 10000     // one file
	maxIgnoreRulesTotal         = 50000     // one sync
	maxIgnoreRegexpsTotal       = 5000      // one sync: compiled patterns
)

// ignoreBudget is what is left of a sync's bounds.
type ignoreBudget struct{ rules, regexps int }

func newIgnoreBudget() *ignoreBudget {
	return &ignoreBudget{rules: maxIgnoreRulesTotal, regexps: maxIgnoreRegexpsTotal}
}

// refund gives back what the rules of a refused .gitignore took.
func (b *ignoreBudget) refund(rs ignoreRules) {
	for _, r := range rs {
		b.rules++
		if r.match == matchRegexp {
			b.regexps++
		}
	}
}

// errIgnoreTooLarge is a .gitignore past the bounds.
type errIgnoreTooLarge struct{ why string }

func (e *errIgnoreTooLarge) Error() string {
	return ".gitignore " + e.why + "; the folder is skipped"
}

// parseIgnore reads a .gitignore found in folder base (relative to the
// root), without bounds (the built-in rules, tests).
func parseIgnore(base string, r io.Reader) ignoreRules {
	rs, _ := parseIgnoreBounded(base, r, &ignoreBudget{rules: 1 << 30, regexps: 1 << 30}, 1<<30, 1<<30)
	return rs
}

// parseIgnoreBounded reads a .gitignore found in folder base (relative to
// the root), within the budget. It keeps git's rules that matter for which
// files to read: comments, negation, a trailing "/" for folders only, a
// leading or inner "/" anchoring the pattern to base, "*", "?", "[...]"
// and "**".
func parseIgnoreBounded(base string, r io.Reader, budget *ignoreBudget, maxBytes int64, maxRules int) (ignoreRules, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, &errIgnoreTooLarge{fmt.Sprintf("is larger than %d bytes", maxBytes)}
	}
	var out ignoreRules
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		line := strings.TrimRight(string(raw), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rule := ignoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			rule.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:] // \# and \! are literal
		}
		if strings.HasSuffix(line, "/") {
			rule.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if len(out) >= maxRules {
			budget.refund(out)
			return nil, &errIgnoreTooLarge{fmt.Sprintf("holds more than %d rules", maxRules)}
		}
		if budget.rules <= 0 {
			budget.refund(out)
			return nil, &errIgnoreTooLarge{fmt.Sprintf("would bring the sync past %d ignore rules", maxIgnoreRulesTotal)}
		}
		switch glob := strings.ContainsAny(line, "*?[\\"); {
		case !glob && anchored:
			rule.match, rule.lit = matchExact, line
		case !glob:
			rule.match, rule.lit = matchBase, line
		case line[0] == '*' && !strings.ContainsAny(line[1:], "*?[\\/"):
			rule.match, rule.lit = matchSuffix, line[1:]
			if anchored {
				rule.match = matchRootSuffix
			}
		default:
			if budget.regexps <= 0 {
				budget.refund(out)
				return nil, &errIgnoreTooLarge{fmt.Sprintf("would bring the sync past %d pattern rules", maxIgnoreRegexpsTotal)}
			}
			re, err := regexp.Compile(globRegexp(line, anchored))
			if err != nil {
				continue // a pattern git would not understand either
			}
			budget.regexps--
			rule.match, rule.re = matchRegexp, re
		}
		budget.rules--
		out = append(out, rule)
	}
	return out, nil
}

// matches reports whether the rule matches p, a path relative to the
// rule's folder.
func (r *ignoreRule) matches(p string) bool {
	switch r.match {
	case matchExact:
		return p == r.lit
	case matchBase:
		return lastElem(p) == r.lit
	case matchSuffix:
		return strings.HasSuffix(lastElem(p), r.lit)
	case matchRootSuffix:
		return !strings.Contains(p, "/") && strings.HasSuffix(p, r.lit)
	}
	return r.re.MatchString(p)
}

// globRegexp turns a gitignore glob into a regular expression over a
// '/'-separated path relative to the .gitignore's folder.
func globRegexp(g string, anchored bool) string {
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// ignored reports whether rel (relative to the root, '/'-separated) is
// ignored; dir says whether it is a folder.
func (rs ignoreRules) ignored(rel string, dir bool) bool {
	ignored, _ := rs.decide(rel, dir)
	return ignored
}

// decide applies the rules from the last: the first that matches decides
// (found), as git's "the last matching rule wins".
func (rs ignoreRules) decide(rel string, dir bool) (ignored, found bool) {
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.dirOnly && !dir {
			continue
		}
		p := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			p = rel[len(r.base)+1:]
		}
		if r.matches(p) {
			return !r.negate, true
		}
	}
	return false, false
}

// ignoreChain is the rules in force in one folder: its own .gitignore's
// after its parent's. Folders share their parents' rules instead of
// copying them (a long .gitignore at the root once cost its size again in
// every folder).
type ignoreChain struct {
	parent *ignoreChain
	rules  ignoreRules
}

// with returns the chain of a subfolder with rules of its own.
func (c *ignoreChain) with(rules ignoreRules) *ignoreChain {
	if len(rules) == 0 {
		return c
	}
	return &ignoreChain{parent: c, rules: rules}
}

// ignored reports whether rel is ignored by the chain, deepest rules
// first.
func (c *ignoreChain) ignored(rel string, dir bool) bool {
	for ; c != nil; c = c.parent {
		if ignored, found := c.rules.decide(rel, dir); found {
			return ignored
		}
	}
	return false
}

// builtinIgnores are never read: version control, dependency and build
// folders, and editors' scratch.
var builtinIgnores = parseIgnore("", strings.NewReader(`.git/
.hg/
.svn/
node_modules/
vendor/
__pycache__/
.venv/
venv/
target/
dist/
build/
.idea/
.vscode/
*.swp
*~
.DS_Store
`))

// textExtensions are the files a filesystem connector reads: notes,
// documentation and source code.
var textExtensions = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".txt": true, ".text": true, ".rst": true, ".org": true, ".adoc": true,
	".go": true, ".py": true, ".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".rs": true, ".java": true, ".kt": true,
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true, ".cs": true, ".rb": true, ".php": true, ".swift": true,
	".scala": true, ".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".lua": true, ".sql": true, ".proto": true,
	".toml": true, ".yaml": true, ".yml": true, ".ini": true, ".cfg": true, ".css": true, ".html": true, ".tex": true,
}

// textFile reports whether name is a file a connector reads by its name.
func textFile(name string) bool {
	switch name {
	case "README", "LICENSE", "Makefile", "Dockerfile", "CHANGELOG", "NOTES", "TODO":
		return true
	}
	return textExtensions[strings.ToLower(path.Ext(name))]
}
