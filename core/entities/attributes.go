package entities

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// Attributes the linker can read (docs/design/evolution.md, "Attributes"):
// the heuristic reading of an entity's aspects and attributes, so that the
// same subject and attribute with a different value supersedes the old
// one. ReadAttributes is a pure, deterministic pass over one
// short statement that finds what it can read reliably: a subject, an
// attribute of it and a value ("staging runs Postgres 14": staging,
// postgres version, 14), and the changes a statement announces ("we moved
// builds from CircleCI to GitHub Actions", "we reversed the gorm
// decision"). It is built to be precise rather than broad: a wrong reading
// would let a new memory supersede one that still holds a live fact, so
// anything unsure reads as nothing. Not read:
//   - text over MaxAttributeChars (paragraphs hold many facts at once);
//   - conversation turns (a speaker label opens the text: "Caroline: …");
//   - questions, negations and hedges ("does staging run…?", "staging does
//     not run…", "we might deploy on Fridays", "we will…");
//   - subjects that are pronouns or generic words ("it", "my sister", "the
//     program", "this package");
//   - two values for one subject and attribute in one text.

// Attribute kinds (docs/design/evolution.md, "Decisions and
// constraints"): a constraint is a decision, which always surfaces; an
// attribute is any other fact about an entity.
const (
	KindAttribute  = "attribute"
	KindConstraint = "constraint"
)

// MaxAttributeChars bounds the text ReadAttributes reads.
const MaxAttributeChars = 280

// Attribute is one subject/attribute/value statement.
type Attribute struct {
	Entity string `json:"entity"` // canonical subject: "staging", "billing service"
	Aspect string `json:"aspect"` // the group it belongs to: versions, network, ownership…
	Name   string `json:"name"`   // the attribute: "postgres version", "port", "owner"
	Value  string `json:"value"`  // canonical value: "14", "5433", "bob"
	Kind   string `json:"kind"`   // KindAttribute or KindConstraint
}

// Change is a statement that a value was replaced: the live value From
// (of Entity, when named) gives way to To ("" when it is only retired).
type Change struct {
	Entity string `json:"entity,omitempty"`
	From   string `json:"from"`
	To     string `json:"to,omitempty"`
	Kind   string `json:"kind"`
}

// Reading is what ReadAttributes found.
type Reading struct {
	Attributes []Attribute `json:"attributes,omitempty"`
	Changes    []Change    `json:"changes,omitempty"`
}

// Empty reports whether nothing was read.
func (r Reading) Empty() bool { return len(r.Attributes) == 0 && len(r.Changes) == 0 }

// Aspects, by the attribute's nature.
const (
	AspectVersions  = "versions"
	AspectNetwork   = "network"
	AspectPlatform  = "infrastructure"
	AspectOwnership = "ownership"
	AspectSchedule  = "schedule"
	AspectLifecycle = "lifecycle"
	AspectLimits    = "limits"
	AspectDecisions = "decisions"
	AspectSettings  = "settings"
)

const (
	det  = `(?:(?i:the|our)\s+)?`
	subj = `([A-Za-z0-9][\w.\-/+]*(?:\s+[A-Za-z0-9][\w.\-/+]*){0,3}?)`
	adv  = `(?:\s+(?i:now|currently|still|also))?`
	// tail is what may follow a value: a qualifier, never a second clause
	// with a value of its own (checked by the callers).
	numWord = `(?i:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|sixty|ninety)`
)

