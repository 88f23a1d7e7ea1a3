package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/text"
)

// This file is the model-facing half of the pipeline
// (docs/design/pipeline.md, "Extraction" and "Decisions"): the LLM
// interface the providers in workers/llm implement, the prompts, the
// strict, partial-failure-safe parsers of what models answer, the built-in
// heuristic extractor that needs no model, and the syntactic contradiction
// detector. Everything here is pure: no I/O, no clocks.

// LLM generates text for a prompt. Implementations live in workers/llm
// (ollama, openai-compatible servers, anthropic, the claude CLI and the
// built-in heuristic); core only calls them, never inside a write
// transaction.
type LLM interface {
	// Generate returns the model's answer to prompt. It honours ctx and
	// opts.Timeout, and its errors name the provider and where it was
	// called.
	Generate(ctx context.Context, prompt string, opts GenerateOptions) (string, error)
	// Name identifies the provider and model, e.g. "ollama/llama3.2:3b";
	// it is recorded with every extraction.
	Name() string
}

// LexicalDecider is an LLM whose decisions compare words only (the built-in
// heuristic provider): the pipeline gives it keyword candidates and spares
// the embedding of every fact.
type LexicalDecider interface {
	LexicalDecisions() bool
}

// GenerateOptions tune one Generate call. Zero values mean the provider's
// configured defaults.
type GenerateOptions struct {
	MaxTokens int           // answer length limit in tokens
	JSON      bool          // ask for a JSON object where the provider supports it
	Timeout   time.Duration // limit for this call, on top of ctx
}

// Extraction limits, as Signet's code has them (docs/design/pipeline.md,
// "Extraction").
const (
	ExtractMinInputChars  = 20     // shorter input gives no facts
	ExtractMaxInputChars  = 12_000 // longer input is truncated before the prompt is built
	ExtractMaxFacts       = 20
	ExtractMaxEntities    = 15
	FactMinChars          = 20
	FactMaxChars          = 2000
	DefaultFactConfidence = 0.5

	// parseMaxBytes caps the work the parsers do: only the first MiB of a
	// model's answer is looked at.
	parseMaxBytes = 1 << 20
	// parseMaxCandidates caps how many '{' starts are tried.
	parseMaxCandidates = 64
	// parseMaxDepth caps JSON nesting the scanner follows.
	parseMaxDepth = 64
	// entityMaxChars caps entity names and labels.
	entityMaxChars = 200
	// truncatedMarker ends input cut at ExtractMaxInputChars.
	truncatedMarker = "[truncated]"
)

// FactTypes are the types an extracted fact may have; anything else becomes
// "fact" with a warning.
var FactTypes = []string{"fact", "preference", "decision", "procedural", "semantic", "rule", "learning", "issue"}

// Fact is one atomic, reusable statement extracted from a memory.
type Fact struct {
	Content    string  `json:"content"`
	Type       string  `json:"type"`
	Confidence float64 `json:"confidence"`
}

// Entity is one relation triple: Source -Relationship-> Target.
type Entity struct {
	Source       string  `json:"source"`
	SourceType   string  `json:"source_type,omitempty"`
	Relationship string  `json:"relationship"`
	Target       string  `json:"target"`
	TargetType   string  `json:"target_type,omitempty"`
	Confidence   float64 `json:"confidence"`
}

// Mention is an entity named in a memory without a relation (file paths,
// URLs, capitalised names). Only the heuristic extractor produces them; the
// graph stage may record them as entity mentions.
type Mention struct {
	Name string `json:"name"`
	Type string `json:"type"` // file, url, name
}

// ExtractionResult is what extraction produced for one memory.
type ExtractionResult struct {
	Facts    []Fact    `json:"facts"`
	Entities []Entity  `json:"entities"`
	Mentions []Mention `json:"mentions,omitempty"`
}

// ExtractionInput prepares a memory for extraction: whitespace collapsed
// within each line, blank lines dropped (line breaks stay: they separate a
// transcript's messages and a message's code from its prose), cut at
// ExtractMaxInputChars with a " [truncated]" marker. tooShort reports
// input under ExtractMinInputChars, which yields no facts and needs no model
// call.
func ExtractionInput(content string) (body string, tooShort bool) {
	body = text.CollapseSpaceLines(strings.ToValidUTF8(content, "\uFFFD"))
	n := utf8.RuneCountInString(body)
	if n < ExtractMinInputChars {
		return body, true
	}
	if n > ExtractMaxInputChars {
		body = truncateToRunes(body, ExtractMaxInputChars) + " " + truncatedMarker
	}
	return body, false
}

// Markers around the input inside prompts. The heuristic provider finds its
// input between them, so they are part of the prompt contract.
const (
	ExtractionBeginMarker = "--- BEGIN MEMORY ---"
	ExtractionEndMarker   = "--- END MEMORY ---"
	DecisionBeginMarker   = "--- BEGIN INPUT (JSON) ---"
	DecisionEndMarker     = "--- END INPUT ---"
)

