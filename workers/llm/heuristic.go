package llm

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/text"
)

// Heuristic is the provider that needs no model. The pipeline talks to
// every provider through prompts, so Heuristic answers cairn's own prompts:
//
//   - for a core.ExtractionPrompt it finds the memory between the prompt's
//     markers (core.ExtractionPromptInput) and returns the JSON of
//     core.HeuristicExtract, which core.ParseExtraction reads like any
//     model's answer;
//   - for a core.DecisionPrompt it reads the fact and candidates from the
//     prompt's JSON line (core.DecisionPromptInput) and answers "none" for a
//     candidate with the same normalized content (or nearly the same
//     terms), else "add". It never proposes update or delete: it cannot
//     judge them.
//
// Any other prompt is an error. Callers that know they have a Heuristic can
// call Extract directly and skip the JSON round trip.
type Heuristic struct{}

// NewHeuristic returns the heuristic provider.
func NewHeuristic() *Heuristic { return &Heuristic{} }

// Name returns "heuristic".
func (*Heuristic) Name() string { return ProviderHeuristic }

// LexicalDecisions is true: its decisions compare terms, so keyword
// candidates are all it needs (extract.LexicalDecider).
func (*Heuristic) LexicalDecisions() bool { return true }

// Extract runs core.HeuristicExtract.
func (*Heuristic) Extract(content string) extract.ExtractionResult {
	return extract.HeuristicExtract(content)
}

// Generate answers an extraction or decision prompt; see Heuristic.
func (h *Heuristic) Generate(ctx context.Context, prompt string, _ extract.GenerateOptions) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", &Error{Provider: ProviderHeuristic, URL: "builtin", Msg: "call abandoned", Err: err}
	}
	var v any
	if text, ok := extract.ExtractionPromptInput(prompt); ok {
		v = extract.HeuristicExtract(text)
	} else if fact, cands, ok := extract.DecisionPromptInput(prompt); ok {
		v = heuristicDecide(fact, cands)
	} else {
		return "", &Error{Provider: ProviderHeuristic, URL: "builtin", Msg: "it answers only cairn's extraction and decision prompts",
			Err: errors.New("prompt has no BEGIN MEMORY or BEGIN INPUT block")}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", &Error{Provider: ProviderHeuristic, URL: "builtin", Msg: "encoding the answer", Err: err}
	}
	return string(b), nil
}

func heuristicDecide(fact extract.Fact, cands []extract.Candidate) extract.Decision {
	fn := text.NormalizeContent(fact.Content)
	ft := termSet(fact.Content)
	for _, c := range cands {
		if text.NormalizeContent(c.Content).Hash == fn.Hash {
			return extract.Decision{Action: extract.ActionNone, TargetID: c.ID, Confidence: 0.95, Reason: "an existing memory has the same content"}
		}
		if jaccard(ft, termSet(c.Content)) >= 0.9 {
			return extract.Decision{Action: extract.ActionNone, TargetID: c.ID, Confidence: 0.8, Reason: "an existing memory has nearly the same terms"}
		}
	}
	conf := fact.Confidence
	if conf <= 0 || conf > 1 {
		conf = extract.DefaultFactConfidence
	}
	// A change ("we use Atlas for migrations instead of goose", "moving the
	// tests from Jest to Vitest", "we no longer use Redis") updates the
	// memory that still holds the old thing.
	if r, ok := extract.ReadReplacement(fact.Content); ok {
		for _, c := range cands {
			if !c.SameSession && replaces(r, ft, c.Content) {
				return extract.Decision{Action: extract.ActionUpdate, TargetID: c.ID, Confidence: conf,
					Reason: "the fact reports a change from what this memory holds (heuristic provider)"}
			}
		}
	}
	return extract.Decision{Action: extract.ActionAdd, Confidence: conf, Reason: "no existing memory has the same content (heuristic provider)"}
}

// replaces reports whether a change r (read from a fact with terms ft)
// replaces what memory content holds: the memory names the old thing, not
// as something already left ("not goose", "instead of goose", its own
// change away from it), and not the new thing. A change that names no old
// thing ("we switched the unit tests to Vitest") replaces a memory of
// what is used for the same purpose: one sharing two of the fact's other
// words, that states a use or a decision.
func replaces(r extract.Replacement, ft map[string]bool, content string) bool {
	ct := termSet(content)
	newHead := ""
	for _, w := range r.New {
		if w = stemmed(w); contentWord(w) && !slices.Contains(r.Old, w) {
			newHead = w
			break
		}
	}
	if newHead != "" && ct[newHead] {
		return false // it already holds the new thing
	}
	if own, ok := extract.ReadReplacement(content); ok && overlaps(own.Old, r.Old) {
		return false // it is itself a change away from the old thing
	}
	if len(r.Old) == 0 {
		shared := 0
		for t := range ft {
			if ct[t] && t != newHead {
				shared++
			}
		}
		return shared >= 2 && extract.IsRule(content)
	}
	for _, w := range r.Old {
		w = stemmed(w)
		if contentWord(w) && ct[w] && !leftBehind(content, w) {
			return true
		}
	}
	return false
}

// leftBehind reports whether content names w only as something not used:
// "no w", "not w", "never w", "instead of w", "rather than w", "no longer
// … w", "without w".
func leftBehind(content, w string) bool {
	for _, s := range extract.RuleSubjects(content) {
		if stemmed(s) == w && negatedIn(content, s) {
			return true
		}
	}
	return false
}

var negation = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:no|not|never|instead of|rather than|no longer|without|avoid|don't|do not)\b`)
})

// negatedIn reports whether word follows a negation within three words in
// content.
func negatedIn(content, word string) bool {
	low := strings.ToLower(content)
	for _, loc := range negation().FindAllStringIndex(low, -1) {
		rest := strings.Fields(low[loc[1]:])
		for i := 0; i < len(rest) && i < 4; i++ {
			if strings.Contains(rest[i], word) {
				return true
			}
		}
	}
	return false
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if contentWord(x) && slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// contentWord: three letters or more, not a stopword.
func contentWord(w string) bool { return len(w) >= 3 && !text.Stopwords[w] }

// stemmed is w lower-cased with a plural ending taken off, as termSet
// keeps words.
func stemmed(w string) string { return strings.ToLower(w) }

func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range text.QueryTerms(strings.ToLower(s)) {
		m[t] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