var (
	reVersion = lazyRegexp(`^` + det + subj + adv + `\s+(?i:runs\s+on|run\s+on|runs|run|uses|use|is\s+on|are\s+on|is\s+running|are\s+running|is\s+using|are\s+using|builds\s+with|build\s+with|builds\s+on|build\s+on|is\s+built\s+with|are\s+built\s+with|is\s+built\s+on|are\s+built\s+on|(?:was|were|is|are|has\s+been|have\s+been)\s+upgraded\s+to|upgraded\s+to|targets|target|requires|require)\s+([A-Za-z][\w.+\-]*)\s+[vV]?(\d+(?:\.\d+)*)(?:[\s,]|$)`)
	rePort1   = lazyRegexp(`^` + det + subj + adv + `\s+(?i:listens|listen|runs|run|is|are|serves|serve|is\s+listening|are\s+listening|is\s+served|are\s+served|binds|bind|is\s+exposed|are\s+exposed)\s+(?i:on\s+)?(?i:port)\s+(\d{2,5})(?:[\s,]|$)`)
	rePort2   = lazyRegexp(`^` + det + subj + `(?:'s)?\s+(?i:port)\s+(?i:is|=)\s+(?i:now\s+)?(\d{2,5})(?:[\s,]|$)`)
	rePlatf   = lazyRegexp(`^` + det + subj + adv + `\s+(?i:runs|run|is\s+hosted|are\s+hosted|is\s+deployed|are\s+deployed|is\s+running|are\s+running)\s+(?i:on)\s+([A-Z][\w.\-]*(?:\s+[A-Z][\w.\-]*){0,2})(?:[\s,]|$)`)
	reOwner   = lazyRegexp(`^` + det + subj + adv + `\s+(?i:is|are)\s+(?i:now\s+)?(?i:owned|maintained|managed)\s+by\s+(.+)$`)
	reMove    = lazyRegexp(`^(?i:(?:we|they)\s+)?(?i:have\s+|had\s+)?(?i:moved|switched|migrated)\s+(?:(?i:the|our)\s+)?(?:(.{1,40}?)\s+)?(?i:from)\s+(.+?)\s+(?i:to)\s+(.+)$`)
	reDecide  = lazyRegexp(`\b(?i:decided|chose|agreed|opted)\s+(?i:to\s+use|to\s+go\s+with|to\s+adopt)\s+(.+?)\s+(?i:for|as)\s+(?:(?i:the|our)\s+)?(.+)$`)
	reRevoke  = lazyRegexp(`\b(?i:reversed|revoked|dropped|abandoned|scrapped|overturned|rolled\s+back)\s+(?i:the|our)\s+(.+?)\s+(?i:decision)\b(?:.*?\b(?i:and|to)\s+(?:(?i:now)\s+)?(?i:use|go\s+with|switch\s+to|move\s+to|adopt)\s+(.+))?$`)
	reLonger  = lazyRegexp(`^(?i:(?:we|they)\s+)(?i:no\s+longer\s+use|stopped\s+using)\s+(.+)$`)
	reDur     = lazyRegexp(`^` + det + subj + adv + `\s+((?i:(?:is|are)\s+(?:kept|retained|stored|archived)\s+for|lasts|last|(?:expires|expire)\s+after|(?:is|are)\s+valid\s+for|(?:is|are)\s+cached\s+for))\s+(` + numWord + `)\s+((?i:seconds?|minutes?|hours?|days?|weeks?|months?|years?))(?:[\s,]|$)`)
	reLimit   = lazyRegexp(`^` + det + subj + adv + `\s+(?i:allows|allow|permits|permit|accepts|accept|(?:is|are)\s+limited\s+to|(?:is|are)\s+capped\s+at)\s+(?i:up\s+to\s+)?(\d[\d,]*k?)\s+((?i:requests|calls|connections|queries|jobs|messages|events|uploads))(?:\s+(?i:per|a|an)\s+((?i:second|minute|hour|day)))?(?:[\s,]|$)`)
	reSched   = lazyRegexp(`^(?i:(?:we|the\s+team|our\s+team)\s+)((?i:deploy|release|ship|publish))\s+(?i:now\s+)?(?i:on|every)\s+((?i:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays?|weekends?|day|week|sprint|night|morning|evening|month|fortnight))\b`)
	reIs      = lazyRegexp(`^` + det + `([A-Za-z][\w.\-]*(?:'s)?(?:\s+[A-Za-z][\w.\-]*){1,3}?)\s+(?i:is|=)\s+(?i:now\s+|set\s+to\s+|currently\s+)?(\d[\d.,]*\s?(?:[A-Za-z%]{1,5})?)(?:\s+(?i:with|in|for|on|since|after|from|behind|as\s+of)\b.*)?$`)
	reKV      = lazyRegexp(`^([a-z][a-z0-9_.\-]*(?:\s+[a-z][a-z0-9_.\-]*){0,2})\s*:\s+([^\s:]+(?:\s+[^\s:]+){0,2})$`)
	reClause  = lazyRegexp(`,?\s+(?i:and|but|while|whereas)\s+|,\s+`)
	reSplit   = lazyRegexp(`[.!;:]+(?:\s+|$)|\n+`)
)

