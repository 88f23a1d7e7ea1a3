package text

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Normalized is the result of [NormalizeContent].
type Normalized struct {
	// Storage is the content as stored: trimmed, whitespace runs collapsed to
	// one space, case preserved.
	Storage string
	// Normalized is Storage lower-cased with trailing [.,!?;:] removed.
	Normalized string
	// Hash is the hex SHA-256 of Normalized, or of lower-cased Storage when
	// Normalized is empty. It is the exact-duplicate key.
	Hash string
}

// IsSpace reports whether r is in JavaScript's \s class, which Signet's
// normalization (and so its hashes) is defined by. It differs from
// unicode.IsSpace: it includes U+FEFF and excludes U+0085.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029',
		'\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// CollapseSpace trims s and collapses every run of whitespace to one space.
func CollapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for _, r := range s {
		if IsSpace(r) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lowerJS lower-cases like JavaScript's toLowerCase for the cases where Go's
// simple case mapping differs and the difference would change a hash.
func lowerJS(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

// NormalizeContent derives the stored form, the normalized form and the
// dedup hash of content (docs/design/memory.md, "Content normalization and
// the dedup hash"):
//
//	storage    = trim + collapse whitespace
//	normalized = lower(storage) with /[.,!?;:]+$/ removed
//	hashBasis  = normalized || lower(storage)
//	hash       = sha256(hashBasis)
func NormalizeContent(content string) Normalized {
	storage := CollapseSpace(content)
	lower := lowerJS(storage)
	normalized := strings.TrimRight(lower, ".,!?;:")
	basis := normalized
	if basis == "" {
		basis = lower
	}
	sum := sha256.Sum256([]byte(basis))
	return Normalized{Storage: storage, Normalized: normalized, Hash: hex.EncodeToString(sum[:])}
}

// CharCount counts characters (code points), which is what content limits
// are expressed in.
func CharCount(s string) int { return utf8.RuneCountInString(s) }

// ValidUTF8 reports whether s is valid UTF-8.
func ValidUTF8(s string) bool { return utf8.ValidString(s) }

// CollapseSpaceLines is CollapseSpace applied to each line of s: runs of
// whitespace within a line become one space, lines are trimmed, blank lines
// are dropped, and the line breaks between the others stay ("\n").
func CollapseSpaceLines(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }) {
		if line = CollapseSpace(line); line != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
	}
	return b.String()
}
