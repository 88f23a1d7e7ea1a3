package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

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
	return extract.Decision{Action: extract.ActionAdd, Confidence: conf, Reason: "no existing memory has the same content (heuristic provider)"}
}

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