const extractionInstructions = `You extract durable knowledge from a memory written by or about a user of AI coding agents.

Return a JSON object with exactly two arrays:
{
  "facts": [
    {"content": "...", "type": "fact|preference|decision|procedural|semantic|rule|learning|issue", "confidence": 0.0-1.0}
  ],
  "entities": [
    {"source": "...", "source_type": "person|project|system|tool|concept|skill|task|unknown", "relationship": "...", "target": "...", "target_type": "...", "confidence": 0.0-1.0}
  ]
}

Rules:
- Each fact is one atomic, self-contained statement that still makes sense on its own later (20 to 2000 characters). Name the subject instead of "it" or "this".
- Use at most 20 facts and 15 entities. Fewer is better than vague.
- type: preference (what someone likes or wants), decision (a choice that was made, with its rationale), procedural (how to do something), rule (always/never/must), learning (something discovered), issue (a bug or problem), semantic (a definition or concept), fact (anything else).
- confidence: how sure the memory is about the fact; lower it for hedged or speculative statements.
- Entities are relationships between named things: source, relationship (a short verb phrase such as "uses", "depends_on", "replaced_by", "prefers"), target.
- Skip ephemeral details: greetings, what is happening right now, one-off commands, tool output, and anything only true for this session.
- Return only the JSON object. No explanations, no Markdown, no code fences.

Examples of atomic facts:
- Memory: "We use pnpm in this repo, never npm, and tests run with vitest."
  Facts: {"content": "The project uses pnpm as its package manager, not npm.", "type": "rule", "confidence": 0.9}
         {"content": "The project's tests run with vitest.", "type": "fact", "confidence": 0.9}
- Memory: "I think the flaky login test is caused by a race in the session cache."
  Fact:  {"content": "The flaky login test may be caused by a race condition in the session cache.", "type": "issue", "confidence": 0.5}

Example of a decision with its rationale:
- Memory: "Switched the job queue from Redis to SQLite because we want a single-binary deploy with no extra services."
  Fact:   {"content": "The job queue was moved from Redis to SQLite so that the service deploys as a single binary with no extra services.", "type": "decision", "confidence": 0.9}
  Entity: {"source": "job queue", "source_type": "system", "relationship": "uses", "target": "SQLite", "target_type": "tool", "confidence": 0.9}
`

// ExtractionPrompt builds the extraction prompt for a memory.
// The memory is passed through ExtractionInput (whitespace collapsed, at
// most 12,000 characters plus a "[truncated]" marker).
func ExtractionPrompt(content string) string {
	text, _ := ExtractionInput(content)
	var b strings.Builder
	b.Grow(len(extractionInstructions) + len(text) + 200)
	b.WriteString(extractionInstructions)
	b.WriteString("\nMemory to extract from:\n")
	b.WriteString(ExtractionBeginMarker)
	b.WriteByte('\n')
	b.WriteString(text)
	b.WriteByte('\n')
	b.WriteString(ExtractionEndMarker)
	b.WriteString("\n\nReturn only the JSON object.")
	return b.String()
}

// ExtractionPromptInput returns the memory text an ExtractionPrompt was
// built from, and false when prompt is not one.
func ExtractionPromptInput(prompt string) (string, bool) {
	i := strings.Index(prompt, "\n"+ExtractionBeginMarker+"\n")
	j := strings.LastIndex(prompt, "\n"+ExtractionEndMarker)
	if i < 0 || j < 0 {
		return "", false
	}
	i += len(ExtractionBeginMarker) + 2
	if j < i {
		return "", false
	}
	return prompt[i:j], true
}

// ParseExtraction reads a model's extraction answer. It never fails and
// never panics: whatever valid facts and entities it finds are returned,
// and every repair or drop is explained in the warnings.
//
// Steps: only the first MiB is read; <think> blocks are stripped (also an
// unclosed one, and everything before an orphan </think>); Markdown fences
// are removed; the first balanced JSON object (braces inside strings are
// ignored) that has "facts" or "entities" is taken, else the first that
// parses; trailing commas are removed; an object cut off mid-way is
// salvaged up to its last complete item. Then: at most 20 facts of 20–2000
// characters (shorter dropped, longer truncated), types coerced to
// FactTypes (else "fact"), confidence clamped to 0..1 (missing → 0.5,
// numeric strings and percentages accepted), at most 15 entities, each with
// a non-empty source, relationship and target.
func ParseExtraction(raw string) (ExtractionResult, []string) {
	res := ExtractionResult{Facts: []Fact{}, Entities: []Entity{}}
	var w extractWarnings
	obj, ok := findJSONObject(raw, []string{"facts", "entities"}, &w)
	if !ok {
		return res, w.list
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil {
		w.add("the answer's JSON object could not be read: %v", err)
		return res, w.list
	}
	facts, hasFacts := lookupJSONKey(top, "facts")
	ents, hasEnts := lookupJSONKey(top, "entities")
	if !hasFacts && !hasEnts {
		w.add("the JSON object has neither \"facts\" nor \"entities\"")
		return res, w.list
	}
	if hasFacts {
		res.Facts = parseFacts(facts, &w)
	} else {
		w.add("no \"facts\" array in the answer")
	}
	if hasEnts {
		res.Entities = parseEntities(ents, &w)
	}
	// Bare mentions (the heuristic extractor's file paths, URLs and names)
	// are optional; malformed ones are dropped quietly.
	if ms, ok := lookupJSONKey(top, "mentions"); ok {
		var mentions []Mention
		if json.Unmarshal(ms, &mentions) == nil {
			for _, m := range mentions {
				if m.Name = strings.TrimSpace(m.Name); m.Name != "" && len(res.Mentions) < 2*ExtractMaxEntities {
					res.Mentions = append(res.Mentions, m)
				}
			}
		}
	}
	return res, w.list
}

func parseFacts(raw json.RawMessage, w *extractWarnings) []Fact {
	out := []Fact{}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		if !isNullJSON(raw) {
			w.add("\"facts\" is not an array; no facts kept")
		}
		return out
	}
	seen := map[string]bool{}
	over := 0
	for i, item := range items {
		if len(out) >= ExtractMaxFacts {
			over = len(items) - i
			break
		}
		n := i + 1
		var f struct {
			Content    json.RawMessage `json:"content"`
			Type       json.RawMessage `json:"type"`
			Confidence json.RawMessage `json:"confidence"`
		}
		var content string
		if json.Unmarshal(item, &content) == nil {
			// A bare string: the content, with default type and confidence.
		} else if err := json.Unmarshal(item, &f); err != nil {
			w.add("fact %d dropped: not an object", n)
			continue
		} else if json.Unmarshal(f.Content, &content) != nil {
			w.add("fact %d dropped: no \"content\" string", n)
			continue
		}
		content = text.CollapseSpace(strings.ToValidUTF8(content, "\uFFFD"))
		chars := utf8.RuneCountInString(content)
		if chars < FactMinChars {
			w.add("fact %d dropped: %d characters, fewer than %d (%q)", n, chars, FactMinChars, content)
			continue
		}
		if chars > FactMaxChars {
			content = truncateToRunes(content, FactMaxChars)
			w.add("fact %d truncated from %d to %d characters", n, chars, FactMaxChars)
		}
		key := strings.ToLower(content)
		if seen[key] {
			w.add("fact %d dropped: repeats an earlier fact", n)
			continue
		}
		seen[key] = true
		typ := "fact"
		if len(f.Type) > 0 && !isNullJSON(f.Type) {
			var s string
			if json.Unmarshal(f.Type, &s) == nil && validFactType(s) {
				typ = strings.ToLower(strings.TrimSpace(s))
			} else {
				w.add("fact %d: type %s is not one of %s; using fact", n, ClipForWarning(string(f.Type), 40), strings.Join(FactTypes, ", "))
			}
		}
		conf := parseConfidence(f.Confidence, fmt.Sprintf("fact %d", n), w)
		out = append(out, Fact{Content: content, Type: typ, Confidence: conf})
	}
	if over > 0 {
		w.add("%d facts beyond the limit of %d dropped", over, ExtractMaxFacts)
	}
	return out
}

