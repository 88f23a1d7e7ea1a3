package entities

import "strings"

// maxQueryBytes: only the start of a long query is read for entity names.
const maxQueryBytes = 4 << 10

// QueryKeys returns the canonical names a query could be naming, for an
// exact lookup (never a substring match): the entities Link finds in it,
// and each run of one to three consecutive words (not across punctuation)
// that is not made only of common words. "What did Caroline's support
// group do?" gives "caroline", "support", "group", "caroline support",
// "support group", "caroline support group", …
func QueryKeys(query string) []string {
	if len(query) > maxQueryBytes {
		query = query[:maxQueryBytes]
		for len(query) > 0 && query[len(query)-1]&0xC0 == 0x80 {
			query = query[:len(query)-1] // do not cut a character in two
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if len(out) < maxQueryKeys && k != "" && !seen[k] && !Generic(k) {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, m := range Link(query) {
		add(m.Canonical)
	}
	gram := func(k string) {
		// A lower-case run names a curated tool only when the word is no
		// ordinary word too: "where did they go" names no language.
		if c, ok := curated[k]; ok && c.ambiguous {
			return
		}
		if !strings.ContainsRune(k, ' ') && stoplike(k) {
			return
		}
		add(k)
	}
	toks := tokenize(query)
	var b strings.Builder
	for i := range toks {
		b.Reset()
		for n := 0; n < queryNGram && i+n < len(toks); n++ {
			t := toks[i+n]
			if n > 0 {
				if t.brk {
					break
				}
				b.WriteByte(' ')
			}
			b.WriteString(t.lower)
			gram(b.String())
			if t.trail != "" {
				break // punctuation ends the run
			}
		}
	}
	return out
}
