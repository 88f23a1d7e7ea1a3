package text

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// FieldError is a value refused for one field of a request; Field names
// it as the API does (tags, type, who, source_id, session_id, project).
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Msg }

// CheckIdentifier refuses an identifier (a tag, a type, who, a source id,
// a session id, a project name) that holds what a reader cannot see or a
// terminal would obey: invalid UTF-8, control characters (C0 with tab and
// line feed, DEL, C1: so no escape sequence either), invisible formatting
// characters (zero-width space and joiners, bidi marks, embeddings,
// overrides and isolates, soft hyphen, BOM, tag characters; a zero-width
// joiner inside an emoji sequence is allowed), a run of variation
// selectors, and line or paragraph separators. The error names the field and the first such character:
//
//	tags must not hold control or invisible characters: U+001B (escape) at byte 5
//
// It checks content only: trimming, length and emptiness are the caller's.
func CheckIdentifier(field, value string) error {
	if !utf8.ValidString(value) {
		return &FieldError{Field: field, Msg: fmt.Sprintf("%s must be valid UTF-8", field)}
	}
	var prev rune
	for i, r := range value {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || invisible(r) && !emojiJoiner(prev, value[i+utf8.RuneLen(r):], r) ||
			variationSelector(r) && variationSelector(prev) {
			return &FieldError{Field: field, Msg: fmt.Sprintf("%s must not hold control or invisible characters: %s at byte %d", field, describeRune(r), i)}
		}
		prev = r
	}
	return nil
}

// CheckIdentifiers is CheckIdentifier for each of a list's values (tags).
func CheckIdentifiers(field string, values []string) error {
	for _, v := range values {
		if err := CheckIdentifier(field, v); err != nil {
			return err
		}
	}
	return nil
}

// runeNames name the characters a refusal most often meets.
var runeNames = map[rune]string{
	0x00: "NUL", 0x07: "bell", 0x08: "backspace", 0x09: "tab", 0x0a: "line feed", 0x0d: "carriage return",
	0x1b: "escape", 0x7f: "delete", 0x9b: "C1 CSI", 0x9d: "C1 OSC", 0x200b: "zero-width space",
	0x200c: "zero-width non-joiner", 0x200d: "zero-width joiner", 0x200e: "left-to-right mark",
	0x200f: "right-to-left mark", 0x202a: "left-to-right embedding", 0x202b: "right-to-left embedding",
	0x202c: "pop directional formatting", 0x202d: "left-to-right override", 0x202e: "right-to-left override",
	0x2060: "word joiner", 0x2066: "left-to-right isolate", 0x2067: "right-to-left isolate",
	0x2068: "first strong isolate", 0x2069: "pop directional isolate", 0xfeff: "byte order mark",
	0x00ad: "soft hyphen", 0x2028: "line separator", 0x2029: "paragraph separator",
}

func describeRune(r rune) string {
	if n, ok := runeNames[r]; ok {
		return fmt.Sprintf("U+%04X (%s)", r, n)
	}
	switch {
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("U+%04X (a control character)", r)
	case r >= 0x80 && r <= 0x9f:
		return fmt.Sprintf("U+%04X (a C1 control character)", r)
	case r >= 0xe0000 && r <= 0xe007f:
		return fmt.Sprintf("U+%04X (a tag character)", r)
	case variationSelector(r):
		return fmt.Sprintf("U+%04X (a variation selector after another)", r)
	}
	return fmt.Sprintf("U+%04X (an invisible formatting character)", r)
}
