package core

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Speaker attribution. A memory written as a turn of a conversation
// ("Melanie: I signed up for a pottery class") carries who said it in its
// leading label. A question about a person ("What does Melanie do to
// destress?") is answered by what that person said far more often than by
// what others said to them: on LoCoMo, 95% of the evidence turns of a
// question naming one speaker are that speaker's, while 70% of the top
// three were before this factor. The label alone is not relevance (every
// turn of a speaker has it, so it is not an entity and it adds nothing to
// coverage or to the prompt gate); it only orders: when the query names
// the speaker of some candidates, the turns of the other speakers are
// multiplied by 1 − search.speaker_weight.

// maxLabelBytes bounds a speaker label ("Dr Jane Smith:").
const maxLabelBytes = 40

// speakerLabel returns the lower-cased first word of content's leading
// speaker label, or "": one to three capitalised words of letters (and
// inner apostrophes, dots or hyphens) followed by ": ".
func speakerLabel(content string) string {
	i := strings.Index(content, ": ")
	if i <= 0 || i > maxLabelBytes {
		return ""
	}
	words := strings.Fields(content[:i])
	if len(words) == 0 || len(words) > 3 || strings.TrimSpace(content[:i]) != content[:i] {
		return ""
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return ""
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && r != '\'' && r != '.' && r != '-' {
				return ""
			}
		}
	}
	first := strings.ToLower(strings.TrimRight(words[0], ".'-"))
	if utf8.RuneCountInString(first) < 2 {
		return ""
	}
	return first
}

// speakerFactors returns the multiplier of each candidate whose speaker
// the query does not name, when it names the speaker of at least one
// candidate; nil when the factor does not apply.
//
// A question can attribute a statement to the wrong person ("What did
// Caroline realize after her charity race?" when Melanie ran it), and then
// the other person's turn is the answer. So a turn is demoted only when
// some turn of a named speaker holds at least its share of the question's
// other words (the words that are no speaker's name) less margin: what a
// named person said competes, and their own words win the tie; a turn
// that holds the question's words far better than anything the named
// person said keeps its score. margin 1 demotes always.
func speakerFactors(qterms []string, cands map[string]*candidate, weight, margin float64) map[string]float64 {
	if weight <= 0 || len(qterms) == 0 {
		return nil
	}
	named := make(map[string]bool, len(qterms))
	for _, t := range qterms {
		named[t] = true
	}
	labels := make(map[string]string, len(cands))
	speakers := map[string]bool{}
	hit := false
	for id, c := range cands {
		if c.mem == nil {
			continue
		}
		if l := speakerLabel(c.mem.Content); l != "" {
			labels[id] = l
			speakers[l] = true
			hit = hit || named[l]
		}
	}
	if !hit {
		return nil
	}
	var share map[string]float64
	best := 0.0 // the best share of a named speaker's turn
	if margin < 1 {
		var rest []string
		for _, t := range qterms {
			if !speakers[t] {
				rest = append(rest, t)
			}
		}
		share = make(map[string]float64, len(labels))
		for id, l := range labels {
			share[id] = TermCoverage(rest, cands[id].mem.Content)
			if named[l] {
				best = max(best, share[id])
			}
		}
	}
	out := make(map[string]float64, len(labels))
	for id, l := range labels {
		if named[l] || (share != nil && share[id]-margin > best+1e-9) {
			continue
		}
		out[id] = 1 - weight
	}
	return out
}
