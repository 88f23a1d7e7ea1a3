package text

import (
	"strings"
	"unicode"
)

// Limits of the FTS query sanitizer.
const (
	maxQueryBytes = 8 << 10 // only the first 8 KiB of a query is read
	maxQueryTerms = 32      // at most this many distinct terms reach FTS5
	maxTermRunes  = 64      // longer "words" are cut (no real word is longer)
	minTermRunes  = 1
)

// Stopwords are dropped from natural-language queries when anything else
// remains, so "what does the user prefer for builds" searches for
// "user prefer builds".
var Stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren't as at
		be because been before being below between both but by can cannot could couldn't did didn't do does
		doesn't doing don't down during each few for from further had hadn't has hasn't have haven't having he
		her here hers herself him himself his how i if in into is isn't it it's its itself just let let's me
		more most mustn't my myself no nor not of off on once only or other ought our ours ourselves out over
		own same shan't she should shouldn't so some such than that that's the their theirs them themselves
		then there there's these they this those through to too under until up very was wasn't we were
		weren't what what's when when's where where's which while who who's whom why why's will with won't
		would wouldn't you your yours yourself yourselves s t d ll m re ve y`) {
		Stopwords[w] = true
	}
}

// QueryTerms splits free text into the distinct lower-cased terms FTS5 would
// see (runs of letters, digits and marks, as the unicode61 tokenizer reads
// them), dropping stopwords unless nothing else is left.
func QueryTerms(q string) []string {
	if len(q) > maxQueryBytes {
		q = q[:maxQueryBytes]
	}
	q = strings.ToValidUTF8(q, " ")
	var all, content []string
	seen := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) >= minTermRunes {
			if len(cur) > maxTermRunes {
				cur = cur[:maxTermRunes]
			}
			t := strings.ToLower(string(cur))
			if !seen[t] && len(all) < 4*maxQueryTerms {
				seen[t] = true
				all = append(all, t)
				if !Stopwords[t] {
					content = append(content, t)
				}
			}
		}
		cur = cur[:0]
	}
	for _, r := range q {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r) {
			cur = append(cur, r)
			continue
		}
		flush()
	}
	flush()
	terms := content
	if len(terms) == 0 {
		terms = all
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	return terms
}

// SanitizeFTSQuery turns any user text into an FTS5 MATCH expression that
// cannot be a syntax error: each term is a quoted string (terms hold only
// letters, digits and marks, so nothing needs escaping) and terms are joined
// with OR, so a memory matching some of the words still ranks. It returns ""
// when the text has no searchable term.
func SanitizeFTSQuery(q string) string {
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return ""
	}
	terms = expandVerbForms(terms)
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	return strings.Join(terms, " OR ")
}
