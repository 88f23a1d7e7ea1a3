// Package keyword is an in-memory inverted index over memories' content
// that ranks like FTS5's bm25() but stops early: top-k retrieval with
// MaxScore pruning over block-compressed posting lists, so a query's cost
// grows with the answer, not with the store. It tokenizes as the
// memories_fts table does ('porter unicode61 remove_diacritics 2') and
// scores with FTS5's formula (k1 = 1.2, b = 0.75), so its ranking is
// FTS5's. It holds no SQL: core keeps it in step with the database.
package keyword

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxPorterToken is FTS5's FTS5_PORTER_MAX_TOKEN: longer tokens (in bytes)
// and tokens under 3 bytes pass through unstemmed.
const maxPorterToken = 64

// Tokenize calls fn with each token of s as memories_fts indexes it:
// unicode61 (letters, numbers and private-use characters are token
// characters; case folded; diacritics removed) then the Porter stemmer.
// The byte slice passed to fn is reused: copy it to keep it.
func Tokenize(s string, fn func(tok []byte)) {
	var buf, stem []byte
	in := false
	emit := func() {
		if len(buf) > 0 {
			stem = porter(append(stem[:0], buf...))
			fn(stem)
		}
		buf, in = buf[:0], false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'A' && c <= 'Z':
				buf, in = append(buf, c+32), true
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				buf, in = append(buf, c), true
			default:
				if in {
					emit()
				}
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case isTokenRune(r):
			buf, in = appendFolded(buf, r), true
		case in && unicode.Is(unicode.Mn, r):
			// A combining diacritic continues a token; removed.
		default:
			if in {
				emit()
			}
		}
	}
	if in {
		emit()
	}
}

// isTokenRune is unicode61's default token class: L*, N* and Co.
// (SQLite's tables are of an older Unicode: a few symbols beyond the
// basic plane, some emoji, are token characters there.)
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// appendFolded appends r case-folded (final sigma is sigma, the micro sign
// is mu) and, for a Latin letter, without its diacritics
// (remove_diacritics 2: the letter decomposes to its base).
func appendFolded(buf []byte, r rune) []byte {
	if r > 0xFFFF {
		return utf8.AppendRune(buf, r)
	}
	r = unicode.ToLower(unicode.ToUpper(r))
	if (r >= 0xC0 && r < 0x250) || (r >= 0x1E00 && r < 0x1F00) {
		var tmp [utf8.UTFMax]byte
		n := utf8.EncodeRune(tmp[:], r)
		d := norm.NFD.Bytes(tmp[:n])
		if base, bn := utf8.DecodeRune(d); bn > 0 && base < 0x250 {
			rest := d[bn:]
			allMarks := true
			for len(rest) > 0 {
				m, mn := utf8.DecodeRune(rest)
				if !unicode.Is(unicode.Mn, m) {
					allMarks = false
					break
				}
				rest = rest[mn:]
			}
			if allMarks {
				r = unicode.ToLower(base)
			}
		}
	}
	return utf8.AppendRune(buf, r)
}

// porter stems an already folded token in place, as FTS5's porter
// tokenizer does (the original algorithm with its y and m rules, and
// "bli" → "ble" in step 2).
func porter(b []byte) []byte {
	if len(b) > maxPorterToken || len(b) < 3 {
		return b
	}
	n := len(b)
	// Step 1a.
	if b[n-1] == 's' {
		switch {
		case b[n-2] == 'e':
			if (n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i') {
				n -= 2
			} else {
				n--
			}
		case b[n-2] != 's':
			n--
		}
	}
	// Step 1b.
	b = b[:n]
	if n2, ok := step1b(b); ok {
		b = b[:n2]
		if n3, ok := applyRules(b, step1b2, nil); ok {
			b = b[:n3]
		} else {
			b = b[:n3]
			n = len(b)
			c := b[n-1]
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && n > 1 && c == b[n-2] {
				b = b[:n-1]
			} else if mEq1(b) && oStar(b) {
				b = append(b, 'e')
			}
		}
	} else {
		b = b[:n2]
	}
	// Step 1c.
	if n = len(b); b[n-1] == 'y' && hasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}
	n, _ = applyRules(b, step2, mGt0)
	b = b[:n]
	n, _ = applyRules(b, step3, mGt0)
	b = b[:n]
	n, _ = applyRules(b, step4, mGt1)
	b = b[:n]
	// Step 5a.
	if n = len(b); b[n-1] == 'e' && (mGt1(b[:n-1]) || (mEq1(b[:n-1]) && !oStar(b[:n-1]))) {
		b = b[:n-1]
	}
	// Step 5b.
	if n = len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		b = b[:n-1]
	}
	return b
}