func parseEntities(raw json.RawMessage, w *extractWarnings) []Entity {
	out := []Entity{}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		if !isNullJSON(raw) {
			w.add("\"entities\" is not an array; no entities kept")
		}
		return out
	}
	over := 0
	for i, item := range items {
		if len(out) >= ExtractMaxEntities {
			over = len(items) - i
			break
		}
		n := i + 1
		var e struct {
			Source       json.RawMessage `json:"source"`
			SourceType   json.RawMessage `json:"source_type"`
			Relationship json.RawMessage `json:"relationship"`
			Relation     json.RawMessage `json:"relation"`
			Target       json.RawMessage `json:"target"`
			TargetType   json.RawMessage `json:"target_type"`
			Confidence   json.RawMessage `json:"confidence"`
		}
		if err := json.Unmarshal(item, &e); err != nil {
			w.add("entity %d dropped: not an object", n)
			continue
		}
		rel := e.Relationship
		if len(rel) == 0 {
			rel = e.Relation
		}
		src, tgt, label := jsonTextField(e.Source), jsonTextField(e.Target), jsonTextField(rel)
		var missing []string
		if src == "" {
			missing = append(missing, "source")
		}
		if label == "" {
			missing = append(missing, "relationship")
		}
		if tgt == "" {
			missing = append(missing, "target")
		}
		if len(missing) > 0 {
			w.add("entity %d dropped: no %s", n, strings.Join(missing, ", no "))
			continue
		}
		out = append(out, Entity{
			Source:       src,
			SourceType:   strings.ToLower(jsonTextField(e.SourceType)),
			Relationship: label,
			Target:       tgt,
			TargetType:   strings.ToLower(jsonTextField(e.TargetType)),
			Confidence:   parseConfidence(e.Confidence, fmt.Sprintf("entity %d", n), w),
		})
	}
	if over > 0 {
		w.add("%d entities beyond the limit of %d dropped", over, ExtractMaxEntities)
	}
	return out
}

// jsonTextField returns a JSON string value trimmed, whitespace-collapsed and
// capped at entityMaxChars, or "" for anything else.
func jsonTextField(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return truncateToRunes(text.CollapseSpace(strings.ToValidUTF8(s, "\uFFFD")), entityMaxChars)
}

func validFactType(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, t := range FactTypes {
		if s == t {
			return true
		}
	}
	return false
}

// parseConfidence reads a confidence: a number or a numeric string ("0.8",
// "80%"), clamped to 0..1; missing or unreadable → DefaultFactConfidence.
func parseConfidence(raw json.RawMessage, what string, w *extractWarnings) float64 {
	if len(raw) == 0 || isNullJSON(raw) {
		return DefaultFactConfidence
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			w.add("%s: confidence %s is not a number; using %g", what, ClipForWarning(string(raw), 40), DefaultFactConfidence)
			return DefaultFactConfidence
		}
		s = strings.TrimSpace(s)
		pct := strings.HasSuffix(s, "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			w.add("%s: confidence %s is not a number; using %g", what, ClipForWarning(string(raw), 40), DefaultFactConfidence)
			return DefaultFactConfidence
		}
		if pct {
			v /= 100
		}
		f = v
	}
	if f < 0 || f > 1 {
		c := min(max(f, 0), 1)
		w.add("%s: confidence %g clamped to %g", what, f, c)
		return c
	}
	return f
}

func isNullJSON(raw json.RawMessage) bool {
	return strings.TrimSpace(string(raw)) == "null"
}

// lookupJSONKey finds key in an object, exactly or else case-insensitively.
func lookupJSONKey(m map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(strings.TrimSpace(k), key) {
			return v, true
		}
	}
	return nil, false
}

// warnings collects parser warnings, at most 100 of them.
type extractWarnings struct {
	list    []string
	dropped int
}

