package core

import (
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// BlendContext blends a memory's own share of the query's words with the
// share it and its session context hold together, the context's words at
// storage.ContextWeight (as the index weighs them); never below its own.
// Recall's coverage and the prompt hook's gate (core/hooks) both weigh a
// memory's session context so.
func BlendContext(own, both float64) float64 {
	return max(own, (own+storage.ContextWeight*both)/(1+storage.ContextWeight))
}

// quickCoverage is TermCoverage(qterms, content) without building the
// content's term set, for the content recall scores most: short text.
// TermCoverage looks each query term (or another form of an irregular
// verb) up in text.QueryTerms(content): the content's distinct lower-case
// words less stopwords (all of them when it has nothing else), the first
// 32 of them, among the first 128 distinct words of its first 8 KiB.
// Below those bounds, which quickCoverage checks by counting words (a
// count of words bounds the count of distinct ones), a term is in that
// set exactly when it is one of the content's words and is no stopword,
// or the content has no word but stopwords. Beyond them (or for invalid
// UTF-8, or a word over 64 characters, which QueryTerms cuts) ok is false
// and the caller takes the full path. Recall took about a fifth of its
// time building term sets for this question alone.
func quickCoverage(qterms []string, content string) (coverage float64, ok bool) {
	return quickWeightedCoverage(qterms, nil, content)
}

// quickWeightedCoverage is quickCoverage with each query term counted at
// its weight w[i] (nil: all alike): the weight of the terms content holds
// over the weight of all.
func quickWeightedCoverage(qterms []string, w []float64, content string) (coverage float64, ok bool) {
	if len(qterms) == 0 {
		return 0, true
	}
	if len(content) > quickCoverageBytes || !utf8.ValidString(content) {
		return 0, false
	}
	// The forms each query term is found by: itself and, for an
	// irregular verb, its other forms.
	var wantBuf [48]string
	var ownerBuf [48]int
	want, owner := wantBuf[:0], ownerBuf[:0]
	for j, t := range qterms {
		want, owner = append(want, t), append(owner, j)
		for _, f := range text.IrregularVerbs[t] {
			want, owner = append(want, f), append(owner, j)
		}
	}
	var seenBuf [48]bool
	seen := seenBuf[:0]
	for range want {
		seen = append(seen, false)
	}
	words, plain := 0, 0 // words, and words that are no stopword
	var buf [4 * quickMaxRunes]byte
	word := buf[:0]
	runes := 0
	end := func() bool {
		if runes == 0 {
			return true
		}
		words++
		if !text.Stopwords[string(word)] {
			plain++
		}
		for i, w := range want {
			if !seen[i] && w == string(word) {
				seen[i] = true
			}
		}
		word, runes = word[:0], 0
		return words <= quickMaxWords && plain <= quickMaxTerms
	}
	for _, r := range content {
		if r < utf8.RuneSelf {
			switch {
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
			default:
				if !end() {
					return 0, false
				}
				continue
			}
			word = append(word, byte(r))
		} else if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r) {
			word = utf8.AppendRune(word, unicode.ToLower(r))
		} else {
			if !end() {
				return 0, false
			}
			continue
		}
		if runes++; runes > quickMaxRunes {
			return 0, false
		}
	}
	if !end() || (plain == 0 && words > quickMaxTerms) {
		return 0, false
	}
	var coveredBuf [32]bool
	covered := coveredBuf[:0]
	for range qterms {
		covered = append(covered, false)
	}
	for i, w := range want {
		if seen[i] && (plain == 0 || !text.Stopwords[w]) {
			covered[owner[i]] = true
		}
	}
	return heldShare(covered, w), true
}

// heldShare is the share of the terms held, each at its weight w[i] (nil:
// all alike); 0 when the weights add up to nothing.
func heldShare(held []bool, w []float64) float64 {
	n, total := 0.0, 0.0
	for i, h := range held {
		x := 1.0
		if w != nil {
			x = w[i]
		}
		total += x
		if h {
			n += x
		}
	}
	if total <= 0 {
		return 0
	}
	return n / total
}

// The bounds of text.QueryTerms below which quickCoverage answers: the
// bytes it reads, the distinct words it keeps (all, and stopwords left
// out), and the longest word it keeps whole.
const (
	quickCoverageBytes = 8 << 10
	quickMaxWords      = 128
	quickMaxTerms      = 32
	quickMaxRunes      = 64
)
