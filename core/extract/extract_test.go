package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readExtractFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "extract", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hasWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// Recorded-style model outputs, one rule each.
func TestParseExtractionFixtures(t *testing.T) {
	tests := []struct {
		file       string
		facts      []Fact // compared when non-nil
		nFacts     int
		nEntities  int
		warn       []string // substrings that must appear in some warning
		noWarnings bool
	}{
		{file: "qwen3_think.txt", nFacts: 2, nEntities: 1, noWarnings: true, facts: []Fact{
			{"The project uses pnpm as its package manager, not npm.", "rule", 0.9},
			{"The project's test suite runs with vitest.", "fact", 0.85},
		}},
		{file: "fenced_json.txt", nFacts: 1, noWarnings: true, facts: []Fact{
			{"The user prefers tabs over spaces in Go files.", "preference", 0.8},
		}},
		{file: "prose_around.txt", nFacts: 2, nEntities: 1, noWarnings: true},
		{file: "trailing_commas.txt", nFacts: 2, nEntities: 1, noWarnings: true},
		{file: "truncated.txt", nFacts: 2, warn: []string{"cut off"}},
		{file: "empty.txt", warn: []string{"empty answer"}},
		{file: "25_facts.txt", nFacts: 20, warn: []string{"5 facts beyond the limit of 20"}},
		{file: "invalid_types.txt", nFacts: 5, warn: []string{
			`type "instruction" is not one of`, "type 7 is not one of", "fact 5 dropped: 9 characters", `fact 6 dropped: no "content"`,
		}, facts: []Fact{
			{"The user wants concise commit messages in English.", "preference", 0.9},
			{"Run make generate before committing protobuf changes.", "fact", 0.8},
			{"The linter configuration lives in .golangci.yml at the root.", "fact", 0.8},
			{"Login fails when the session cookie is older than a day.", "fact", 0.6},
			{"The CI pipeline runs on GitHub Actions with Go 1.26.", "fact", 0.5},
		}},
		{file: "confidence_values.txt", nFacts: 6, warn: []string{"confidence 7 clamped to 1", "confidence -0.3 clamped to 0", `confidence "high" is not a number`}},
		{file: "entities_missing.txt", nFacts: 1, nEntities: 2, warn: []string{
			"entity 2 dropped: no target", "entity 3 dropped: no source", "entity 4 dropped: no relationship", "entity 5 dropped: no source",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			res, ws := ParseExtraction(readExtractFixture(t, tc.file))
			if len(res.Facts) != tc.nFacts || len(res.Entities) != tc.nEntities {
				t.Fatalf("%d facts, %d entities; want %d, %d\nfacts %+v\nwarnings %q", len(res.Facts), len(res.Entities), tc.nFacts, tc.nEntities, res.Facts, ws)
			}
			if tc.facts != nil {
				for i, f := range tc.facts {
					if res.Facts[i] != f {
						t.Errorf("fact %d = %+v, want %+v", i, res.Facts[i], f)
					}
				}
			}
			for _, w := range tc.warn {
				if !hasWarning(ws, w) {
					t.Errorf("no warning containing %q in %q", w, ws)
				}
			}
			if tc.noWarnings && len(ws) > 0 {
				t.Errorf("unexpected warnings %q", ws)
			}
			if res.Facts == nil || res.Entities == nil {
				t.Error("nil slices; want empty ones so JSON shows []")
			}
		})
	}
}

func TestParseExtractionDetails(t *testing.T) {
	res, _ := ParseExtraction(readExtractFixture(t, "confidence_values.txt"))
	want := []float64{0.8, 1, 0, 0.5, 0.85, 0.5}
	for i, w := range want {
		if res.Facts[i].Confidence != w {
			t.Errorf("fact %d confidence %v, want %v", i, res.Facts[i].Confidence, w)
		}
	}
	res, _ = ParseExtraction(readExtractFixture(t, "entities_missing.txt"))
	e := res.Entities[1]
	if e.Source != "auth service" || e.Relationship != "stores_in" || e.Target != "PostgreSQL" || e.Confidence != 0.7 {
		t.Errorf("entity with \"relation\" alias: %+v", e)
	}
	if res.Entities[0].SourceType != "system" || res.Entities[0].TargetType != "system" {
		t.Errorf("types lost: %+v", res.Entities[0])
	}
	res, _ = ParseExtraction(readExtractFixture(t, "prose_around.txt"))
	if res.Facts[1].Content != "Braces like } and { inside strings must not confuse the parser." {
		t.Errorf("braces in strings: %q", res.Facts[1].Content)
	}
	res, _ = ParseExtraction(readExtractFixture(t, "truncated.txt"))
	if res.Facts[1].Content != "Workers poll the queue every two seconds when healthy." {
		t.Errorf("salvage kept %+v", res.Facts)
	}
}