func (w *extractWarnings) add(format string, args ...any) {
	if len(w.list) >= 100 {
		w.dropped++
		if w.dropped == 1 {
			w.list[len(w.list)-1] = "further warnings omitted"
		}
		return
	}
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

// clip shortens s to n runes for a warning, with an ellipsis.
func ClipForWarning(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return truncateToRunes(s, n) + "…"
}

func truncateToRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// --- finding the JSON object in a model's answer -------------------------

var fenceLine = lazyRegexp("(?m)^[ \t]*```[A-Za-z0-9_+.-]*[ \t]*$")

// cleanModelOutput strips think blocks and code fences.
func cleanModelOutput(raw string, w *extractWarnings) string {
	s := raw
	if len(s) > parseMaxBytes {
		w.add("answer is %d bytes; only the first %d were read", len(s), parseMaxBytes)
		s = s[:parseMaxBytes]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = stripThink(s, w)
	if strings.Contains(s, "```") {
		s = fenceLine().ReplaceAllString(s, "")
		// Fences on the same line as the JSON: "```json {...} ```".
		s = strings.ReplaceAll(s, "```json", " ")
		s = strings.ReplaceAll(s, "```JSON", " ")
		s = strings.ReplaceAll(s, "```", " ")
	}
	return s
}

// stripThink removes <think>…</think> blocks (any case). Text before an
// orphan </think> is reasoning whose opening tag was in the chat template,
// so it is dropped too; an unclosed <think> is reasoning that was cut off,
// and everything from it to the end is dropped.
func stripThink(s string, w *extractWarnings) string {
	const open, closeTag = "<think>", "</think>"
	lower := strings.ToLower(s)
	if !strings.Contains(lower, "think>") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, open)
		j := strings.Index(lower, closeTag)
		switch {
		case j >= 0 && (i < 0 || j < i):
			// Orphan close: drop everything before it.
			s, lower = s[j+len(closeTag):], lower[j+len(closeTag):]
			b.Reset()
			continue
		case i >= 0:
			b.WriteString(s[:i])
			rest := lower[i+len(open):]
			k := strings.Index(rest, closeTag)
			if k < 0 {
				w.add("unclosed <think> block dropped (the answer may have been cut off)")
				return b.String()
			}
			cut := i + len(open) + k + len(closeTag)
			s, lower = s[cut:], lower[cut:]
			continue
		}
		b.WriteString(s)
		return b.String()
	}
}

// findJSONObject returns the first balanced JSON object in a model's answer
// that has one of the preferred keys, else the first that parses at all,
// with trailing commas removed. A truncated object is salvaged up to its
// last complete item.
func findJSONObject(raw string, prefer []string, w *extractWarnings) ([]byte, bool) {
	if strings.TrimSpace(raw) == "" {
		w.add("empty answer")
		return nil, false
	}
	s := cleanModelOutput(raw, w)
	var first []byte
	tries := 0
	firstPartial := false
	for pos := 0; pos < len(s) && tries < parseMaxCandidates; {
		i := strings.IndexByte(s[pos:], '{')
		if i < 0 {
			break
		}
		start := pos + i
		tries++
		obj, complete := scanObject(s, start)
		if obj != nil {
			obj = removeTrailingCommas(obj)
			var m map[string]json.RawMessage
			if json.Unmarshal(obj, &m) == nil {
				for _, k := range prefer {
					if _, ok := lookupJSONKey(m, k); ok {
						if !complete {
							w.add("the JSON was cut off; kept the items that were complete")
						}
						return obj, true
					}
				}
				if first == nil {
					first, firstPartial = obj, !complete
				}
			}
		}
		pos = start + 1
	}
	if first != nil {
		if firstPartial {
			w.add("the JSON was cut off; kept the items that were complete")
		}
		return first, true
	}
	if strings.Contains(s, "{") {
		w.add("no valid JSON object in the answer")
	} else {
		w.add("no JSON object in the answer")
	}
	return nil, false
}

// scanObject scans the object starting at s[start] == '{'. It returns the
// object's bytes and true when it is balanced; when the text ends first, it
// returns a repaired prefix (cut after the last complete value, with the
// open brackets closed) and false; nil when nothing can be salvaged.
func scanObject(s string, start int) ([]byte, bool) {
	var stack []byte // expected closers
	inStr, esc := false, false
	lastGood := -1 // index after the last complete value inside a container
	var goodStack []byte
	for i := start; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if len(stack) > 0 && stack[len(stack)-1] == ']' {
					// A complete string element of an array.
					lastGood, goodStack = i+1, append(goodStack[:0], stack...)
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if len(stack) >= parseMaxDepth {
				return nil, false
			}
			if c == '{' {
				stack = append(stack, '}')
			} else {
				stack = append(stack, ']')
			}
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return nil, false // mismatched: not JSON
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return []byte(s[start : i+1]), true
			}
			lastGood, goodStack = i+1, append(goodStack[:0], stack...)
		}
	}
	if lastGood < 0 {
		return nil, false
	}
	b := []byte(strings.TrimRight(s[start:lastGood], " \t\r\n,"))
	for k := len(goodStack) - 1; k >= 0; k-- {
		b = append(b, goodStack[k])
	}
	return b, false
}

