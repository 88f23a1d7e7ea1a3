package entities

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLink: any text links without panicking; every mention's span lies
// inside the text and holds its name; canonical names are canonical, not
// generic and unique; types are known; the answer is deterministic and
// capped. QueryKeys and IsDecision take the same input.
func FuzzLink(f *testing.F) {
	for _, s := range realistic {
		f.Add(s)
	}
	for _, s := range []string{"", "Caroline:", ":", "Dr. : x", "\"The", "foo(", "((((", "a)b(c", "v", "v1.", "1.2.3-",
		"@/", "*.", "./", "~/", "x/y/", "LGBTQ+ C++", "Jean-Luc O'Brien’s", "\xff\xfe", "É. Ö: ü", "Caroline's's",
		"- \n* \n# Title\n> quote", "go-sqlite3 net/http github.com/", "McGee's Pub", "I'm", "’s"} {
		f.Add(s)
	}
	known := []string{TypePerson, TypeProject, TypeTool, TypeLibrary, TypeService, TypeFile, TypeCode, TypeVersion, TypeURL, TypeUnknown}
	f.Fuzz(func(t *testing.T, content string) {
		ms := Link(content)
		if len(ms) > MaxMentions {
			t.Fatalf("%d mentions", len(ms))
		}
		seen := map[string]bool{}
		for _, m := range ms {
			if m.Start < 0 || m.End > len(content) || m.Start >= m.End {
				t.Fatalf("span %d:%d outside %d bytes: %+v", m.Start, m.End, len(content), m)
			}
			if content[m.Start:m.End] != m.Name {
				t.Fatalf("span %q does not hold name %q", content[m.Start:m.End], m.Name)
			}
			if m.Canonical != Canonical(m.Name) || Generic(m.Canonical) || seen[m.Canonical] {
				t.Fatalf("bad canonical %+v (seen %v)", m, seen[m.Canonical])
			}
			seen[m.Canonical] = true
			if !slices.Contains(known, m.Type) {
				t.Fatalf("unknown type %+v", m)
			}
			if utf8.ValidString(content) && !utf8.ValidString(m.Name) {
				t.Fatalf("valid text gave an invalid name %q", m.Name)
			}
		}
		if again := Link(content); !slices.Equal(ms, again) {
			t.Fatalf("not deterministic:\n%+v\n%+v", ms, again)
		}
		keys := QueryKeys(content)
		if len(keys) > maxQueryKeys {
			t.Fatalf("%d query keys", len(keys))
		}
		for _, k := range keys {
			if k != Canonical(k) || Generic(k) {
				t.Fatalf("bad key %q", k)
			}
		}
		for _, l := range SpeakerLabels(content) {
			if l == "" || !strings.Contains(strings.ToLower(content), l[:min(len(l), 1)]) {
				t.Fatalf("label %q", l)
			}
		}
		IsDecision(content)
	})
}
