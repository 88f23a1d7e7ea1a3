package entities

import (
	"regexp"
	"strings"
	"sync"
)

// DecisionImportance is the least importance a memory in decision
// language gets when the caller set none (the default importance is 0.8):
// docs/design/evolution.md, "Decisions and constraints".
const DecisionImportance = 0.85

// decisionPattern is one pattern of the battery; when check is set, a
// match counts only if check accepts its groups.
type decisionPattern struct {
	re    *regexp.Regexp
	check func(m []string) bool
}

// decisionPatterns is the 14-pattern battery of decision language
// (docs/design/evolution.md, "Decisions and constraints"). Two phrases are
// also ordinary speech, so their matches are checked: "went with my sister"
// and "adopted a puppy" decide nothing.
var decisionPatterns = sync.OnceValue(func() []decisionPattern {
	return []decisionPattern{
		{re: regexp.MustCompile(`(?i)\b(?:chose|chosen)\s+(?:to\s+use\s+)?\S+(?:\s+\S+){0,4}?\s+over\b`)},
		{re: regexp.MustCompile(`(?i)\b(?:chose|chosen)\s+to\b`)},
		{re: regexp.MustCompile(`(?i)\bdecided\s+(?:to|on|against)\b`)},
		{re: regexp.MustCompile(`(?i)\bswitched\s+(?:from|to|over\s+to)\b`)},
		{re: regexp.MustCompile(`(?i)\bmigrated\s+(?:\S+\s+)?(?:from|to|away)\b`)},
		{re: regexp.MustCompile(`(?i)\bpicked\s+\S+(?:\s+\S+){0,4}?\s+over\b`)},
		{re: regexp.MustCompile(`(?i)\bwent\s+with\s+(\S+)(?:\s+(\S+))?`),
			check: func(m []string) bool { return wentWithChoice(word(m[1]), word(m[2])) }},
		{re: regexp.MustCompile(`(?i)\bsticking\s+with\b`)},
		{re: regexp.MustCompile(`(?i)\bcommitted\s+to\b`)},
		{re: regexp.MustCompile(`(?i)\bsettled\s+on\b`)},
		{re: regexp.MustCompile(`(?i)\bwill\s+(?:use|go\s+with|stick\s+with)\b`)},
		{re: regexp.MustCompile(`(?i)\bprefers?\s+\S+(?:\s+\S+){0,4}?\s+(?:over|instead|rather)\b`)},
		{re: regexp.MustCompile(`(?i)(?:(\S+)\s+)?\badopted\b(?:\s+(\S+)(?:\s+(\S+))?)?`),
			check: func(m []string) bool { return adoptedChoice(word(m[1]), word(m[2]), word(m[3])) }},
		{re: regexp.MustCompile(`(?i)\b(?:architecture|architectural|design)\s+decision\b`)},
	}
})

// decisionKeywords gate the battery: text containing none of them cannot
// match, and most memories are rejected with a few substring scans.
var decisionKeywords = []string{"chose", "chosen", "decided", "switched", "migrated", "picked", "went with", "sticking",
	"committed", "settled", "will ", "prefer", "adopted", "decision"}

// company are words after "went with" that name company, not a choice.
var company = lazySet(`my his her their our your me him them us friends friend family mom dad mum mother father sister
	brother son daughter wife husband kids kid children partner boyfriend girlfriend buddy buddies colleagues
	colleague coworkers coworker team parents grandma grandpa everyone everybody some someone people folks group
	classmates neighbors neighbours cousins cousin aunt uncle guys girls`)

// adoptees are words after "adopted" that make it an adoption, not a
// choice: "adopted a greyhound", "adopted two kittens".
var adoptees = lazySet(`a an one two three four five another my his her their our him them me us child children kid kids
	baby babies son daughter boy girl dog dogs puppy puppies cat cats kitten kittens pet pets greyhound rescue
	animal animals horse bird sibling siblings`)

// passives before "adopted" make it a status ("I was adopted", "my adopted
// sister").
var passives = lazySet(`was were been being is are am got get my his her their our an adopted`)

// IsDecision reports whether content uses decision language (the
// battery): "decided to", "switched from X to Y", "went with SQLite",
// "prefers X over Y", "design decision"…
func IsDecision(content string) bool {
	lower := strings.ToLower(content)
	hit := false
	for _, k := range decisionKeywords {
		if strings.Contains(lower, k) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	for _, p := range decisionPatterns() {
		if p.check == nil {
			if p.re.MatchString(content) {
				return true
			}
			continue
		}
		for _, m := range p.re.FindAllStringSubmatch(content, -1) {
			if p.check(m) {
				return true
			}
		}
	}
	return false
}

// word lower-cases a matched word and strips the punctuation around it.
func word(w string) string {
	return strings.ToLower(strings.Trim(w, `.,;:!?"'()[]{}“”‘’`))
}

func wentWithChoice(next, after string) bool {
	if next == "" || company()[next] {
		return false
	}
	if (next == "a" || next == "an" || next == "the" || next == "some") && company()[after] {
		return false
	}
	return true
}

func adoptedChoice(before, next, after string) bool {
	if passives()[before] {
		return false
	}
	if next == "" {
		return true // "the team adopted it." is rare; "the RFC was adopted" was caught above
	}
	if adoptees()[next] {
		return false
	}
	if next == "the" && adoptees()[after] {
		return false
	}
	return true
}