// removeTrailingCommas deletes commas followed (after whitespace) by a
// closing bracket, outside strings.
func removeTrailingCommas(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == ',' {
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// --- decisions -------------------------------------------------------------

// Candidate is an existing memory a fact is compared with.
type Candidate struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Content string `json:"content"`
	// SameSession: the candidate was learned from the session the fact
	// comes from. A session's facts are decided against what was known
	// before it: such a candidate may make a fact redundant (none), never
	// be updated or deleted by it.
	SameSession bool `json:"same_session,omitempty"`
}

// Decision actions.
const (
	ActionAdd    = "add"
	ActionUpdate = "update"
	ActionDelete = "delete"
	ActionNone   = "none"
)

// Decision is the model's proposal for one fact. The zero Decision (empty
// Action) means the answer was rejected; the warnings say why.
type Decision struct {
	Action     string  `json:"action"`
	TargetID   string  `json:"targetId,omitempty"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
}

// decisionCandidateMaxChars caps each candidate's content in the prompt.
const decisionCandidateMaxChars = 1000

const decisionInstructions = `You maintain a memory store for AI coding agents. A new fact was extracted; decide what to do with it given the most similar existing memories.

Actions:
- "add": no existing memory covers this fact; store it as new.
- "update": the fact refines or supersedes one existing memory; targetId names it.
- "delete": the fact shows one existing memory is wrong or obsolete; targetId names it.
- "none": the fact is already covered; do nothing.

Return only a JSON object:
{"action": "add|update|delete|none", "targetId": "<id of a candidate, required for update and delete>", "confidence": 0.0-1.0, "reason": "<one short sentence>"}

targetId must be one of the candidate ids listed. A candidate marked "same session" was learned from the same session as the fact: never update or delete it. A reason is required.
`

// DecisionPrompt builds the decision prompt for a fact and its candidates
// (docs/design/pipeline.md, "Decisions"): the fact and a numbered list of
// candidates with their ids, types and content, followed by the same data
// as one JSON line between markers (the heuristic provider reads it).
func DecisionPrompt(fact Fact, candidates []Candidate) string {
	var b strings.Builder
	b.WriteString(decisionInstructions)
	b.WriteString("\nNew fact (type ")
	b.WriteString(promptLine(fact.Type, 40))
	b.WriteString("): ")
	b.WriteString(promptLine(fact.Content, FactMaxChars))
	b.WriteString("\n\nCandidates:\n")
	cs := make([]Candidate, len(candidates))
	for i, c := range candidates {
		c = Candidate{ID: promptLine(c.ID, 200), Type: promptLine(c.Type, 40), Content: promptLine(c.Content, decisionCandidateMaxChars), SameSession: c.SameSession}
		cs[i] = c
		same := ""
		if c.SameSession {
			same = " (same session)"
		}
		fmt.Fprintf(&b, "%d. id=%s type=%s%s: %s\n", i+1, c.ID, c.Type, same, c.Content)
	}
	if len(cs) == 0 {
		b.WriteString("(none)\n")
	}
	in, _ := json.Marshal(decisionInput{Fact: Fact{Content: promptLine(fact.Content, FactMaxChars), Type: fact.Type, Confidence: fact.Confidence}, Candidates: cs})
	b.WriteString("\n")
	b.WriteString(DecisionBeginMarker)
	b.WriteByte('\n')
	b.Write(in)
	b.WriteByte('\n')
	b.WriteString(DecisionEndMarker)
	b.WriteString("\n\nReturn only the JSON object.")
	return b.String()
}

type decisionInput struct {
	Fact       Fact        `json:"fact"`
	Candidates []Candidate `json:"candidates"`
}

// DecisionPromptInput returns the fact and candidates a DecisionPrompt was
// built from, and false when prompt is not one.
func DecisionPromptInput(prompt string) (Fact, []Candidate, bool) {
	i := strings.Index(prompt, "\n"+DecisionBeginMarker+"\n")
	if i < 0 {
		return Fact{}, nil, false
	}
	rest := prompt[i+len(DecisionBeginMarker)+2:]
	line, _, _ := strings.Cut(rest, "\n")
	var in decisionInput
	if json.Unmarshal([]byte(line), &in) != nil {
		return Fact{}, nil, false
	}
	return in.Fact, in.Candidates, true
}

// promptLine collapses whitespace (so a memory cannot forge prompt lines) and
// caps s at n runes.
func promptLine(s string, n int) string {
	return truncateToRunes(text.CollapseSpace(strings.ToValidUTF8(s, "\uFFFD")), n)
}

// ParseDecision reads a model's decision answer (same think/fence/JSON
// handling as ParseExtraction). update and delete must name one of
// candidateIDs; a reason is required; confidence is clamped to 0..1
// (missing → 0.5). A rejected answer returns the zero Decision and
// warnings saying why; it never panics.
func ParseDecision(raw string, candidateIDs []string) (Decision, []string) {
	var w extractWarnings
	obj, ok := findJSONObject(raw, []string{"action"}, &w)
	if !ok {
		w.add("decision rejected: no JSON object")
		return Decision{}, w.list
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil {
		w.add("decision rejected: %v", err)
		return Decision{}, w.list
	}
	actRaw, _ := lookupJSONKey(top, "action")
	var act string
	if json.Unmarshal(actRaw, &act) != nil || strings.TrimSpace(act) == "" {
		w.add("decision rejected: no \"action\"")
		return Decision{}, w.list
	}
	act = strings.ToLower(strings.TrimSpace(act))
	switch act {
	case ActionAdd, ActionUpdate, ActionDelete, ActionNone:
	default:
		w.add("decision rejected: action %q is not add, update, delete or none", ClipForWarning(act, 40))
		return Decision{}, w.list
	}
	var target string
	for _, k := range []string{"targetId", "target_id", "target"} {
		if v, ok := lookupJSONKey(top, k); ok {
			target = jsonIDField(v)
			break
		}
	}
	reasonRaw, _ := lookupJSONKey(top, "reason")
	var reason string
	if json.Unmarshal(reasonRaw, &reason) == nil {
		reason = truncateToRunes(text.CollapseSpace(strings.ToValidUTF8(reason, "\uFFFD")), FactMaxChars)
	}
	if reason == "" {
		w.add("decision rejected: %s without a reason", act)
		return Decision{}, w.list
	}
	known := false
	for _, id := range candidateIDs {
		if id == target {
			known = true
			break
		}
	}
	switch act {
	case ActionUpdate, ActionDelete:
		if target == "" {
			w.add("decision rejected: %s without a targetId", act)
			return Decision{}, w.list
		}
		if !known {
			w.add("decision rejected: %s names %q, which is not one of the candidates (%s)", act, ClipForWarning(target, 80), ClipForWarning(strings.Join(candidateIDs, ", "), 200))
			return Decision{}, w.list
		}
	case ActionAdd:
		if target != "" {
			w.add("add named targetId %q; ignored", ClipForWarning(target, 80))
			target = ""
		}
	case ActionNone:
		if target != "" && !known {
			w.add("none named %q, which is not a candidate; ignored", ClipForWarning(target, 80))
			target = ""
		}
	}
	confRaw, _ := lookupJSONKey(top, "confidence")
	conf := parseConfidence(confRaw, "decision", &w)
	return Decision{Action: act, TargetID: target, Confidence: conf, Reason: reason}, w.list
}

// jsonIDField reads an id given as a string or a number.
func jsonIDField(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// --- heuristic extraction ---------------------------------------------------

// heuristicType types a heuristic fact: decision language makes a
// decision, then a stated preference, a rule (always, never, must, from now
// on), an issue (a cause or a fix), a procedure (a command in backticks),
// else text.InferType.
func heuristicType(s string) string {
	l := strings.ToLower(s)
	switch {
	case IsDecisionContent(s):
		return "decision"
	case strings.Contains(l, "prefer"):
		return "preference"
	case ruleWords().MatchString(s):
		return "rule"
	case issueWords().MatchString(s):
		return "issue"
	case strings.Contains(s, "`"):
		return "procedural"
	}
	return text.InferType(s)
}

