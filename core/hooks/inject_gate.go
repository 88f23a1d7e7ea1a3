package hooks

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/keyword"
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

// injectFloorsAlone are the similarities that make a memory about a prompt
// it shares no word with. Short notes of a coding project ("No global
// loggers: pass a *slog.Logger …") sit closer to unrelated questions ("How
// is the database sharded across regions?": 0.60) than LoCoMo's turns do;
// the built-in model's figure is above every such pair of the session
// benchmark's dev split (`cairn bench sessions`).
var injectFloorsAlone = map[string]float64{
	"use-lite-512": 0.65,
}

// InjectFloor is the similarity that, with a word of the prompt in
// common, makes a memory about a prompt: hooks.prompt_min_similarity when
// set (≥ 0), else the model's measured floor, else 1 (similarity never
// suffices with an unmeasured model).
func (hk *Hooks) InjectFloor() float64 {
	if f := hk.cfg.Hooks.PromptMinSimilarity; f >= 0 {
		return f
	}
	if f, ok := injectFloors[hk.embedModel]; ok {
		return f
	}
	return 1
}

// injectFloorAlone is the similarity that makes a memory about a prompt
// it shares no word with: hooks.prompt_min_similarity when set, else the
// model's measured floor for that, else 1.
func (hk *Hooks) injectFloorAlone() float64 {
	if f := hk.cfg.Hooks.PromptMinSimilarity; f >= 0 {
		return f
	}
	if f, ok := injectFloorsAlone[hk.embedModel]; ok {
		return f
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
	// stems are the terms' Porter stems, as the full-text index stems
	// them (its document frequencies are the stems').
	stems map[string]string
	// rare are the terms a handful of memories hold (rareDocs): what the
	// prompt names specifically ("gorm", "moment", "toFixed").
	rare []string
}

// rareDocs is how many memories may hold a term the prompt names
// specifically: 2, or 1% of the store when that is more.
func rareDocs(live int64) int {
	return max(2, int(live/100))
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
func (hk *Hooks) promptWeightsOf(ctx context.Context, prompt string, terms []string) (*promptWeights, error) {
	total, deleted, err := storage.MemoryCounts(ctx, hk.db.Reader())
	if err != nil {
		return nil, err
	}
	live := total - deleted
	df, err := hk.mem.TermDocCounts(ctx, terms)
	if err != nil {
		return nil, err
	}
	w := &promptWeights{terms: terms, weight: make(map[string]float64, len(terms)), stems: make(map[string]string, len(terms))}
	names := namesIn(prompt)
	for _, t := range terms {
		w.stems[t] = porterStem(t)
		if n := df[t]; n > 0 && n <= rareDocs(live) && utf8.RuneCountInString(t) >= 3 {
			w.rare = append(w.rare, t)
		}
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
			x *= hk.cfg.Hooks.PromptUnknownWeight
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
	// The index's stems too: "styled" and "Styling" are one word to it.
	stems := map[string]bool{}
	keyword.Tokenize(content, func(tok []byte) { stems[string(tok)] = true })
	got := 0.0
	for _, t := range w.terms {
		if have[t] || have[stem(t)] || stems[w.stems[t]] || anyOf(text.IrregularVerbs[t], have) {
			got += w.weight[t]
		}
	}
	return got / w.total
}

// namedByRule reports whether content is a rule or a decision whose
// object is a term the prompt names specifically: "We decided to use sqlc
// instead of gorm" for "Add gorm models for the payments table", "Not
// moment: it's deprecated" for "Can I add moment for this date picker?".
// The prompt builds on the memory or contradicts it, whatever else it
// asks about.
func (w *promptWeights) namedByRule(content string) bool {
	if len(w.rare) == 0 || w.stranger {
		return false
	}
	subjects := extract.RuleSubjects(content)
	if len(subjects) == 0 {
		return false
	}
	named := make(map[string]bool, len(subjects))
	for _, s := range subjects {
		named[porterStem(s)] = true
	}
	for _, t := range w.rare {
		if named[w.stems[t]] {
			return true
		}
	}
	return false
}

// porterStem is w's stem as the full-text index stems it.
func porterStem(w string) string {
	var out string
	keyword.Tokenize(w, func(tok []byte) {
		if out == "" {
			out = string(tok)
		}
	})
	return out
}

// shareWithContext is share counting a word only the memory's session
// context holds at storage.ContextWeight, as recall's coverage does: an
// answer is about the question it answered.
func (w *promptWeights) shareWithContext(content, context string) float64 {
	own := w.share(content)
	if context == "" || own >= 1 {
		return own
	}
	return core.BlendContext(own, w.share(content+"\n"+context))
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