// hedges make a sentence a wish, a plan, a doubt or a condition, not a
// current fact.
var hedges = lazySet(`maybe perhaps might may should would could will shall planning planned consider considering
	if whether unless probably possibly hope hopefully wish want wants wanted think thought guess suppose assume propose
	proposed suggest suggested until when`)

// negations turn a statement around.
var negations = lazySet(`not no never nobody nothing neither nor without cannot can't don't doesn't didn't isn't aren't
	wasn't weren't won't hasn't haven't`)

// badSubject are words a subject may not hold: pronouns, possessives of
// people, and words that show the "subject" is really a clause.
var badSubject = lazySet(`i me my mine you your yours he him his she her hers it its we us our they them their this that
	these those there here what which who whom whose someone somebody something everyone everybody everything anyone
	anything nobody nothing one and or but if so then also just really think said says guess know thing things stuff
	mom dad mum mother father sister brother son daughter wife husband friend friends kid kids family`)

// genericHeads are single-word subjects too vague to hold an attribute
// across a store ("the program uses GTK 3" in two package descriptions).
var genericHeads = lazySet(`program programs package packages library libraries tool tools application applications app apps
	module modules list lists software utility utilities plugin plugins extension extensions version versions system systems
	project projects code file files data user users people service server servers client clients interface driver
	drivers daemon framework game games editor script scripts command commands binary binaries`)

// kvLabels are line labels that introduce a note, not a key with one value.
var kvLabels = lazySet(`note notes todo to-do fixme fix fixed bug bugs update updates summary question answer tip tips warning
	example examples reminder idea ideas see source sources ref refs re fyi ps nb info error errors log output input
	status task tasks step steps result results issue issues done next why what how where when who usage description
	title subject topic comment comments quote`)

// valueStops end a value that runs on into a qualifier: "Bob since the
// reorg", "GitHub Actions after the migration".
var valueStops = lazySet(`since after from as until because now with for in following behind at on during by when while last
	this next yesterday today earlier recently`)

// ReadAttributes reads the attribute statements of content (see the
// package comment above for what it leaves alone).
func ReadAttributes(content string) Reading {
	var r Reading
	if !utf8.ValidString(content) || len(content) > MaxAttributeChars*4 || utf8.RuneCountInString(content) > MaxAttributeChars {
		return r
	}
	if strings.TrimSpace(content) == "" || len(SpeakerLabels(content)) > 0 {
		return r
	}
	constraint := IsDecision(content)
	kind := KindAttribute
	if constraint {
		kind = KindConstraint
	}
	trimmed := strings.TrimSpace(content)
	if m := reKV().FindStringSubmatch(trimmed); m != nil && !strings.Contains(trimmed, "\n") {
		if a, ok := keyValue(m[1], m[2]); ok {
			a.Kind = kind
			r.Attributes = append(r.Attributes, a)
		}
		return r.settle()
	}
	for _, s := range reSplit().Split(content, -1) {
		s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "-*•> "))
		if s == "" || strings.HasSuffix(s, "?") || strings.Contains(s, "?") {
			continue
		}
		s = strings.TrimRight(s, ".!,;: ")
		words := lowerWords(s)
		if hasAny(words, hedges()) {
			continue
		}
		if c, ok := readChange(s, words); ok {
			c.Kind = kind
			if c.Kind == KindAttribute && c.To != "" && strings.Contains(strings.ToLower(s), "decision") {
				c.Kind = KindConstraint
			}
			r.Changes = append(r.Changes, c)
			continue
		}
		if hasAny(words, negations()) {
			continue
		}
		// Each clause on its own: "staging runs Postgres 16 and prod
		// runs Postgres 15" holds two statements.
		for _, cl := range reClause().Split(s, -1) {
			if a, ok := readSentence(strings.TrimSpace(cl)); ok {
				a.Kind = kind
				if a.Aspect == AspectDecisions {
					a.Kind = KindConstraint
				}
				r.Attributes = append(r.Attributes, a)
			}
		}
	}
	return r.settle()
}