var (
	ruleWords  = lazyRegexp(`(?i)\b(?:from now on|going forward|always|never|must|don't|do not|nobody|no one)\b`)
	issueWords = lazyRegexp(`(?i)\b(?:bug|because|caused by|root cause|the fix|fixed|broke|freez\w*|froze|crash\w*|loop|off by)\b`)
)

// IsDecisionContent reports whether text uses decision language (the
// regex battery, entities.IsDecision): such memories and facts are
// decisions, and their attributes are protected as constraints.
func IsDecisionContent(text string) bool {
	return entities.IsDecision(text)
}

var hedgePattern = lazyRegexp(`(?i)\b(?:maybe|might|perhaps|probably|possibly|i think|i guess|i believe|not sure|unsure|unclear|seems?|could be|may be|apparently|tbd)\b`)

// Confidence the heuristic extractor gives its facts.
const (
	heuristicConfidence         = 0.75
	heuristicDecisionConfidence = 0.85
	heuristicHedgedConfidence   = 0.45
)

var sentenceAbbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "Mr.", "Mrs.", "Ms.", "Dr.", "cf.", "No."}

// extractSentences splits text at line breaks and at . ! ? followed by
// whitespace, not after a few common sentenceAbbreviations.
func extractSentences(body string) []string {
	var out []string
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = text.CollapseSpace(line)
		line = strings.TrimLeft(line, "-*• \t")
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			if i+1 < len(line) && line[i+1] != ' ' {
				continue
			}
			abbr := false
			for _, a := range sentenceAbbreviations {
				if i+1 >= len(a) && strings.EqualFold(line[i+1-len(a):i+1], a) && (i+1 == len(a) || line[i-len(a)] == ' ') {
					abbr = true
					break
				}
			}
			if abbr {
				continue
			}
			if s := strings.TrimSpace(line[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// speakerLabel is a sentence's leading "Name:" or "**Name**:" (a
// transcript's or a chat log's speaker): the label is not part of the fact.
var speakerLabel = lazyRegexp(`^(?:\*\*)?[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}(?:\*\*)?:[ \t]+`)

// pleasantry is a sentence that is only a greeting, thanks or assent.
var pleasantry = lazyRegexp(`(?i)^(?:hi|hello|hey|hiya|thanks|thank you|thx|bye|goodbye|good (?:morning|afternoon|evening|night)|see you|ok(?:ay)?|sure|great|cool|awesome|nice|wow|yes|yeah|yep|no|nope|lol|haha)\b[^.!?]{0,40}[.!?]*$`)

// HeuristicExtract is the built-in extractor that needs no model. Its
// facts are the knowledge in content (heuristic.go): for a session
// transcript the user's statements and the agent's statements of causes,
// fixes, rules, decisions and status, without requests to the agent, its
// narration, questions, acknowledgements, code, verse and one-off
// progress, with a decision and its reason kept together; for other text
// its sentences less that chatter. At most 20 facts of 20–2000 characters,
// typed by heuristicType, with a confidence lowered for hedges. Also
// relation triples from "X uses Y", "X depends on Y", "switched/migrated
// from X to Y", "prefers X over Y", "chose X over Y"; and mentions of file
// paths, URLs and capitalised names. In a session transcript they are read
// from its facts only: the graph holds what a session teaches, not the
// names its chatter, code and tool output drop (and reading only the facts
// costs a fraction of reading the transcript).
func HeuristicExtract(content string) ExtractionResult {
	res := ExtractionResult{Facts: []Fact{}, Entities: []Entity{}}
	if _, tooShort := ExtractionInput(content); tooShort {
		return res
	}
	if utf8.RuneCountInString(content) > ExtractMaxInputChars {
		content = truncateToRunes(content, ExtractMaxInputChars)
	}
	content = strings.ToValidUTF8(content, "\uFFFD")
	seen := map[string]bool{}
	for _, s := range knowledgeStatements(content) {
		if len(res.Facts) >= ExtractMaxFacts {
			break
		}
		n := utf8.RuneCountInString(s)
		if n < FactMinChars {
			continue
		}
		if n > FactMaxChars {
			s = truncateToRunes(s, FactMaxChars)
		}
		key := strings.ToLower(s)
		if seen[key] {
			continue
		}
		seen[key] = true
		f := Fact{Content: s, Type: heuristicType(s), Confidence: heuristicConfidence}
		if f.Type == "decision" {
			f.Confidence = heuristicDecisionConfidence
		}
		if hedgePattern().MatchString(s) {
			f.Confidence = heuristicHedgedConfidence
		}
		res.Facts = append(res.Facts, f)
	}
	if isTranscriptText(content) {
		facts := make([]string, len(res.Facts))
		for i, f := range res.Facts {
			facts[i] = f.Content
		}
		content = strings.Join(facts, "\n")
	}
	res.Entities = heuristicRelations(content)
	res.Mentions = HeuristicMentions(content)
	return res
}

// isTranscriptText reports whether content is a normalized transcript: a
// line opens with "User:" or "Assistant:" (splitTranscript reads them).
func isTranscriptText(content string) bool {
	for _, label := range []string{"User:", "Assistant:", "Human:", "Claude:"} {
		if strings.HasPrefix(content, label) || strings.Contains(content, "\n"+label) {
			return true
		}
	}
	return false
}

// term is one entity name: a word (with . + # / - inside, for "Node.js",
// "C++", "go-sqlite3") optionally followed by up to two capitalised words.
const entityTerm = `([A-Za-z0-9_@][\w.+#/@-]*(?:\s+[A-Z0-9][\w.+#/-]*){0,2})`

// entitySource is entityTerm that may also start with up to two
// capitalised words ("The API server uses ...").
const entitySource = `((?:[A-Z0-9][\w.+#/-]*\s+){0,2}[A-Za-z0-9_@][\w.+#/@-]*(?:\s+[A-Z0-9][\w.+#/-]*){0,2})`

type relationPattern struct {
	re        *regexp.Regexp
	label     string
	fromFirst bool // source is group 1, target group 2
}

var relationPatterns = sync.OnceValue(func() []relationPattern {
	return []relationPattern{
		{regexp.MustCompile(`(?i:switched|migrated|moved|changed)(?:\s+\w+)?\s+from\s+` + entityTerm + `\s+to\s+` + entityTerm), "replaced_by", true},
		{regexp.MustCompile(entitySource + `\s+(?i:depends\s+on|relies\s+on|requires)\s+` + entityTerm), "depends_on", true},
		{regexp.MustCompile(entitySource + `\s+(?i:uses|is\s+using|is\s+built\s+with|is\s+written\s+in|runs\s+on)\s+` + entityTerm), "uses", true},
		{regexp.MustCompile(entitySource + `\s+(?i:prefers?)\s+` + entityTerm + `\s+(?i:over|to|instead\s+of)\s+` + entityTerm), "prefers", true},
		{regexp.MustCompile(`(?i:chose|chosen|picked|went\s+with|settled\s+on)\s+` + entityTerm + `\s+(?i:over|instead\s+of)\s+` + entityTerm), "chosen_over", true},
	}
})

var heuristicPronouns = map[string]string{"i": "user", "we": "user", "user": "user", "the user": "user", "you": "user", "they": "team", "our team": "team", "the team": "team"}

// cleanEntityTerm trims punctuation and leading articles from a matched name.
func cleanEntityTerm(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".,;:!?)'\"")
	s = strings.TrimLeft(s, "('\"")
	lower := strings.ToLower(s)
	for _, art := range []string{"the ", "a ", "an ", "our ", "my ", "this ", "that "} {
		if strings.HasPrefix(lower, art) {
			s, lower = s[len(art):], lower[len(art):]
		}
	}
	if p, ok := heuristicPronouns[lower]; ok {
		return p
	}
	return truncateToRunes(s, entityMaxChars)
}

func heuristicRelations(content string) []Entity {
	out := []Entity{}
	seen := map[string]bool{}
	for _, s := range extractSentences(content) {
		for _, p := range relationPatterns() {
			for _, m := range p.re.FindAllStringSubmatch(s, 4) {
				src, tgt := cleanEntityTerm(m[1]), cleanEntityTerm(m[2])
				// For "X prefers Y over Z" and "chose Y over Z" the first two
				// names are the relation; the loser is only in the fact.
				if src == "" || tgt == "" || strings.EqualFold(src, tgt) || text.Stopwords[strings.ToLower(src)] || text.Stopwords[strings.ToLower(tgt)] {
					continue
				}
				key := strings.ToLower(src + "\x00" + p.label + "\x00" + tgt)
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Entity{Source: src, SourceType: "unknown", Relationship: p.label, Target: tgt, TargetType: "unknown", Confidence: 0.6})
				if len(out) >= ExtractMaxEntities {
					return out
				}
			}
		}
	}
	return out
}

var (
	mentionURLPattern  = lazyRegexp(`\bhttps?://[^\s<>"'` + "`" + `]+`)
	mentionPathPattern = lazyRegexp(`(?:^|[\s(\["'` + "`" + `])((?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]+|[\w-]+\.(?:go|ts|tsx|js|jsx|mjs|py|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|md|json|yaml|yml|toml|ini|sql|sh|bash|zsh|txt|html|css|scss|lock|mod|sum|env|cfg|conf|xml|proto))\b`)
	mentionNamePattern = lazyRegexp(`\b[A-Z][A-Za-z0-9]*(?:[.+#-]?[A-Za-z0-9]+)*(?:\s+[A-Z][A-Za-z0-9]*(?:[.+#-]?[A-Za-z0-9]+)*)*`)
)

// sentenceStarters are capitalised words that begin sentences and are not
// names.
var sentenceStarters = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`use always never remember note prefer make run don't do switched decided maybe also then today
		yesterday tomorrow please avoid keep add fix check when if after before since because but and so yes no ok okay
		there here every each all some most many our we i it this that these those they he she you my the a an in on
		for to of at by with from as is are was were be been will would should could can must may might
		migrated moved chose picked went settled sticking committed adopted tests test see read ask try set install open
		call let consider hmm thanks sure`) {
		sentenceStarters[w] = true
	}
}

