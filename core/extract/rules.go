package extract

import (
	"strings"
	"unicode"
)

// What a rule or a decision is about, and what a change replaces. A
// memory such as "We decided to use sqlc instead of gorm" is about gorm as
// much as about sqlc: a prompt asking to "add gorm models" contradicts it
// and must see it; a later "From now on we use Atlas for migrations
// instead of goose" replaces the memory that says goose is the migration
// tool. These readers are pure and cheap (one regular expression and a
// scan), so the prompt hook can run them on each candidate.

// ruleLanguage is the language of a rule, a decision or a change.
var ruleLanguage = lazyRegexp(`(?i)\b(?:decided|decision|chose|chosen|picked|went with|settled on|switch(?:ed|ing)?|mov(?:e|ed|ing) (?:\w+ )*from|migrat(?:e|ed|ing)|replac(?:e|ed|es|ing)|instead of|rather than|in favou?r of|from now on|going forward|always|never|must|no longer|policy|convention|prefer(?:s|red)?|don't|do not|avoid|we(?:'ll| will)? use|not negotiable)\b|(?:^|[,;:.] )(?:no|not) [\w\x60-]`)

// IsRule reports whether s states a rule, a decision or a change.
func IsRule(s string) bool { return ruleLanguage().MatchString(s) }

// ruleMarker opens what a rule or decision names: the words after it are
// its object ("instead of gorm", "not moment", "never with toFixed", "we
// use date-fns"). A change's old and new things are read by
// ReadReplacement ("from Jest to Vitest").
var ruleMarker = lazyRegexp(`(?i)\b(?:instead of|rather than|in favou?r of|not|no|never(?: use| add| with| call| write| edit| commit)?|no longer(?: use| uses| using| need)?|don't(?: use| add)?|do not(?: use| add)?|avoid|we(?:'ll| will)? use|always use|picked|chose|went with|settled on)\b`)

// objectWords are the up to three words after position i of s, lower-cased,
// split at anything that is not a letter or a digit ("CSS-in-JS" is css,
// in, js; "Intl.NumberFormat" is intl, numberformat); the object ends at a
// clause's end (",", ";", ":", a sentence's end, a conjunction).
func objectWords(s string, i int) []string {
	var out []string
	tokens := 0
	for tokens < 3 {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '`' || s[i] == '"' || s[i] == '\'') {
			i++
		}
		j := i
		for j < len(s) {
			c := s[j]
			if c == ' ' || c == '\t' || c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '"' || c == '!' || c == '?' || c == '\n' {
				break
			}
			if c == '.' && (j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\n') {
				break
			}
			j++
		}
		if j == i {
			break
		}
		tok := s[i:j]
		if low := strings.ToLower(tok); low == "and" || low == "or" || low == "but" || low == "so" || low == "because" {
			break
		}
		tokens++
		out = append(out, splitWords(tok)...)
		i = j
		if i < len(s) && s[i] != ' ' && s[i] != '`' && s[i] != '\'' {
			break // a clause ends here
		}
	}
	return out
}

// splitWords is s's runs of letters and digits, lower-cased.
func splitWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// RuleSubjects returns the words a rule or decision in s names as its
// object, lower-cased: "We decided to use sqlc instead of gorm" gives
// gorm (and sqlc), "Not moment: it's deprecated" moment, "never with
// toFixed" tofixed, "moving the tests from Jest to Vitest" jest and
// vitest. It returns nil when s states no rule (IsRule).
func RuleSubjects(s string) []string {
	if !IsRule(s) {
		return nil
	}
	var out []string
	for _, loc := range ruleMarker().FindAllStringIndex(s, -1) {
		out = append(out, objectWords(s, loc[1])...)
	}
	if r, ok := ReadReplacement(s); ok {
		out = append(append(out, r.Old...), r.New...)
	}
	return out
}