// readChange reads a sentence announcing a replaced value.
func readChange(s string, words []string) (Change, bool) {
	if m := reRevoke().FindStringSubmatch(s); m != nil {
		from, ok := shortValue(m[1], 3)
		if !ok {
			return Change{}, false
		}
		to := ""
		if m[2] != "" {
			if to, ok = shortValue(cutValue(m[2]), 3); !ok {
				return Change{}, false
			}
		}
		return Change{From: from, To: to, Kind: KindConstraint}, true
	}
	if hasAny(words, negations()) && !strings.Contains(strings.ToLower(s), "no longer") {
		return Change{}, false
	}
	if m := reLonger().FindStringSubmatch(s); m != nil {
		from, ok := shortValue(cutValue(m[1]), 3)
		return Change{From: from}, ok
	}
	if m := reMove().FindStringSubmatch(s); m != nil {
		from, ok1 := shortValue(m[2], 3)
		to, ok2 := shortValue(cutValue(m[3]), 3)
		if !ok1 || !ok2 || from == to {
			return Change{}, false
		}
		c := Change{From: from, To: to}
		if m[1] != "" {
			e, ok := subject(m[1])
			if !ok {
				return Change{}, false
			}
			c.Entity = e
		}
		return c, true
	}
	return Change{}, false
}

// readSentence reads one subject/attribute/value sentence.
func readSentence(s string) (Attribute, bool) {
	if m := reDecide().FindStringSubmatch(s); m != nil {
		v, ok1 := shortValue(m[1], 3)
		e, ok2 := subject(cutValue(m[2]))
		if ok1 && ok2 {
			return Attribute{Entity: e, Aspect: AspectDecisions, Name: "choice", Value: v}, true
		}
		return Attribute{}, false
	}
	try := func(re *regexp.Regexp, build func(m []string) (Attribute, bool)) (Attribute, bool, bool) {
		m := re.FindStringSubmatch(s)
		if m == nil {
			return Attribute{}, false, false
		}
		e, ok := subject(m[1])
		if !ok {
			return Attribute{}, false, true
		}
		a, ok := build(m)
		a.Entity = e
		return a, ok, true
	}
	for _, p := range []struct {
		re    *regexp.Regexp
		build func(m []string) (Attribute, bool)
	}{
		{rePort1(), func(m []string) (Attribute, bool) {
			return Attribute{Aspect: AspectNetwork, Name: "port", Value: m[2]}, true
		}},
		{rePort2(), func(m []string) (Attribute, bool) {
			return Attribute{Aspect: AspectNetwork, Name: "port", Value: m[2]}, true
		}},
		{reVersion(), func(m []string) (Attribute, bool) {
			name := strings.ToLower(m[2])
			if !namedThing(m[2]) {
				return Attribute{}, false
			}
			return Attribute{Aspect: AspectVersions, Name: name + " version", Value: m[3]}, true
		}},
		{rePlatf(), func(m []string) (Attribute, bool) {
			v := Canonical(cutValue(m[2]))
			if v == "" || calendar()[strings.Fields(v)[0]] {
				return Attribute{}, false
			}
			return Attribute{Aspect: AspectPlatform, Name: "platform", Value: v}, true
		}},
		{reOwner(), func(m []string) (Attribute, bool) {
			v, ok := shortValue(cutValue(m[2]), 4)
			return Attribute{Aspect: AspectOwnership, Name: "owner", Value: v}, ok
		}},
		{reDur(), func(m []string) (Attribute, bool) {
			verb := strings.ToLower(m[2])
			name := "duration"
			switch {
			case strings.Contains(verb, "kept"), strings.Contains(verb, "retained"), strings.Contains(verb, "stored"), strings.Contains(verb, "archived"):
				name = "retention"
			case strings.Contains(verb, "expire"):
				name = "expiry"
			case strings.Contains(verb, "valid"):
				name = "validity"
			case strings.Contains(verb, "cached"):
				name = "cache lifetime"
			}
			return Attribute{Aspect: AspectLifecycle, Name: name, Value: numberOf(strings.ToLower(m[3])) + " " + strings.TrimSuffix(strings.ToLower(m[4]), "s")}, true
		}},
		{reLimit(), func(m []string) (Attribute, bool) {
			name := strings.ToLower(m[3])
			if m[4] != "" {
				name += " per " + strings.ToLower(m[4])
			}
			return Attribute{Aspect: AspectLimits, Name: name + " limit", Value: strings.ReplaceAll(strings.ToLower(m[2]), ",", "")}, true
		}},
	} {
		if a, ok, matched := try(p.re, p.build); matched {
			return a, ok
		}
	}
	if m := reSched().FindStringSubmatch(s); m != nil {
		v := strings.TrimSuffix(strings.ToLower(m[2]), "s")
		return Attribute{Entity: strings.ToLower(m[1]) + "s", Aspect: AspectSchedule, Name: "schedule", Value: v}, true
	}
	if m := reIs().FindStringSubmatch(s); m != nil {
		return genericIs(m[1], m[2])
	}
	return Attribute{}, false
}

