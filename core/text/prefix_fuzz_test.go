package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

func FuzzParsePrefixes(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		p := text.ParsePrefixes(in)
		if !strings.HasSuffix(in, p.Body) {
			t.Fatalf("ParsePrefixes(%q).Body = %q is not a suffix of the input", in, p.Body)
		}
		if r, _ := utf8.DecodeRuneInString(p.Body); p.Body != "" && isJSSpace(r) {
			t.Fatalf("ParsePrefixes(%q).Body = %q starts with whitespace", in, p.Body)
		}
		trimmed := strings.TrimLeftFunc(in, isJSSpace)
		if p.Pinned && !(len(trimmed) >= 9 && strings.EqualFold(trimmed[:9], "critical:")) {
			t.Fatalf("ParsePrefixes(%q) pinned without a critical: prefix", in)
		}
		if !p.Pinned && len(trimmed) >= 9 && strings.EqualFold(trimmed[:9], "critical:") {
			t.Fatalf("ParsePrefixes(%q) missed the critical: prefix", in)
		}
		if len(p.Tags) > 0 && !strings.Contains(in, "]:") {
			t.Fatalf("ParsePrefixes(%q) found tags %q without a [..]: prefix", in, p.Tags)
		}
		if p.Tags == nil && !p.Pinned && p.Body != trimmed {
			t.Fatalf("ParsePrefixes(%q) stripped something without finding a prefix: body %q", in, p.Body)
		}
		seen := map[string]bool{}
		for _, tag := range p.Tags {
			if tag == "" || tag != text.CollapseSpace(tag) || strings.Contains(tag, ",") || tag != strings.ToLower(tag) {
				t.Fatalf("ParsePrefixes(%q): bad tag %q in %q", in, tag, p.Tags)
			}
			if seen[strings.ToLower(tag)] {
				t.Fatalf("ParsePrefixes(%q): repeated tag %q", in, tag)
			}
			seen[strings.ToLower(tag)] = true
		}
	})
}

// isJSSpace mirrors JavaScript's \s, which the prefix parser trims.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029',
		'\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}
