package core

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// What the prompt hook injects must be about the prompt, not merely the
// nearest memories: an agent reads every injected line as context. A hit
// is injected when it holds most of what the prompt names — the prompt's
// words weighted by how rare they are in the store (a name or a term used
// by a handful of memories outweighs "go" or "like"; a word no memory
// uses, such as another person's name, weighs most) — or when its meaning
// is closer than the embedding model ever puts unrelated text.

// injectFloors are the similarities above which the built-in model almost
// never places unrelated text: the 99.9th percentile of question-to-turn
// similarity across different LoCoMo conversations (`cairn bench floor`).
var injectFloors = map[string]float64{
	"use-lite-512": 0.478,
}

// InjectFloor is the similarity that alone makes a memory about a prompt:
// hooks.prompt_min_similarity when set (≥ 0), else the model's measured
// floor, else 1 (similarity alone never suffices with an unmeasured model).
func (s *Service) InjectFloor() float64 {
	if f := s.cfg.Hooks.PromptMinSimilarity; f >= 0 {
		return f
	}
	if s.vectors.Embedder() != nil {
		if f, ok := injectFloors[s.vectors.Embedder().Model()]; ok {
			return f
		}
	}
	return 1
}

// promptWeights are the prompt's terms with their rarity in the store.
type promptWeights struct {
	terms  []string
	weight map[string]float64
	total  float64
	// stranger: the prompt names someone or something no memory holds.
	stranger bool
}

// strangerWeight multiplies the weight of a name no memory holds: a prompt
// about someone the store never heard of is about someone else.
const strangerWeight = 3

// promptWeightsOf weighs terms by inverse document frequency over the
// store's full-text index: log(1 + N / (df + 1)). A word no memory holds
// weighs most when the prompt writes it as a name (capitalized inside a
// sentence): "Who is Caroline?" in a store that never heard of her is about
// someone else. Any other word no memory holds ("What could John do after
// his basketball career?" in a store where John never played) weighs
// hooks.prompt_unknown_weight of that: what the prompt asks about is not
// there, though a typo or a paraphrase should not veto a good match.
// Words naming a time ("16 November, 2023", "last week") do not count.
func (s *Service) promptWeightsOf(ctx context.Context, prompt string, terms []string) (*promptWeights, error) {
	live, _, err := s.MemoryTotals(ctx)
	if err != nil {
		return nil, err
	}
	df, err := storage.TermDocCounts(ctx, s.db.Reader(), terms)
	if err != nil {
		return nil, err
	}
	w := &promptWeights{terms: terms, weight: make(map[string]float64, len(terms))}
	names := namesIn(prompt)
	for _, t := range terms {
		// When something happened is not what it is about: the memory
		// stated at the time rarely holds the date the prompt asks with.
		if text.IsTemporalTerm(t) {
			continue
		}
		x := math.Log(1 + float64(live+1)/float64(df[t]+1))
		switch {
		case df[t] > 0:
		case names[t]:
			w.stranger, x = true, strangerWeight*x
		default:
			x *= s.cfg.Hooks.PromptUnknownWeight
			if x == 0 {
				continue
			}
		}
		w.weight[t] = x
		w.total += x
	}
	return w, nil
}

// share is the weighted share of the prompt's terms that content holds
// (a plural, a tense or another form of an irregular verb counts).
func (w *promptWeights) share(content string) float64 {
	if w.total == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range text.QueryTerms(content) {
		have[t], have[stem(t)] = true, true
	}
	got := 0.0
	for _, t := range w.terms {
		if have[t] || have[stem(t)] || anyOf(text.IrregularVerbs[t], have) {
			got += w.weight[t]
		}
	}
	return got / w.total
}

// shareWithContext is share counting a word only the memory's session
// context holds at storage.ContextWeight, as recall's coverage does: an
// answer is about the question it answered.
func (w *promptWeights) shareWithContext(content, context string) float64 {
	own := w.share(content)
	if context == "" || own >= 1 {
		return own
	}
	return withContext(own, w.share(content+"\n"+context))
}

// withContext blends a memory's own share of the query's words with the
// share it and its session context hold together, the context's words at
// storage.ContextWeight (as the index weighs them); never below its own.
func withContext(own, both float64) float64 {
	return max(own, (own+storage.ContextWeight*both)/(1+storage.ContextWeight))
}

// namesIn returns the lower-cased words of s written with a capital
// inside a sentence (not its first word).
func namesIn(s string) map[string]bool {
	out := map[string]bool{}
	start := true
	for _, w := range strings.Fields(s) {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if core != "" {
			if r, _ := utf8.DecodeRuneInString(core); !start && unicode.IsUpper(r) {
				for _, t := range text.QueryTerms(core) {
					out[t] = true
				}
			}
			start = false
		}
		if strings.ContainsAny(w[len(w)-1:], ".!?:") {
			start = true
		}
	}
	return out
}

func anyOf(forms []string, have map[string]bool) bool {
	for _, f := range forms {
		if have[f] {
			return true
		}
	}
	return false
}

// stem strips the commonest English inflections, so "painted", "paints"
// and "painting" meet "paint".
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if r, ok := strings.CutSuffix(w, suf); ok && len(r) >= 3 {
			return r
		}
	}
	return w
}