var numberWords = map[string]string{"a": "1", "an": "1", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fourteen": "14",
	"fifteen": "15", "twenty": "20", "thirty": "30", "sixty": "60", "ninety": "90"}

func numberOf(w string) string {
	if n, ok := numberWords[w]; ok {
		return n
	}
	return w
}

// genericIs reads "redis maxmemory is 2gb", "the API's timeout is 30s",
// "the size of the pool is 20": a measured value of a named setting.
func genericIs(np, value string) (Attribute, bool) {
	np = strings.ToLower(np)
	var entity, name string
	switch {
	case strings.Contains(np, "'s "):
		entity, name, _ = strings.Cut(np, "'s ")
	case strings.Contains(np, " of "):
		name, entity, _ = strings.Cut(np, " of ")
		entity = strings.TrimPrefix(strings.TrimPrefix(entity, "the "), "our ")
	default:
		f := strings.Fields(np)
		entity, name = strings.Join(f[:len(f)-1], " "), f[len(f)-1]
	}
	e, ok := subject(entity)
	if !ok {
		return Attribute{}, false
	}
	name = Canonical(name)
	for _, w := range strings.Fields(name) {
		if badSubject()[w] || stoplike(w) && !settingWord(w) {
			return Attribute{}, false
		}
	}
	if name == "" || calendar()[name] {
		return Attribute{}, false
	}
	v := strings.ToLower(strings.ReplaceAll(strings.TrimRight(value, ".,"), " ", ""))
	return Attribute{Entity: e, Aspect: AspectSettings, Name: name, Value: v}, true
}

// settingWord lets a few common words name a setting ("the pool size is
// 20", "the timeout is 30s").
func settingWord(w string) bool {
	switch w {
	case "size", "limit", "timeout", "port", "version", "count", "max", "min", "level", "rate", "ttl", "interval", "memory":
		return true
	}
	return false
}

// keyValue reads "timezone: Europe/Stockholm", "staging.db.port: 5433".
func keyValue(key, value string) (Attribute, bool) {
	key = Canonical(key)
	if kvLabels()[key] || kvLabels()[strings.Fields(key)[0]] {
		return Attribute{}, false
	}
	for _, w := range strings.Fields(key) {
		if badSubject()[w] || text.Stopwords[w] {
			return Attribute{}, false
		}
	}
	if utf8.RuneCountInString(value) > 40 {
		return Attribute{}, false
	}
	v := Canonical(strings.TrimRight(value, ".,;"))
	if v == "" || v == key {
		return Attribute{}, false
	}
	entity, name := key, "value"
	if i := strings.LastIndexByte(key, '.'); i > 0 && i < len(key)-1 && !strings.Contains(key, " ") {
		entity, name = key[:i], key[i+1:]
	}
	return Attribute{Entity: entity, Aspect: AspectSettings, Name: name, Value: v}, true
}

