package signet

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseTagsAndTime(t *testing.T) {
	for in, want := range map[string]string{
		"security,payments":   "security|payments",
		` a , ,b `:            "a|b",
		`["db", "go", 3, ""]`: "db|go",
		`[not json`:           "[not json",
		"":                    "",
		"null":                "",
	} {
		if got := strings.Join(ParseTags(in), "|"); got != want {
			t.Errorf("ParseTags(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"2026-11-23T20:09:01.814Z":  "2026-11-23T20:09:01.814Z",
		"2026-11-23T21:09:01+01:00": "2026-11-23T20:09:01.000Z",
		"2026-10-03 10:11:12":       "2026-10-03T10:11:12.000Z",
		"1763928541814":             "2025-11-23T20:09:01.814Z",
		"yesterday":                 "yesterday",
		"":                          "",
	} {
		if got := Time(in); got != want {
			t.Errorf("Time(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseTags and FuzzTime: the two parsers of a Signet file's text
// columns never panic, and what they return is clean.
func FuzzParseTags(f *testing.F) {
	for _, s := range []string{"a,b", `["x","y"]`, `[1,{"a":2}]`, ",,,", "\x00,\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tag := range ParseTags(s) {
			if tag == "" || strings.TrimSpace(tag) != tag {
				t.Fatalf("ParseTags(%q) gave %q", s, tag)
			}
		}
	})
}

func FuzzTime(f *testing.F) {
	for _, s := range []string{"2026-11-23T20:09:01.814Z", "2026-10-03 10:11:12", "1763928541814", "99999999999999999999", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Time(s)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Time(%q) = %q", s, got)
		}
	})
}
