package core_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Comments and documents cite what a reader of the repository can open:
// the design notes in docs/design (docs/design/README.md), by file and
// section heading, or nothing, saying the point in words. Outside
// documents cited by number (design documents of another project, the
// numbered sections of a reference kept outside the repository, a
// specification's sections) are not citations anyone can follow.

// outsideCitations are the forms of such citations, matched in comment
// text (Go) or in the whole text (Markdown, SQL, TOML) with comment markers
// removed and lines joined, so a citation wrapped across lines is found.
var outsideCitations = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bseeds?\s+0\d\d\b`),
	regexp.MustCompile(`(?i)\breference\s+(?:section\s+\d+|\d+\.\d+)`),
	regexp.MustCompile(`\bSignet\s+\d+\.\d+(?:[^.\d]|\.(?:\D|$)|$)`), // a section number, not a version (0.58.1)
	regexp.MustCompile(`\bSPEC(?:\s+section\b|\.md\b)`),
	regexp.MustCompile(`/work/shared\b|\.\./shared/`),
}

// designCitation is a design note cited from anywhere, with the section
// heading quoted after it when there is one:
// docs/design/search.md, "Dampening".
var designCitation = regexp.MustCompile(`docs/design/([A-Za-z0-9_-]+\.md)(?:#([a-z0-9-]+))?(?:\)?,?\s+"([^"]+)")?`)

// noteLink is a link from one design note to another (or to a section of
// one), with the heading quoted after it when there is one:
// [search.md](search.md), "Dampening"; [Chunking](#chunking).
var noteLink = regexp.MustCompile(`\]\(([A-Za-z0-9_-]+\.md)?(?:#([a-z0-9-]+))?\)(?:,?\s+"([^"]+)")?`)

// frozenDirs hold files whose text may not change: a migration's comments
// are part of its checksum, and a store refuses a migration that changed
// after it was applied. They are checked for design paths only.
var frozenDirs = []string{"storage/sqlite/migrations"}

var commentMarker = regexp.MustCompile(`(?m)^[ \t]*(?://|--|#+)[ \t]?`)

func TestDesignCitations(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	notes := designNotes(t, filepath.Join(root, "docs", "design"))
	if len(notes) == 0 {
		t.Fatal("no design notes in docs/design")
	}
	checked, cited := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".md" && ext != ".sql" && ext != ".toml" {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		frozen := false
		for _, dir := range frozenDirs {
			frozen = frozen || strings.HasPrefix(rel, dir+"/")
		}
		texts, err := citableText(path, ext)
		if err != nil {
			return err
		}
		checked++
		for _, tx := range texts {
			if !frozen {
				for _, re := range outsideCitations {
					for _, loc := range re.FindAllStringIndex(tx.text, -1) {
						t.Errorf("%s:%d cites a document no reader can open: %q; cite docs/design or say it in words",
							rel, tx.lineAt(loc[0]), oneLine(tx.text[loc[0]:loc[1]]))
					}
				}
			}
			for _, m := range designCitation.FindAllStringSubmatchIndex(tx.text, -1) {
				cited++
				file, anchor, heading := group(tx.text, m, 1), group(tx.text, m, 2), group(tx.text, m, 3)
				checkNoteCitation(t, notes, rel, tx.lineAt(m[0]), file, anchor, heading)
			}
			if strings.HasPrefix(rel, "docs/design/") {
				self := filepath.Base(rel)
				for _, m := range noteLink.FindAllStringSubmatchIndex(tx.text, -1) {
					file, anchor, heading := group(tx.text, m, 1), group(tx.text, m, 2), group(tx.text, m, 3)
					if file == "" {
						file = self
					}
					checkNoteCitation(t, notes, rel, tx.lineAt(m[0]), file, anchor, heading)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 || cited < 50 {
		t.Fatalf("checked %d files and %d design citations: the walk missed the repository", checked, cited)
	}
}

// note is one design note's section headings and their anchors.
type note struct {
	headings map[string]bool
	anchors  map[string]bool
}

var headingLine = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*$`)

func designNotes(t *testing.T, dir string) map[string]note {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("design notes: %v", err)
	}
	out := map[string]note{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n := note{headings: map[string]bool{}, anchors: map[string]bool{}}
		for _, m := range headingLine.FindAllStringSubmatch(stripFences(string(b)), -1) {
			n.headings[m[1]] = true
			n.anchors[anchorOf(m[1])] = true
		}
		out[e.Name()] = n
	}
	return out
}

// checkNoteCitation reports a cited note that does not exist, or a cited
// heading or anchor it does not have.
func checkNoteCitation(t *testing.T, notes map[string]note, rel string, line int, file, anchor, heading string) {
	t.Helper()
	n, ok := notes[file]
	if !ok {
		t.Errorf("%s:%d cites docs/design/%s, which does not exist", rel, line, file)
		return
	}
	if anchor != "" && !n.anchors[anchor] {
		t.Errorf("%s:%d links to #%s, which is no heading of docs/design/%s", rel, line, anchor, file)
	}
	if heading = oneLine(heading); heading != "" && !n.headings[heading] {
		t.Errorf("%s:%d cites %q, which is no heading of docs/design/%s", rel, line, heading, file)
	}
}

// anchorOf is the anchor a Markdown renderer gives a heading: lower-cased,
// spaces as hyphens, other punctuation dropped.
func anchorOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// stripFences removes fenced code blocks, whose lines are not headings.
func stripFences(s string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l)
		}
	}
	return b.String()
}

// citable is a stretch of text that may cite, and the line it starts on.
type citable struct {
	text string
	line int
}

func (c citable) lineAt(off int) int { return c.line + strings.Count(c.text[:off], "\n") }

// citableText returns what of a file may cite: the comments of Go source
// (one stretch per comment group), the whole of other files with their
// line-leading comment markers removed.
func citableText(path, ext string) ([]citable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if ext != ".go" {
		return []citable{{text: commentMarker.ReplaceAllString(string(b), ""), line: 1}}, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, b, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var out []citable
	for _, cg := range f.Comments {
		var lines []string
		for _, c := range cg.List {
			text := c.Text
			if strings.HasPrefix(text, "//") {
				text = strings.TrimPrefix(strings.TrimPrefix(text, "//"), " ")
			} else {
				text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
			}
			lines = append(lines, text)
		}
		out = append(out, citable{text: strings.Join(lines, "\n"), line: fset.Position(cg.Pos()).Line})
	}
	return out, nil
}

func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