// subject canonicalizes a sentence's subject, or rejects it.
func subject(s string) (string, bool) {
	f := strings.Fields(strings.ToLower(s))
	for len(f) > 0 && (f[0] == "the" || f[0] == "our" || f[0] == "a" || f[0] == "an") {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 4 {
		return "", false
	}
	for _, w := range f {
		w = strings.TrimSuffix(w, "'s")
		if badSubject()[w] || calendar()[w] || text.Stopwords[w] {
			return "", false
		}
	}
	if len(f) == 1 && (genericHeads()[f[0]] || text.Stopwords[f[0]] || roleWords()[f[0]] || unicode.IsDigit(firstRune(f[0]))) {
		return "", false
	}
	return strings.Join(f, " "), true
}

// shortValue canonicalizes a value of at most n words.
func shortValue(s string, n int) (string, bool) {
	f := strings.Fields(strings.ToLower(strings.Trim(s, " .,;:!\"'()")))
	for len(f) > 0 && (f[0] == "the" || f[0] == "our" || f[0] == "a" || f[0] == "an") {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > n {
		return "", false
	}
	for _, w := range f {
		if badSubject()[w] && w != "one" {
			return "", false
		}
	}
	return strings.Join(f, " "), true
}

// cutValue ends a value at the first qualifier or punctuation.
func cutValue(s string) string {
	if i := strings.IndexAny(s, ",;:()"); i >= 0 {
		s = s[:i]
	}
	f := strings.Fields(s)
	for i, w := range f {
		if i > 0 && valueStops()[strings.ToLower(w)] {
			return strings.Join(f[:i], " ")
		}
		if i > 0 && (strings.EqualFold(w, "and") || strings.EqualFold(w, "but")) {
			return strings.Join(f[:i], " ")
		}
	}
	return strings.Join(f, " ")
}

// namedThing accepts the name before a version: capitalised ("Postgres",
// "Node"), or a curated tool ("postgres"), never a common word ("about 2").
func namedThing(w string) bool {
	lw := strings.ToLower(w)
	if _, ok := curated[lw]; ok {
		return true
	}
	if stoplike(lw) || badSubject()[lw] || calendar()[lw] {
		return false
	}
	return unicode.IsUpper(firstRune(w))
}

// calendar words are dates, not names or values of a platform.
var calendar = lazySet(`monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays
	fridays saturdays sundays january february march april may june july august september october november december
	today tomorrow yesterday tonight weekend weekends`)

// settle drops what one text says twice with different values (ambiguous)
// and repeats.
func (r Reading) settle() Reading {
	type slot struct{ e, n string }
	vals := map[slot]map[string]bool{}
	for _, a := range r.Attributes {
		k := slot{a.Entity, a.Name}
		if vals[k] == nil {
			vals[k] = map[string]bool{}
		}
		vals[k][a.Value] = true
	}
	var out []Attribute
	seen := map[slot]bool{}
	for _, a := range r.Attributes {
		k := slot{a.Entity, a.Name}
		if len(vals[k]) != 1 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, a)
	}
	r.Attributes = out
	froms := map[string]int{}
	for _, c := range r.Changes {
		froms[c.From]++
	}
	var changes []Change
	for _, c := range r.Changes {
		if froms[c.From] == 1 {
			changes = append(changes, c)
		}
	}
	r.Changes = changes
	return r
}

func lowerWords(s string) []string {
	f := strings.Fields(strings.ToLower(s))
	for i, w := range f {
		f[i] = strings.Trim(w, `.,;:!?"()[]{}“”‘’`)
	}
	return f
}

func hasAny(words []string, in map[string]bool) bool {
	for _, w := range words {
		if in[w] || in[strings.ReplaceAll(w, "’", "'")] {
			return true
		}
	}
	return false
}
