package connectors

import (
	"bufio"
	"io"
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore: a pattern relative to the
// folder holding the file.
type ignoreRule struct {
	base    string // folder of the .gitignore, relative to the root ("" for the root)
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ignoreRules is every rule in force in one folder, in the order they
// apply: the root's first, deeper folders' after; the last rule that
// matches decides (a "!" rule re-includes).
type ignoreRules []ignoreRule

// maxIgnoreLines bounds what is read of one .gitignore.
const maxIgnoreLines = 10000

// parseIgnore reads a .gitignore found in folder base (relative to the
// root). It keeps git's rules that matter for which files to read:
// comments, negation, a trailing "/" for folders only, a leading or inner
// "/" anchoring the pattern to base, "*", "?", "[...]" and "**".
func parseIgnore(base string, r io.Reader) ignoreRules {
	var out ignoreRules
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	for n := 0; sc.Scan() && n < maxIgnoreLines; n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
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
		re, err := regexp.Compile(globRegexp(line, anchored))
		if err != nil {
			continue // a pattern git would not understand either
		}
		rule.re = re
		out = append(out, rule)
	}
	return out
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
	out := false
	for _, r := range rs {
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
		if r.re.MatchString(p) {
			out = !r.negate
		}
	}
	return out
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