func HeuristicMentions(content string) []Mention {
	const maxMentions = 30
	out := []Mention{}
	seen := map[string]bool{}
	add := func(name, typ string) bool {
		name = strings.TrimRight(strings.TrimSpace(name), ".,;:!?)'\"")
		k := strings.ToLower(name)
		if utf8.RuneCountInString(name) < 2 || seen[k] {
			return len(out) < maxMentions
		}
		seen[k] = true
		out = append(out, Mention{Name: truncateToRunes(name, entityMaxChars), Type: typ})
		return len(out) < maxMentions
	}
	rest := content
	for _, u := range mentionURLPattern().FindAllString(content, maxMentions) {
		if !add(u, "url") {
			return out
		}
	}
	rest = mentionURLPattern().ReplaceAllString(rest, " ")
	for _, m := range mentionPathPattern().FindAllStringSubmatch(rest, maxMentions) {
		if !add(m[1], "file") {
			return out
		}
	}
	rest = mentionPathPattern().ReplaceAllString(rest, " ")
	for _, s := range extractSentences(rest) {
		for _, loc := range mentionNamePattern().FindAllStringIndex(s, -1) {
			name := s[loc[0]:loc[1]]
			if loc[0] == 0 {
				// The sentence's first word: drop it when it is an ordinary
				// word, keep the rest of the run.
				first, after, _ := strings.Cut(name, " ")
				if sentenceStarters[strings.ToLower(first)] || !hasInnerUpperOrDigit(first) && after == "" && isCommonStarter(first) {
					name = after
				}
			}
			if name == "" || sentenceStarters[strings.ToLower(name)] {
				continue
			}
			if !add(name, "name") {
				return out
			}
		}
	}
	return out
}