// A change of what is used: the old thing and the new.
var (
	// "X instead of Y", "X rather than Y", "X in favour of Y" (Y old; in
	// favour of names the new: handled by its own pattern).
	insteadOf = lazyRegexp(`(?i)\b(?:instead of|rather than)\b`)
	inFavour  = lazyRegexp(`(?i)\b(?:drop(?:ped|ping)?|remov(?:e|ed|ing)|abandon(?:ed|ing)?|deprecat(?:e|ed|ing)) ((?:\S+ ){1,3}?)in favou?r of\b`)
	// "switch(ed) … from Y to X", "mov(ed|ing) … from Y to X",
	// "migrat(ed|ing) … from Y to X", "go from Y to X".
	changeVerb = lazyRegexp(`(?i)\b(?:switch(?:ed|ing|es)?|mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|chang(?:e|ed|es|ing)|go(?:ing)?|went|port(?:ed|ing)?|transition(?:ed|ing)?)\b`)
	fromWord   = lazyRegexp(`(?i)\bfrom\b`)
	toWord     = lazyRegexp(`(?i)\b(?:to|with)\b`)
	// "replac(e|ed|ing) Y with X", "Y (is|was) replaced by X".
	replaceWith = lazyRegexp(`(?i)\breplac(?:e|ed|es|ing)\b`)
	replacedBy  = lazyRegexp(`(?i)\b(?:is|was|are|were|got|has been|have been) replaced (?:by|with)\b`)
	// "no longer use(s) Y", "stopped using Y", "dropped Y".
	noLonger = lazyRegexp(`(?i)\b(?:no longer (?:use|uses|using|need|needs|run|runs)?|stopped using|don't use \w+ anymore|got rid of)\b`)
	// "switched to X", "moved to X", "migrated to X" (no old thing named).
	switchedTo = lazyRegexp(`(?i)\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|changed) (?:\w+ ){0,3}?to\b`)
)

// Replacement is a change a statement reports: what is used now (New) and
// what it replaces (Old), as lower-case words. Either may be empty ("we
// no longer use Redis" names no new thing; "we switched to Vitest" no old
// one).
type Replacement struct {
	New []string
	Old []string
}

// ReadReplacement reads a change from s: "X instead of Y", "from Y to X"
// after a verb of change, "replacing Y with X", "Y was replaced by X",
// "no longer use Y", "switched to X". ok is false when s reports none.
func ReadReplacement(s string) (r Replacement, ok bool) {
	if loc := replacedBy().FindStringIndex(s); loc != nil {
		r.Old = lastWords(s[:loc[0]], 3)
		r.New = objectWords(s, loc[1])
		return r, len(r.Old) > 0
	}
	if loc := replaceWith().FindStringIndex(s); loc != nil {
		rest := s[loc[1]:]
		if w := toWord().FindStringIndex(rest); w != nil && !strings.ContainsAny(rest[:w[0]], ",;:.") {
			r.Old = splitWords(rest[:w[0]])
			r.New = objectWords(rest, w[1])
			return r, len(r.Old) > 0
		}
	}
	if m := inFavour().FindStringSubmatchIndex(s); m != nil {
		r.Old = splitWords(s[m[2]:m[3]])
		r.New = objectWords(s, m[1])
		return r, len(r.Old) > 0
	}
	if loc := insteadOf().FindStringIndex(s); loc != nil {
		r.Old = objectWords(s, loc[1])
		r.New = usedWords(s[:loc[0]])
		return r, len(r.Old) > 0
	}
	if v := changeVerb().FindStringIndex(s); v != nil {
		rest := s[v[1]:]
		if f := fromWord().FindStringIndex(rest); f != nil && !strings.ContainsAny(rest[:f[0]], ",;:") {
			after := rest[f[1]:]
			if t := toWord().FindStringIndex(after); t != nil && !strings.ContainsAny(after[:t[0]], ",;:.") {
				r.Old = splitWords(after[:t[0]])
				r.New = objectWords(after, t[1])
				return r, len(r.Old) > 0
			}
		}
	}
	if loc := noLonger().FindStringIndex(s); loc != nil {
		r.Old = objectWords(s, loc[1])
		return r, len(r.Old) > 0
	}
	if loc := switchedTo().FindStringIndex(s); loc != nil {
		r.New = objectWords(s, loc[1])
		return r, len(r.New) > 0
	}
	return r, false
}

// useVerb ends the words before what a decision uses ("we use Atlas …",
// "decided to go with chi …").
var useVerb = lazyRegexp(`(?i)\b(?:use|uses|using|go with|went with|adopt|adopted|pick|picked|choose|chose|keep|prefer|move|moving|put|run|store)\b`)

// usedWords are the words right after the last verb of use in s ("From
// now on we use Atlas for migrations" gives atlas, for, migrations), or
// nil without one.
func usedWords(s string) []string {
	locs := useVerb().FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return nil
	}
	return objectWords(s, locs[len(locs)-1][1])
}

// lastWords are the last n words of s, lower-cased.
func lastWords(s string, n int) []string {
	w := splitWords(s)
	if len(w) > n {
		w = w[len(w)-n:]
	}
	return w
}