type rule struct {
	suffix, out string
	cond        func([]byte) bool // nil: the step's condition
}

// applyRules applies the first rule whose suffix ends b (leaving a stem of
// at least one byte): its output replaces the suffix when its condition
// holds on the stem. Only the first matching suffix is considered. It
// returns b's new length (b's capacity holds any growth: outputs are never
// longer than the suffixes they replace by more than one byte, and callers
// pass slices of a larger buffer) and whether a rule was applied.
func applyRules(b []byte, rules []rule, cond func([]byte) bool) (int, bool) {
	n := len(b)
	for _, r := range rules {
		ls := len(r.suffix)
		if n <= ls || string(b[n-ls:]) != r.suffix {
			continue
		}
		c := r.cond
		if c == nil {
			c = cond
		}
		if c != nil && !c(b[:n-ls]) {
			return n, false
		}
		copy(b[n-ls:cap(b)], r.out)
		return n - ls + len(r.out), true
	}
	return n, false
}

// step1b removes "eed"→"ee" (m>0), "ed" and "ing" (stem has a vowel). ok
// reports the "ed"/"ing" removal that triggers step 1b's second part.
func step1b(b []byte) (int, bool) {
	n := len(b)
	switch {
	case n > 3 && string(b[n-3:]) == "eed":
		if mGt0(b[:n-3]) {
			return n - 1, false
		}
		return n, false
	case n > 2 && string(b[n-2:]) == "ed":
		if hasVowel(b[:n-2]) {
			return n - 2, true
		}
	case n > 3 && string(b[n-3:]) == "ing":
		if hasVowel(b[:n-3]) {
			return n - 3, true
		}
	}
	return n, false
}

var step1b2 = []rule{{"at", "ate", always}, {"bl", "ble", always}, {"iz", "ize", always}}

func always([]byte) bool { return true }

var step2 = []rule{
	{"ational", "ate", nil}, {"tional", "tion", nil},
	{"enci", "ence", nil}, {"anci", "ance", nil},
	{"izer", "ize", nil},
	{"logi", "log", nil},
	{"bli", "ble", nil}, {"alli", "al", nil}, {"entli", "ent", nil}, {"eli", "e", nil}, {"ousli", "ous", nil},
	{"ization", "ize", nil}, {"ation", "ate", nil}, {"ator", "ate", nil},
	{"alism", "al", nil}, {"iveness", "ive", nil}, {"fulness", "ful", nil}, {"ousness", "ous", nil},
	{"aliti", "al", nil}, {"iviti", "ive", nil}, {"biliti", "ble", nil},
}

var step3 = []rule{
	{"ical", "ic", nil}, {"ness", "", nil}, {"icate", "ic", nil}, {"iciti", "ic", nil},
	{"ful", "", nil}, {"ative", "", nil}, {"alize", "al", nil},
}

var step4 = []rule{
	{"al", "", nil}, {"ance", "", nil}, {"ence", "", nil}, {"er", "", nil}, {"ic", "", nil},
	{"able", "", nil}, {"ible", "", nil}, {"ant", "", nil}, {"ement", "", nil}, {"ment", "", nil}, {"ent", "", nil},
	{"ion", "", mGt1ST}, {"ou", "", nil}, {"ism", "", nil}, {"ate", "", nil}, {"iti", "", nil},
	{"ous", "", nil}, {"ive", "", nil}, {"ize", "", nil},
}

// isVowel: a, e, i, o, u, and y after a consonant.
func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips to the first vowel then past the next consonant, and
// returns the index after it (0: no vowel-consonant sequence).
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

func mGt0(s []byte) bool { return gobbleVC(s, false) != 0 }

func mGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) != 0
}

func mEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) == 0
}

func mGt1ST(s []byte) bool {
	return len(s) > 0 && (s[len(s)-1] == 's' || s[len(s)-1] == 't') && mGt1(s)
}

// oStar: the stem ends consonant-vowel-consonant, the last not w, x or y.
func oStar(s []byte) bool {
	n := len(s)
	if n == 0 || s[n-1] == 'w' || s[n-1] == 'x' || s[n-1] == 'y' {
		return false
	}
	mask, cons := 0, false
	for i := 0; i < n; i++ {
		cons = !isVowel(s[i], cons)
		mask <<= 1
		if cons {
			mask++
		}
	}
	return mask&7 == 5
}

// hasVowel is FTS5's (*v*): a vowel, where y counts after the first byte.
func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
