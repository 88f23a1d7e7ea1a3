package codex

import (
	"fmt"
	"strconv"
	"strings"
)

// Editing Codex's config.toml without a TOML writer: the file is read as
// lines grouped by table (the lines before the first header, then each
// [header] with the lines up to the next one), and cairn's edits replace,
// add or drop whole tables, or whole key statements inside its own
// table. Every other line (comments, spacing, order, the user's quoting)
// is written back as it was. The result is checked by decoding it before
// it is written (Config.edit).

// tomlDoc is a TOML file as tables of lines.
type tomlDoc struct {
	pre    []string // lines before the first header
	tables []*tomlTable
}

// tomlTable is one table: its header line and the lines after it.
type tomlTable struct {
	key   []string // the header's key path, unquoted
	array bool     // [[array of tables]]
	lines []string // the header first
}

// parseTOML splits src into tables. It does not check src is valid TOML
// (the decoder does); what it cannot read as a header stays a line of the
// table before.
func parseTOML(src string) *tomlDoc {
	d := &tomlDoc{}
	lines := strings.SplitAfter(src, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var sc tomlScanner
	for _, line := range lines {
		if !sc.open() {
			if key, array, ok := parseHeader(line); ok {
				d.tables = append(d.tables, &tomlTable{key: key, array: array, lines: []string{line}})
				sc.scan(line)
				continue
			}
		}
		sc.scan(line)
		if len(d.tables) == 0 {
			d.pre = append(d.pre, line)
		} else {
			t := d.tables[len(d.tables)-1]
			t.lines = append(t.lines, line)
		}
	}
	return d
}

// String is the document as text.
func (d *tomlDoc) String() string {
	var b strings.Builder
	for _, l := range d.pre {
		b.WriteString(l)
	}
	for _, t := range d.tables {
		for _, l := range t.lines {
			b.WriteString(l)
		}
	}
	return b.String()
}

// find is the index of the table with exactly key (not an array of
// tables), or -1.
func (d *tomlDoc) find(key []string) int {
	for i, t := range d.tables {
		if !t.array && keyEqual(t.key, key) {
			return i
		}
	}
	return -1
}

// drop removes the tables whose key match says so; it reports whether it
// removed any.
func (d *tomlDoc) drop(match func(key []string, array bool) bool) bool {
	var keep []*tomlTable
	for _, t := range d.tables {
		if !match(t.key, t.array) {
			keep = append(keep, t)
		}
	}
	removed := len(keep) != len(d.tables)
	d.tables = keep
	return removed
}

// put replaces the table with t's key in place, or appends t after a
// blank line.
func (d *tomlDoc) put(t *tomlTable) {
	if i := d.find(t.key); i >= 0 {
		// The blank lines that ended the old table stay after the new one.
		old := d.tables[i].lines
		n := len(old)
		for n > 1 && strings.TrimSpace(old[n-1]) == "" {
			n--
		}
		t.lines = append(t.lines, old[n:]...)
		d.tables[i] = t
		return
	}
	last := d.lastLine()
	switch {
	case last == "":
	case !strings.HasSuffix(last, "\n"):
		d.appendLine("\n\n")
	case strings.TrimSpace(last) != "":
		d.appendLine("\n")
	}
	d.tables = append(d.tables, t)
}

func (d *tomlDoc) lastLine() string {
	for i := len(d.tables) - 1; i >= 0; i-- {
		if l := d.tables[i].lines; len(l) > 0 {
			return l[len(l)-1]
		}
	}
	if len(d.pre) > 0 {
		return d.pre[len(d.pre)-1]
	}
	return ""
}

func (d *tomlDoc) appendLine(s string) {
	if len(d.tables) > 0 {
		t := d.tables[len(d.tables)-1]
		n := len(t.lines) - 1
		if !strings.HasSuffix(t.lines[n], "\n") {
			t.lines[n] += s
			return
		}
		t.lines = append(t.lines, s)
		return
	}
	if n := len(d.pre) - 1; n >= 0 && !strings.HasSuffix(d.pre[n], "\n") {
		d.pre[n] += s
		return
	}
	d.pre = append(d.pre, s)
}

// statements splits a table's lines after the header into key
// statements (a key line and the lines its value continues on) and the
// lines between them (comments, blanks), each with the key it sets ("" for
// a line that sets none).
func (t *tomlTable) statements() (keys []string, groups [][]string) {
	var sc tomlScanner
	for _, line := range t.lines[1:] {
		continuing := sc.open()
		sc.scan(line)
		if continuing {
			groups[len(groups)-1] = append(groups[len(groups)-1], line)
			continue
		}
		key := ""
		if k, ok := statementKey(line); ok {
			key = k
		}
		keys = append(keys, key)
		groups = append(groups, []string{line})
	}
	return keys, groups
}

// tomlScanner follows strings and brackets across lines, so that a line
// inside a multi-line string or array is not taken for a header or a key.
type tomlScanner struct {
	ml    string // the delimiter of the multi-line string open, if any
	depth int    // open [ and { of a value
}

func (s *tomlScanner) open() bool { return s.ml != "" || s.depth > 0 }

// scan reads one line.
func (s *tomlScanner) scan(line string) {
	for i := 0; i < len(line); i++ {
		if s.ml != "" {
			j := strings.Index(line[i:], s.ml)
			if j < 0 {
				return
			}
			if s.ml == `"""` && escaped(line, i+j) {
				i += j
				continue
			}
			i += j + len(s.ml) - 1
			s.ml = ""
			continue
		}
		switch c := line[i]; c {
		case '#':
			return
		case '"', '\'':
			delim := string([]byte{c, c, c})
			if strings.HasPrefix(line[i:], delim) {
				s.ml = delim
				i += 2
				continue
			}
			j := i + 1
			for j < len(line) && line[j] != c {
				if c == '"' && line[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '[', '{':
			s.depth++
		case ']', '}':
			if s.depth > 0 {
				s.depth--
			}
		}
	}
}

// escaped reports whether the character at i of line follows an odd
// number of backslashes.
func escaped(line string, i int) bool {
	n := 0
	for i > 0 && line[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// parseHeader reads a table header line: [a.b."c"] or [[a.b]], with an
// optional comment after it.
func parseHeader(line string) (key []string, array bool, ok bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") {
		return nil, false, false
	}
	array = strings.HasPrefix(s, "[[")
	if array {
		s = s[2:]
	} else {
		s = s[1:]
	}
	key, rest, ok := parseKey(s)
	if !ok {
		return nil, false, false
	}
	close := "]"
	if array {
		close = "]]"
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, close) {
		return nil, false, false
	}
	rest = strings.TrimSpace(rest[len(close):])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false, false
	}
	return key, array, true
}

// statementKey is the first part of the key a `key = value` line sets.
func statementKey(line string) (string, bool) {
	key, rest, ok := parseKey(line)
	if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
		return "", false
	}
	return key[0], true
}

// parseKey reads a dotted key (bare, "basic" or 'literal' parts) from the
// start of s and returns its parts and what follows.
func parseKey(s string) (parts []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		var part string
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, "", false
			}
			part, s = u, s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			n := 0
			for n < len(s) && isBare(s[n]) {
				n++
			}
			if n == 0 {
				return nil, "", false
			}
			part, s = s[:n], s[n:]
		}
		parts = append(parts, part)
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ".") {
			return parts, s, true
		}
		s = t[1:]
	}
}

func isBare(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func keyEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasPrefix reports whether key starts with prefix.
func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && keyEqual(key[:len(prefix)], prefix)
}

// tomlKey renders a key path: bare parts as they are, others quoted.
func tomlKey(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		bare := p != ""
		for j := 0; j < len(p); j++ {
			bare = bare && isBare(p[j])
		}
		if bare {
			out[i] = p
		} else {
			out[i] = tomlString(p)
		}
	}
	return strings.Join(out, ".")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
