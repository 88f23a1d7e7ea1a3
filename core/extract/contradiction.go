package extract

import (
	"encoding/json"
	"strings"

	"github.com/cairnmem/cairn/core/text"
)

// The semantic contradiction check asks the model whether an UPDATE or
// DELETE proposal's fact contradicts the memory it targets. It is advisory
// (a positive answer flags the proposal for review; it never writes or
// blocks by itself beyond what review-needed means), time-bounded, and runs
// only where the syntactic detector has nothing to say but the two texts
// are plainly about the same thing (at least 3 shared content tokens).

const contradictionInstructions = `You check two statements from a software project's memory for contradiction.
They contradict when both cannot be true at the same time (for example one says a service uses PostgreSQL and the other says it uses MySQL; one says a flag is on and the other says it is off). A statement that adds detail, narrows, or updates a number with a later value does not contradict unless both claim to be current.
Answer with one JSON object: {"contradicts": true|false, "confidence": 0.0-1.0, "reason": "one short sentence"}.
`

// ContradictionBeginMarker opens the JSON input block of a contradiction
// prompt (providers that answer prompts themselves read it).
const ContradictionBeginMarker = "BEGIN CONTRADICTION INPUT"

// ContradictionPrompt builds the semantic contradiction prompt for a new
// fact and the existing memory it would change.
func ContradictionPrompt(fact, existing string) string {
	in, _ := json.Marshal(map[string]string{"new": promptLine(fact, FactMaxChars), "existing": promptLine(existing, decisionCandidateMaxChars)})
	var b strings.Builder
	b.WriteString(contradictionInstructions)
	b.WriteString("\nNew statement: ")
	b.WriteString(promptLine(fact, FactMaxChars))
	b.WriteString("\nExisting memory: ")
	b.WriteString(promptLine(existing, decisionCandidateMaxChars))
	b.WriteString("\n\n")
	b.WriteString(ContradictionBeginMarker)
	b.WriteByte('\n')
	b.Write(in)
	b.WriteString("\nEND CONTRADICTION INPUT\n\nReturn only the JSON object.")
	return b.String()
}

// SemanticVerdict is a model's contradiction answer.
type SemanticVerdict struct {
	Contradicts bool    `json:"contradicts"`
	Confidence  float64 `json:"confidence"`
	Reason      string  `json:"reason"`
}

// ParseContradiction reads a model's contradiction answer with the same
// think-block, fence and prose handling as ParseExtraction. ok is false
// (with warnings saying why) when the answer is unusable; it never panics.
func ParseContradiction(raw string) (v SemanticVerdict, ok bool, warnings []string) {
	var w extractWarnings
	obj, found := findJSONObject(raw, []string{"contradicts"}, &w)
	if !found {
		w.add("contradiction check: no JSON object in the answer")
		return v, false, w.list
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil {
		w.add("contradiction check: %v", err)
		return v, false, w.list
	}
	c, has := lookupJSONKey(top, "contradicts")
	if !has {
		w.add("contradiction check: no \"contradicts\" field")
		return v, false, w.list
	}
	switch strings.ToLower(strings.Trim(strings.TrimSpace(string(c)), `"`)) {
	case "true", "yes":
		v.Contradicts = true
	case "false", "no":
	default:
		w.add("contradiction check: \"contradicts\" is %s, not a boolean", ClipForWarning(string(c), 40))
		return v, false, w.list
	}
	if cr, has := lookupJSONKey(top, "confidence"); has {
		v.Confidence = parseConfidence(cr, "contradiction", &w)
	} else {
		v.Confidence = DefaultFactConfidence
	}
	if rr, has := lookupJSONKey(top, "reason"); has {
		var reason string
		if json.Unmarshal(rr, &reason) == nil {
			v.Reason = truncateToRunes(text.CollapseSpace(strings.ToValidUTF8(reason, "\uFFFD")), 300)
		}
	}
	return v, true, w.list
}

// SharedContentTokens counts the non-stopword, non-polarity tokens a and b
// share.
func SharedContentTokens(a, b string) int {
	ta, tb := contradictionTokens(a), contradictionTokens(b)
	n := 0
	for t := range ta {
		if tb[t] && !isPolarityToken(t) && !text.Stopwords[t] {
			n++
		}
	}
	return n
}