func hasInnerUpperOrDigit(w string) bool {
	for i, r := range w {
		if i > 0 && (unicode.IsUpper(r) || unicode.IsDigit(r)) {
			return true
		}
	}
	return false
}

// isCommonStarter guesses that a lone capitalised first word ending in -ed,
// -ing or -ly is a verb or adverb, not a name.
func isCommonStarter(w string) bool {
	l := strings.ToLower(w)
	return strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "ing") || strings.HasSuffix(l, "ly") || text.Stopwords[l]
}

// --- contradiction --------------------------------------------------------

var negationTokens = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`not no never none nothing nobody neither nor cannot cant dont doesnt didnt isnt arent
		wasnt werent wont wouldnt shouldnt couldnt hasnt havent hadnt mustnt neednt without`) {
		negationTokens[w] = true
	}
}

// antonymPairs are the antonym pairs of the syntactic contradiction
// detector (docs/design/pipeline.md, "Contradiction checks").
var antonymPairs = [][2]string{{"enabled", "disabled"}, {"allow", "deny"}, {"accept", "reject"}, {"always", "never"}, {"on", "off"}, {"true", "false"}}

// contradictionTokens lower-cases s, drops apostrophes (so "don't" is
// "dont"), splits at anything else that is not a letter or digit, and keeps
// tokens of at least two characters.
func contradictionTokens(s string) map[string]bool {
	if len(s) > parseMaxBytes {
		s = s[:parseMaxBytes]
	}
	s = strings.ToValidUTF8(s, " ")
	toks := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) >= 2 {
			toks[string(cur)] = true
		}
		cur = cur[:0]
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return toks
}

func isPolarityToken(t string) bool {
	if negationTokens[t] {
		return true
	}
	for _, p := range antonymPairs {
		if t == p[0] || t == p[1] {
			return true
		}
	}
	return false
}

// DetectContradiction is the syntactic contradiction detector
// (docs/design/pipeline.md, "Contradiction checks"). Two
// texts are at risk when they share at least two tokens (negation and
// antonym tokens not counted, and not all shared tokens stopwords, so "the"
// and "is" alone do not make two sentences about the same subject) and
// either exactly one of them has a negation token (not, no, never, cannot,
// dont, wont, isnt, …) or they hold opposite sides of an antonym pair
// (enabled/disabled, allow/deny, accept/reject, always/never, on/off,
// true/false). why explains a positive answer.
func DetectContradiction(a, b string) (risk bool, why string) {
	ta, tb := contradictionTokens(a), contradictionTokens(b)
	var shared []string
	content := false
	for t := range ta {
		if tb[t] && !isPolarityToken(t) {
			shared = append(shared, t)
			if !text.Stopwords[t] {
				content = true
			}
		}
	}
	if len(shared) < 2 || !content {
		return false, ""
	}
	slices.Sort(shared)
	about := strings.Join(shared, ", ")
	negA, negB := firstNegation(ta), firstNegation(tb)
	if (negA == "") != (negB == "") {
		side, tok := "second", negB
		if negA != "" {
			side, tok = "first", negA
		}
		return true, fmt.Sprintf("negation %q only in the %s text; both mention %s", tok, side, about)
	}
	for _, p := range antonymPairs {
		x, y := p[0], p[1]
		if ta[x] && tb[y] && !ta[y] && !tb[x] || ta[y] && tb[x] && !ta[x] && !tb[y] {
			first, second := x, y
			if ta[y] {
				first, second = y, x
			}
			return true, fmt.Sprintf("antonyms %q and %q; both mention %s", first, second, about)
		}
	}
	return false, ""
}

func firstNegation(toks map[string]bool) string {
	var found []string
	for t := range toks {
		if negationTokens[t] {
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found)
	return found[0]
}