func TestParseExtractionRules(t *testing.T) {
	long := strings.Repeat("x", 2500)
	tests := []struct {
		name   string
		raw    string
		nFacts int
		warn   string
		check  func(t *testing.T, r ExtractionResult)
	}{
		{"unclosed leading think", "<think>I am reasoning and then the output stops {\"facts\": [", 0, "unclosed <think>", nil},
		{"orphan close think", `reasoning whose tag was in the template {"facts":[{"content":"wrong wrong wrong wrong wrong"}]}</think>{"facts":[{"content":"The right fact comes after the tag.","type":"fact"}]}`, 1, "", func(t *testing.T, r ExtractionResult) {
			if !strings.HasPrefix(r.Facts[0].Content, "The right") {
				t.Errorf("took %q", r.Facts[0].Content)
			}
		}},
		{"uppercase think", "<THINK>{\"facts\":[]}</THINK>{\"facts\":[{\"content\":\"Uppercase think tags are stripped too.\"}]}", 1, "", nil},
		{"fence without language", "```\n{\"facts\":[{\"content\":\"A fence with no language is removed.\"}]}\n```", 1, "", nil},
		{"inline fence", "```json {\"facts\":[{\"content\":\"An inline fence is removed as well.\"}]} ```", 1, "", nil},
		{"long fact truncated", `{"facts":[{"content":"` + long + `","type":"fact"}]}`, 1, "truncated from 2500 to 2000", func(t *testing.T, r ExtractionResult) {
			if len(r.Facts[0].Content) != 2000 {
				t.Errorf("length %d", len(r.Facts[0].Content))
			}
		}},
		{"whitespace collapsed", "{\"facts\":[{\"content\":\"  spaces   and\\n\\nnewlines are   collapsed  \"}]}", 1, "", func(t *testing.T, r ExtractionResult) {
			if r.Facts[0].Content != "spaces and newlines are collapsed" {
				t.Errorf("%q", r.Facts[0].Content)
			}
		}},
		{"duplicate fact", `{"facts":[{"content":"The same fact appears twice here."},{"content":"the same fact appears twice here."}]}`, 1, "repeats an earlier fact", nil},
		{"no JSON", "I could not find any facts in this memory.", 0, "no JSON object", nil},
		{"not JSON", "{this is not json}", 0, "no valid JSON object", nil},
		{"other object", `{"answer": 42}`, 0, "neither", nil},
		{"facts not array", `{"facts": "none"}`, 0, "not an array", nil},
		{"facts null", `{"facts": null, "entities": []}`, 0, "", nil},
		{"preferred object later", `{"example": true} then {"facts":[{"content":"The preferred object comes second here."}]}`, 1, "", nil},
		{"too many entities", `{"facts":[],"entities":[` + strings.TrimSuffix(strings.Repeat(`{"source":"a","relationship":"r","target":"b"},`, 18), ",") + `]}`, 0, "3 entities beyond the limit of 15", func(t *testing.T, r ExtractionResult) {
			if len(r.Entities) != 15 {
				t.Errorf("%d entities", len(r.Entities))
			}
		}},
		{"type case and space", `{"facts":[{"content":"Type names are matched loosely here.","type":" Decision "}]}`, 1, "", func(t *testing.T, r ExtractionResult) {
			if r.Facts[0].Type != "decision" {
				t.Errorf("type %q", r.Facts[0].Type)
			}
		}},
		{"NaN string confidence", `{"facts":[{"content":"NaN confidence falls back to default.","confidence":"NaN"}]}`, 1, "not a number", func(t *testing.T, r ExtractionResult) {
			if r.Facts[0].Confidence != 0.5 {
				t.Errorf("confidence %v", r.Facts[0].Confidence)
			}
		}},
		{"unicode rune counting", `{"facts":[{"content":"日本語の事実はここにありますが二十文字以上です"}]}`, 1, "", nil},
		{"short unicode", `{"facts":[{"content":"日本語の短い事実"}]}`, 0, "fewer than 20", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ws := ParseExtraction(tc.raw)
			if len(r.Facts) != tc.nFacts {
				t.Fatalf("%d facts, want %d: %+v, warnings %q", len(r.Facts), tc.nFacts, r.Facts, ws)
			}
			if tc.warn != "" && !hasWarning(ws, tc.warn) {
				t.Errorf("no warning %q in %q", tc.warn, ws)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// The cases of Signet's extraction tests (pipeline/extraction.test.ts).
func TestExtractionAcceptance(t *testing.T) {
	t.Run("fenced or prose-wrapped JSON", func(t *testing.T) {
		for _, f := range []string{"fenced_json.txt", "prose_around.txt"} {
			if r, _ := ParseExtraction(readExtractFixture(t, f)); len(r.Facts) == 0 {
				t.Errorf("%s: no facts", f)
			}
		}
	})
	t.Run("trailing commas", func(t *testing.T) {
		if r, _ := ParseExtraction(readExtractFixture(t, "trailing_commas.txt")); len(r.Facts) != 2 {
			t.Error("trailing commas not removed")
		}
	})
	t.Run("more than 20 facts truncated", func(t *testing.T) {
		if r, _ := ParseExtraction(readExtractFixture(t, "25_facts.txt")); len(r.Facts) != ExtractMaxFacts {
			t.Errorf("%d facts", len(r.Facts))
		}
	})
	t.Run("invalid type becomes fact", func(t *testing.T) {
		r, _ := ParseExtraction(`{"facts":[{"content":"An invalid type becomes a plain fact.","type":"banana"}]}`)
		if r.Facts[0].Type != "fact" {
			t.Error(r.Facts[0].Type)
		}
	})
	t.Run("confidence clamped", func(t *testing.T) {
		r, _ := ParseExtraction(`{"facts":[{"content":"Confidence is clamped into the unit range.","confidence":1.5}]}`)
		if r.Facts[0].Confidence != 1 {
			t.Error(r.Facts[0].Confidence)
		}
	})
	t.Run("short input", func(t *testing.T) {
		if _, short := ExtractionInput("  too   short  "); !short {
			t.Error("short input not flagged")
		}
		if r := HeuristicExtract("too short"); len(r.Facts) != 0 {
			t.Error("facts from short input")
		}
	})
	t.Run("entities missing source or target rejected", func(t *testing.T) {
		if r, _ := ParseExtraction(readExtractFixture(t, "entities_missing.txt")); len(r.Entities) != 2 {
			t.Errorf("%d entities", len(r.Entities))
		}
	})
}

func TestExtractionPrompt(t *testing.T) {
	p := ExtractionPrompt("We   switched\n\nthe queue to SQLite.")
	for _, want := range []string{`"facts"`, `"entities"`, `"source_type"`, `"relationship"`, "decision", "rationale", "Skip ephemeral details", "Return only the JSON object", "\nWe switched the queue to SQLite.\n"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if in, ok := ExtractionPromptInput(p); !ok || in != "We switched the queue to SQLite." {
		t.Errorf("ExtractionPromptInput = %q, %v", in, ok)
	}
	long := strings.Repeat("word ", 5000) // 25,000 chars
	p = ExtractionPrompt(long)
	in, _ := ExtractionPromptInput(p)
	if !strings.HasSuffix(in, " [truncated]") || len([]rune(in)) != ExtractMaxInputChars+len(" [truncated]") {
		t.Errorf("truncated input: %d runes, suffix %q", len([]rune(in)), in[len(in)-20:])
	}
	if _, ok := ExtractionPromptInput("hello"); ok {
		t.Error("plain text taken for a prompt")
	}
}

var decisionCands = []string{"mem-1", "mem-2", "mem-3"}

func TestParseDecision(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Decision
		warn string
	}{
		{"fixture update", readExtractFixture(t, "decision_update.txt"), Decision{"update", "mem-2", 0.85, "The new fact supersedes the Redis queue memory."}, ""},
		{"hallucinated id", readExtractFixture(t, "decision_hallucinated.txt"), Decision{}, `delete names "mem-999", which is not one of the candidates (mem-1, mem-2, mem-3)`},
		{"add", `{"action":"add","confidence":0.7,"reason":"new information"}`, Decision{"add", "", 0.7, "new information"}, ""},
		{"add with target ignored", `{"action":"add","targetId":"mem-1","confidence":0.7,"reason":"new"}`, Decision{"add", "", 0.7, "new"}, "ignored"},
		{"none with candidate", `{"action":"none","targetId":"mem-3","confidence":0.9,"reason":"covered"}`, Decision{"none", "mem-3", 0.9, "covered"}, ""},
		{"update without target", `{"action":"update","confidence":0.9,"reason":"x"}`, Decision{}, "without a targetId"},
		{"missing reason", `{"action":"update","targetId":"mem-1","confidence":0.9}`, Decision{}, "without a reason"},
		{"empty reason", `{"action":"add","confidence":0.9,"reason":"  "}`, Decision{}, "without a reason"},
		{"unknown action", `{"action":"merge","targetId":"mem-1","reason":"x"}`, Decision{}, `action "merge"`},
		{"no action", `{"targetId":"mem-1","reason":"x"}`, Decision{}, `no "action"`},
		{"confidence clamped high", `{"action":"delete","targetId":"mem-1","confidence":3,"reason":"obsolete"}`, Decision{"delete", "mem-1", 1, "obsolete"}, "clamped"},
		{"confidence string", `{"action":"none","confidence":"0.4","reason":"dup"}`, Decision{"none", "", 0.4, "dup"}, ""},
		{"confidence missing", `{"action":"add","reason":"new"}`, Decision{"add", "", 0.5, "new"}, ""},
		{"target_id spelling", `{"action":"update","target_id":"mem-1","confidence":0.8,"reason":"refines"}`, Decision{"update", "mem-1", 0.8, "refines"}, ""},
		{"garbage", "I think we should add it.", Decision{}, "no JSON object"},
		{"empty", "", Decision{}, "empty answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ws := ParseDecision(tc.raw, decisionCands)
			if d != tc.want {
				t.Errorf("got %+v, want %+v (warnings %q)", d, tc.want, ws)
			}
			if tc.warn != "" && !hasWarning(ws, tc.warn) {
				t.Errorf("no warning %q in %q", tc.warn, ws)
			}
		})
	}
}

// The cases of Signet's decision tests (pipeline/decision.test.ts; ADD
// with no candidates is the caller's short cut; the parser still accepts
// add with none).
func TestDecisionAcceptance(t *testing.T) {
	if d, _ := ParseDecision(`{"action":"add","confidence":0.8,"reason":"nothing similar"}`, nil); d.Action != ActionAdd {
		t.Error("add with no candidates rejected")
	}
	if d, _ := ParseDecision(`{"action":"update","targetId":"mem-1","confidence":0.8,"reason":"r"}`, nil); d.Action != "" {
		t.Error("update accepted with no candidates")
	}
	if d, _ := ParseDecision(`{"action":"delete","targetId":"mem-2","confidence":0.8}`, decisionCands); d.Action != "" {
		t.Error("missing reason accepted")
	}
	if d, _ := ParseDecision(`{"action":"none","confidence":-1,"reason":"r"}`, decisionCands); d.Confidence != 0 {
		t.Error("confidence not clamped")
	}
}

func TestDecisionPrompt(t *testing.T) {
	fact := Fact{Content: "The job queue now uses SQLite.", Type: "decision", Confidence: 0.9}
	cands := []Candidate{{ID: "mem-1", Type: "fact", Content: "The job queue\nuses Redis."}, {ID: "mem-2", Type: "rule", Content: "Never use Redis."}}
	p := DecisionPrompt(fact, cands)
	for _, want := range []string{"1. id=mem-1 type=fact: The job queue uses Redis.", "2. id=mem-2 type=rule: Never use Redis.", `"targetId"`, `"reason"`, "The job queue now uses SQLite.", "add", "update", "delete", "none"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	f, cs, ok := DecisionPromptInput(p)
	if !ok || f.Content != fact.Content || len(cs) != 2 || cs[1].ID != "mem-2" {
		t.Errorf("DecisionPromptInput = %+v %+v %v", f, cs, ok)
	}
}

func TestDetectContradiction(t *testing.T) {
	tests := []struct {
		a, b string
		risk bool
		why  string
	}{
		{"the cache is enabled", "the cache is disabled", true, `antonyms "enabled" and "disabled"`},
		{"we always deploy on Fridays", "we never deploy on Fridays", true, `negation "never"`},
		{"The API allows anonymous reads.", "The API doesn't allow anonymous reads.", true, `negation "doesnt"`},
		{"Dark mode: on for the editor", "Dark mode: off for the editor", true, `antonyms "on" and "off"`},
		{"strict mode is true in tsconfig", "strict mode is false in tsconfig", true, "antonyms"},
		{"The user prefers tabs.", "Deploys run on Kubernetes.", false, ""},
		{"the cache is enabled", "logging disabled", false, ""},                // no shared tokens
		{"the cache is enabled", "the cache was rebuilt yesterday", false, ""}, // shared but no polarity
		{"the cache is enabled", "the database is disabled", false, ""},        // only stopwords shared
		{"cache enabled", "cache disabled for tests", false, ""},               // one shared word
		{"we do not use npm", "we do not use yarn either", false, ""},          // both negated
		{"", "", false, ""},
	}
	for _, tc := range tests {
		risk, why := DetectContradiction(tc.a, tc.b)
		if risk != tc.risk || !strings.Contains(why, tc.why) {
			t.Errorf("DetectContradiction(%q, %q) = %v, %q; want %v, %q", tc.a, tc.b, risk, why, tc.risk, tc.why)
		}
		if r2, _ := DetectContradiction(tc.b, tc.a); r2 != risk {
			t.Errorf("not symmetric for %q / %q", tc.a, tc.b)
		}
	}
}

func TestIsDecisionContent(t *testing.T) {
	yes := []string{
		"We chose Postgres over MySQL for JSON support.", "We decided to drop Windows support.", "decided against a monorepo",
		"Switched from webpack to Vite.", "We migrated away from Heroku.", "Picked Go over Rust for the CLI.",
		"We went with SQLite.", "Sticking with pnpm for now.", "The team committed to weekly releases.",
		"Settled on Tailwind.", "We will use gRPC internally.", "She prefers Vim over Emacs.", "The project adopted conventional commits.",
		"Architecture decision: all writes go through one path.", "Design decision: no ORMs.",
	}
	for _, s := range yes {
		if !IsDecisionContent(s) {
			t.Errorf("not a decision: %q", s)
		}
	}
	no := []string{"The cache is enabled.", "Tests run with vitest.", "The user likes dark mode.", "Deploy on Fridays."}
	for _, s := range no {
		if IsDecisionContent(s) {
			t.Errorf("decision: %q", s)
		}
	}
}

func TestHeuristicExtract(t *testing.T) {
	memory := `We switched from MySQL to PostgreSQL because we need JSONB columns. The API server uses Redis for rate limiting.
The user prefers tabs over spaces in Go code. Maybe the flaky login test is a bug caused by a race in auth/session.go.
Never commit directly to main. See https://example.com/docs/adr-7 for details. ok.`
	r := HeuristicExtract(memory)
	byPrefix := func(p string) *Fact {
		for i := range r.Facts {
			if strings.HasPrefix(r.Facts[i].Content, p) {
				return &r.Facts[i]
			}
		}
		t.Fatalf("no fact starting %q in %+v", p, r.Facts)
		return nil
	}
	if f := byPrefix("We switched from MySQL"); f.Type != "decision" || f.Confidence != heuristicDecisionConfidence {
		t.Errorf("switch: %+v", f)
	}
	if f := byPrefix("The user prefers tabs"); f.Type != "decision" {
		// "prefers X over Y" is in the decision battery.
		t.Errorf("prefers: %+v", f)
	}
	if f := byPrefix("Maybe the flaky"); f.Type != "issue" || f.Confidence != heuristicHedgedConfidence {
		t.Errorf("hedged issue: %+v", f)
	}
	if f := byPrefix("Never commit"); f.Type != "rule" || f.Confidence != heuristicConfidence {
		t.Errorf("rule: %+v", f)
	}
	if f := byPrefix("The API server uses Redis"); f.Type != "fact" {
		t.Errorf("fact: %+v", f)
	}
	for _, f := range r.Facts {
		if n := len([]rune(f.Content)); n < FactMinChars || n > FactMaxChars {
			t.Errorf("fact of %d chars: %q", n, f.Content)
		}
	}
	rel := map[string]bool{}
	for _, e := range r.Entities {
		rel[e.Source+" "+e.Relationship+" "+e.Target] = true
	}
	for _, want := range []string{"MySQL replaced_by PostgreSQL", "API server uses Redis", "user prefers tabs"} {
		if !rel[want] {
			t.Errorf("no relation %q in %v", want, rel)
		}
	}
	men := map[string]string{}
	for _, m := range r.Mentions {
		men[m.Name] = m.Type
	}
	for name, typ := range map[string]string{"auth/session.go": "file", "https://example.com/docs/adr-7": "url", "PostgreSQL": "name", "MySQL": "name", "Redis": "name"} {
		if men[name] != typ {
			t.Errorf("mention %q = %q, want %q (all: %v)", name, men[name], typ, men)
		}
	}
	for _, bad := range []string{"We", "The", "Never", "Maybe", "See"} {
		if _, ok := men[bad]; ok {
			t.Errorf("sentence starter %q taken for a name", bad)
		}
	}
	// The JSON the heuristic provider returns parses back unchanged.
	b, _ := json.Marshal(r)
	back, ws := ParseExtraction(string(b))
	if len(back.Facts) != len(r.Facts) || len(back.Entities) != len(r.Entities) || len(ws) != 0 {
		t.Errorf("round trip: %d/%d facts, %d/%d entities, warnings %q", len(back.Facts), len(r.Facts), len(back.Entities), len(r.Entities), ws)
	}
}

func TestHeuristicExtractLimits(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteString("This is sentence number ")
		b.WriteString(strings.Repeat("x", i%3+1))
		b.WriteString(" about the build. ")
	}
	r := HeuristicExtract(b.String())
	if len(r.Facts) > ExtractMaxFacts || len(r.Entities) > ExtractMaxEntities {
		t.Errorf("%d facts, %d entities", len(r.Facts), len(r.Entities))
	}
	if r := HeuristicExtract("e.g. this is one sentence, i.e. not split at the abbreviations."); len(r.Facts) != 1 {
		t.Errorf("abbreviations split: %+v", r.Facts)
	}
}

// hugeGarbage is 10 MB of input shaped to make a careless parser
// backtrack or recurse.
var hugeGarbage = map[string]string{
	"braces":  strings.Repeat("{", 10<<20),
	"open":    `{"facts":[{"content":"` + strings.Repeat("a{", 5<<20),
	"nested":  strings.Repeat(`{"a":[`, 1<<20),
	"quotes":  strings.Repeat(`{"`, 5<<20),
	"think":   strings.Repeat("<think>", 1<<20),
	"mixed":   strings.Repeat("}{][\",\\", 1<<20),
	"objects": strings.Repeat(`{"x":1} `, 1<<20),
}

// 10 MB of garbage returns (without panicking or recursing out of stack)
// and yields no facts. How fast it returns is BenchmarkParseHugeGarbage's
// business, not a test's.
func TestParseHugeGarbage(t *testing.T) {
	for name, in := range hugeGarbage {
		r, _ := ParseExtraction(in)
		ParseDecision(in, []string{"a"})
		DetectContradiction(in, in)
		HeuristicExtract(in)
		if len(r.Facts) != 0 {
			t.Errorf("%s: facts from garbage", name)
		}
	}
}

// go test -run '^$' -bench ParseHugeGarbage ./core/extract/
func BenchmarkParseHugeGarbage(b *testing.B) {
	for name, in := range hugeGarbage {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				ParseExtraction(in)
				ParseDecision(in, []string{"a"})
				DetectContradiction(in, in)
				HeuristicExtract(in)
			}
		})
	}
}

// The heuristic provider's mentions survive its JSON round trip, so the
// graph stage sees file paths, URLs and names too.
func TestParseExtractionKeepsMentions(t *testing.T) {
	res, _ := ParseExtraction(`{"facts":[],"entities":[],"mentions":[{"name":"tools/deploy.sh","type":"file"},{"name":"  "},{"name":"Atlas","type":"name"}]}`)
	if len(res.Mentions) != 2 || res.Mentions[0].Name != "tools/deploy.sh" || res.Mentions[1].Type != "name" {
		t.Fatalf("mentions = %+v", res.Mentions)
	}
}
