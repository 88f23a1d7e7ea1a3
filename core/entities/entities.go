package entities

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// Mention is one entity a text names.
type Mention struct {
	Name      string `json:"name"`      // as written: content[Start:End]
	Canonical string `json:"canonical"` // the graph's key (Canonical(Name))
	Type      string `json:"type"`
	Start     int    `json:"start"` // byte offsets of Name in the content
	End       int    `json:"end"`
	// Version is a version written right after the name ("Postgres 16",
	// "React v18"); the entity is the name, the version is an attribute
	// of this mention.
	Version string `json:"version,omitempty"`
	// Tentative marks a lone capitalised word that only opens a sentence
	// ("Alice said…", but also "Painting is fun"): the text alone cannot
	// tell a name from an ordinary word, so it is an entity only if the
	// store already knows one of that name.
	Tentative bool `json:"tentative,omitempty"`
}

// Text is what a mention records as written: the name and its version.
func (m Mention) Text() string {
	if m.Version == "" {
		return m.Name
	}
	return m.Name + " " + m.Version
}

// Canonical is the graph's key for a name: lower-cased, runs of
// whitespace collapsed to one space, trimmed.
func Canonical(name string) string {
	return strings.Join(strings.Fields(strings.ToLower(name)), " ")
}

// Generic reports whether a canonical name is not an entity by itself:
// empty or too short (under MinNameRunes, unless a curated tool), too long,
// or made only of stopwords, role words (user, assistant, sentence),
// pronouns, days and months and common words.
func Generic(canonical string) bool {
	if canonical == "" {
		return true
	}
	if _, ok := curated[canonical]; ok {
		return false
	}
	n := utf8.RuneCountInString(canonical)
	if n < MinNameRunes || n > maxNameRunes {
		return true
	}
	if !strings.ContainsRune(canonical, ' ') {
		return stoplike(canonical)
	}
	for _, w := range strings.Fields(canonical) {
		if !stoplike(w) {
			return false
		}
	}
	return true
}

// wordKind is the shape of one token.
type wordKind uint8

const (
	kOther   wordKind = iota
	kLower            // lower-case letters: "service"
	kCap              // capitalised word: "Melanie", "Jean-Luc"
	kAcronym          // two or more capitals: "LGBTQ", "AWS"
	kCamel            // inner capital: "TypeScript", "parseConfig"
	kNumber           // digits only
	kShape            // paths, dotted and snake names, versions, calls…
)

// token is one whitespace-separated word with its surrounding punctuation
// stripped.
type token struct {
	s, e      int // span of the word in the text
	w, lower  string
	kind      wordKind
	lineStart bool // first word of its line
	sentStart bool // first word of a sentence (or of a quote or bracket)
	brk       bool // punctuation or a line break separates it from the word before
	trail     string
	poss      bool // a possessive 's was stripped
	call      bool // written as a call: name() or name(args)
	label     bool // part of a speaker label ("Caroline:" opening a line)
	quoted    bool // opens a quotation
}

func isLeadPunct(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '{', '<', '`', '“', '‘', '«', '¿', '¡':
		return true
	}
	return false
}

func isTrailPunct(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '>', ',', ';', ':', '!', '?', '.', '`', '”', '’', '»', '…', '*':
		return true
	}
	return false
}

// tokenize splits text into words, recording sentence and line starts and
// the punctuation between words.
func tokenize(s string) []token {
	out := make([]token, 0, len(s)/6+4)
	i := 0
	newline, sentEnd, pendingBrk := true, true, false
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' {
				newline = true
			}
			i += size
			continue
		}
		fs := i
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += size
		}
		fe := i
		if isBullet(s[fs:fe]) {
			// List markers and rules ("-", "*", "•", "##", ">") keep the
			// line start for the word after them.
			pendingBrk = true
			continue
		}
		t := token{s: fs, e: fe, lineStart: newline}
		lead := false
		for t.s < t.e {
			r, size := utf8.DecodeRuneInString(s[t.s:t.e])
			if r == '*' && t.s+size < t.e && (s[t.s+size] == '.' || s[t.s+size] == '/' || s[t.s+size] == '*') {
				break // a glob: *.toml, **/x
			}
			if !isLeadPunct(r) && r != '*' {
				break
			}
			lead = true
			if r != '(' && r != '[' && r != '{' && r != '<' && r != '*' {
				t.quoted = true
			}
			t.s += size
		}
		// A call: name() or name(args); the word is the name.
		if p := strings.IndexByte(s[t.s:t.e], '('); p > 0 {
			inner := strings.TrimRight(s[t.s+p+1:t.e], ")].,;:!?\"'`")
			if !isShortSuffix(inner) {
				t.call = true
			}
			t.e = t.s + p
		}
		for t.e > t.s {
			r, size := utf8.DecodeLastRuneInString(s[t.s:t.e])
			if !isTrailPunct(r) {
				break
			}
			t.e -= size
		}
		t.trail = s[t.e:fe]
		if t.call {
			t.trail = trailAfterCall(s[t.e:fe])
		}
		if w := s[t.s:t.e]; len(w) > 1 && w[len(w)-1] == '+' && !strings.HasSuffix(w, "++") {
			if _, ok := curated[strings.ToLower(w)]; !ok {
				t.e-- // LGBTQ+
			}
		}
		if w := s[t.s:t.e]; len(w) > 2 {
			switch {
			case strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "'S"):
				t.e -= 2
				t.poss = true
			case strings.HasSuffix(w, "’s"):
				t.e -= len("’s")
				t.poss = true
			}
		}
		t.sentStart = newline || sentEnd || lead
		t.brk = newline || pendingBrk || lead
		newline = false
		if t.s >= t.e {
			// Punctuation only ("-", "—", "..."): a break, and a sentence
			// end when it says so.
			pendingBrk = true
			sentEnd = sentEnd || strings.ContainsAny(s[fs:fe], ".!?:…")
			continue
		}
		t.w = s[t.s:t.e]
		t.lower = strings.ReplaceAll(strings.ToLower(t.w), "’", "'")
		t.kind = kindOf(t.w)
		pendingBrk = t.trail != ""
		sentEnd = endsSentence(t)
		out = append(out, t)
	}
	markLabels(out)
	return out
}

// isBullet reports a field made only of list-marker characters.
func isBullet(f string) bool {
	for _, r := range f {
		switch r {
		case '-', '*', '•', '–', '—', '>', '#', '+', '=', '|', '~', '·':
		default:
			return false
		}
	}
	return true
}

// trailAfterCall is the punctuation after a call's closing parenthesis.
func trailAfterCall(rest string) string {
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		return rest[i+1:]
	}
	return ""
}

// isShortSuffix reports a parenthesised plural or gender ending: "word(s)",
// "friend(es)", not a call.
func isShortSuffix(inner string) bool {
	return shortSuffixes()[inner]
}

var shortSuffixes = lazySet(`s es ies en ren er ers ed d ing`)

// endsSentence reports whether the punctuation after t ends a sentence.
func endsSentence(t token) bool {
	if strings.ContainsAny(t.trail, "!?:…") {
		return true
	}
	if !strings.Contains(t.trail, ".") {
		return false
	}
	// "Dr. Smith", "e.g. this", "J. Doe": not an end.
	if titleWords()[t.lower] || utf8.RuneCountInString(t.w) == 1 && strings.HasPrefix(t.trail, ".") {
		return false
	}
	return true
}

func kindOf(w string) wordKind {
	var upper, lower, digit, other, letters int
	innerUpper := false // a capital inside a word: TypeScript, HTTPClient (not Jean-Luc)
	firstUpper := false
	prevJoin := false
	for i, r := range w {
		join := false
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
			if i == 0 {
				firstUpper = true
			} else if !prevJoin {
				innerUpper = true
			}
		case unicode.IsLower(r):
			lower++
			letters++
		case unicode.IsLetter(r) || unicode.IsMark(r):
			letters++ // uncased scripts
		case unicode.IsDigit(r):
			digit++
		case (r == '-' || r == '\'' || r == '’') && i > 0:
			join = true
		default:
			other++
		}
		prevJoin = join
	}
	switch {
	case other > 0 || digit > 0 && letters > 0:
		return kShape
	case digit > 0:
		return kNumber
	case upper == 0 && lower > 0:
		return kLower
	case upper > 0 && lower > 0 && (innerUpper || !firstUpper):
		return kCamel
	case firstUpper && lower == 0 && upper >= 2:
		return kAcronym
	case firstUpper && lower > 0:
		return kCap
	}
	return kOther
}

// markLabels marks speaker labels: one to three words opening a line and
// ending with a colon ("Caroline:", "Dr. Jones:", "User:"), the first one
// capitalised or a role word.
func markLabels(toks []token) {
	for i := 0; i < len(toks); i++ {
		if !toks[i].lineStart {
			continue
		}
		first := toks[i]
		if first.kind != kCap && first.kind != kAcronym && !roleWords()[first.lower] {
			continue
		}
		for j := i; j < len(toks) && j < i+3; j++ {
			t := toks[j]
			if j > i && (t.brk || t.lineStart) && !titleWords()[toks[j-1].lower] {
				break
			}
			if t.kind != kCap && t.kind != kAcronym && !roleWords()[t.lower] {
				break
			}
			if t.trail == ":" {
				for k := i; k <= j; k++ {
					toks[k].label = true
				}
				break
			}
			if t.trail != "" && !(t.trail == "." && titleWords()[t.lower]) {
				break
			}
		}
	}
}

// Link names the entities content mentions, in order of first appearance,
// each once (by canonical name), at most MaxMentions. It is deterministic,
// needs nothing but the text, and runs in a few microseconds per hundred
// characters.
func Link(content string) []Mention {
	toks := tokenize(content)
	l := linker{content: content, toks: toks, seen: map[string]int{}, lastTok: -1}
	l.run()
	return l.out
}

type linker struct {
	content string
	toks    []token
	out     []Mention
	seen    map[string]int // canonical → index in out
	// lastTok is the index of the last token that produced (or named) a
	// mention; lastOut the mention's index in out (-1 if deduplicated).
	lastTok, lastOut int
	capMid           map[string]int // capitalised words seen mid-sentence, and how often
}

func (l *linker) full() bool { return len(l.out) >= MaxMentions }

// add records a mention of content[s:e] produced by tokens up to tokIdx.
func (l *linker) add(s, e int, typ string, tokIdx int) {
	name := l.content[s:e]
	canon := Canonical(name)
	if Generic(canon) {
		return
	}
	l.lastTok = tokIdx
	if i, ok := l.seen[canon]; ok {
		l.lastOut = i
		return
	}
	l.seen[canon] = len(l.out)
	l.lastOut = len(l.out)
	l.out = append(l.out, Mention{Name: name, Canonical: canon, Type: typ, Start: s, End: e})
}

func (l *linker) run() {
	l.capMid = map[string]int{}
	for _, t := range l.toks {
		if t.kind == kCap && !t.sentStart && !t.label {
			l.capMid[t.lower]++
		}
	}
	for i := 0; i < len(l.toks) && !l.full(); {
		t := l.toks[i]
		switch {
		case t.label && !l.isNamedThing(t):
			i++
		case t.kind == kCap || t.kind == kAcronym:
			i = l.capRun(i)
		case t.kind == kShape || t.kind == kCamel || t.call:
			l.shape(i)
			i++
		case t.kind == kNumber:
			l.bareVersion(i)
			i++
		case t.kind == kLower:
			l.lowerWord(i)
			i++
		default:
			i++
		}
	}
}

// isNamedThing reports a label word that is an entity anyway: a curated
// tool or a shaped name ("Postgres:", "README.md:").
func (l *linker) isNamedThing(t token) bool {
	if c, ok := curated[t.lower]; ok && !c.ambiguous {
		return true
	}
	return t.kind == kShape || t.kind == kCamel
}

// capRun handles a run of capitalised words starting at i and returns the
// index after it.
func (l *linker) capRun(i int) int {
	j, words := i+1, 1
	for j < len(l.toks) && !l.toks[j].brk && !l.toks[j].label {
		if l.toks[j].kind == kCap || l.toks[j].kind == kAcronym {
			j++
			words++
			continue
		}
		// "Lord of the Rings", "Bank of America", "Vincent van Gogh".
		n := l.connector(j)
		if n == 0 {
			break
		}
		j += n
	}
	// A run may end with a word carrying punctuation ("Maria,"): brk is on
	// the word after it, so the run above already stops there.
	next := j
	if words > maxRunWords {
		return next // a title in Title Case, not a name
	}
	a, b := i, j-1
	initial := l.toks[a].sentStart
	droppedGreeting := false
	// Leading sentence openers ("Yesterday Melanie", "Hey Mel") and any
	// stopword, role word or date at either edge are not part of a name.
	for a <= b && (stoplike(l.toks[a].lower) && (initial || hardStop(l.toks[a].lower)) ||
		a == i && initial && b > a && l.opener(l.toks[a])) {
		if greetings()[l.toks[a].lower] {
			droppedGreeting = true
		}
		a++
	}
	// Trailing common words are the kind, not the name: "Stripe API".
	for b > a && stoplike(l.toks[b].lower) || b >= a && hardStop(l.toks[b].lower) {
		b--
	}
	if a > b {
		return next
	}
	// A role word, day or month inside: not a name.
	for k := a; k <= b; k++ {
		if hardStop(l.toks[k].lower) && !connectors()[l.toks[k].lower] {
			return next
		}
	}
	first := l.toks[a]
	single := a == b
	quoted := l.toks[i].quoted
	tentative := initial && single && !quoted && !l.confirmed(first)
	if tentative && (stoplike(first.lower) || l.opener(first)) {
		return next
	}
	if l.vocative(a, b, initial, droppedGreeting) {
		return next
	}
	typ := TypePerson
	if c, ok := curated[first.lower]; ok && single {
		typ = c.typ
	} else if quoted {
		typ = TypeUnknown // a title: "The Alchemist"
	} else {
		for k := a; k <= b; k++ {
			if l.toks[k].kind == kAcronym {
				typ = TypeUnknown
			}
		}
	}
	l.add(first.s, l.toks[b].e, typ, b)
	if tentative && l.lastTok == b && l.lastOut == len(l.out)-1 && l.out[l.lastOut].Start == first.s {
		l.out[l.lastOut].Tentative = true
	}
	return next
}

// opener reports a capitalised word that opens a sentence and is most
// likely a verb or an adverb: "Upgraded", "Seeing", "Finally".
func (l *linker) opener(t token) bool {
	if t.kind != kCap || l.confirmed(t) {
		return false
	}
	w := t.lower
	return strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ly")
}

func isStopword(w string) bool { return text.Stopwords[w] }

// hardStop reports words that are never part of a name wherever they
// stand: stopwords, role words and pronouns, days and months.
func hardStop(w string) bool {
	return isStopword(w) || roleWords()[w] || calendarWords()[w]
}

// confirmed reports whether a lone capitalised word opening a sentence is
// a name rather than an ordinary word: a curated tool, an acronym, or a
// word also capitalised mid-sentence in the same text. ("Oliver's" proves
// nothing: "Painting's a fun way" is as common.)
func (l *linker) confirmed(t token) bool {
	if stoplike(t.lower) {
		return false
	}
	if c, ok := curated[t.lower]; ok && (!c.ambiguous || !t.sentStart) {
		return true
	}
	mid := l.capMid[t.lower]
	if !t.sentStart && !t.label && t.kind == kCap {
		mid-- // this very word, after a dropped opener
	}
	return t.kind == kAcronym || mid > 0
}

// connectors join the capitalised words of one name.
var connectors = lazySet(`of the de da del della di van von der den la le du`)

// connector returns how many lower-case connector words start at j and
// are followed by a capitalised word of the same run (0 if none).
func (l *linker) connector(j int) int {
	for n := 0; n < 2 && j+n < len(l.toks); n++ {
		t := l.toks[j+n]
		if t.brk || t.kind != kLower || !connectors()[t.lower] || t.trail != "" {
			return 0
		}
		if k := j + n + 1; k < len(l.toks) && !l.toks[k].brk && (l.toks[k].kind == kCap || l.toks[k].kind == kAcronym) {
			return n + 1
		}
	}
	return 0
}

// vocative reports a name used to address someone: "Thanks, Evan!", "Hey
// John, ...", "you're right, Caroline." The addressee is the other party
// of the conversation, not what the memory is about.
func (l *linker) vocative(a, b int, initial, droppedGreeting bool) bool {
	last := l.toks[b]
	if last.poss {
		return false
	}
	after := b == len(l.toks)-1 || strings.ContainsAny(last.trail, ",!?.") && !strings.Contains(last.trail, ":")
	if !after {
		return false
	}
	if droppedGreeting || initial && a == 0 {
		return true
	}
	if a == 0 {
		return false
	}
	prev := l.toks[a-1]
	return l.toks[a].sentStart || strings.Contains(prev.trail, ",") || greetings()[prev.lower] && !l.toks[a].brk
}

// shape handles a token with a telling shape: paths, URLs, dotted, slashed
// and snake_case names, calls, CamelCase, versions.
func (l *linker) shape(i int) {
	t := l.toks[i]
	if c, ok := curated[t.lower]; ok && !c.ambiguous {
		l.add(t.s, t.e, c.typ, i)
		return
	}
	if v, standalone := version(t.w); v {
		if l.attachVersion(i) {
			return
		}
		if standalone {
			l.add(t.s, t.e, TypeVersion, i)
		}
		return
	}
	if typ := shapeType(t); typ != "" {
		l.add(t.s, t.e, typ, i)
	}
}

// attachVersion attaches token i, a version, to the mention made by the
// token right before it ("Postgres 16"). It reports whether it did.
func (l *linker) attachVersion(i int) bool {
	if l.lastTok != i-1 || l.toks[i].brk || l.lastOut < 0 || l.lastOut >= len(l.out) {
		return false
	}
	m := &l.out[l.lastOut]
	if m.Version == "" && m.Type != TypeVersion && m.Type != TypeFile && m.Type != TypeURL {
		m.Version = l.toks[i].w
	}
	l.lastTok = i
	return true
}

// bareVersion attaches a plain number after a curated tool: "Python 3",
// "Postgres 16".
func (l *linker) bareVersion(i int) {
	if l.lastTok != i-1 || l.lastOut < 0 || l.lastOut >= len(l.out) {
		return
	}
	if _, ok := curated[l.out[l.lastOut].Canonical]; ok && len(l.toks[i].w) <= 4 {
		l.attachVersion(i)
	}
}

// lowerWord handles a lower-case word: a curated tool, or a kind noun
// ("service", "library") that types the name before it or, after a plain
// word, makes a compound name ("the billing service").
func (l *linker) lowerWord(i int) {
	t := l.toks[i]
	if c, ok := curated[t.lower]; ok && !c.ambiguous {
		l.add(t.s, t.e, c.typ, i)
		return
	}
	typ, ok := headTypes[t.lower]
	if !ok || i == 0 || t.brk {
		return
	}
	prev := l.toks[i-1]
	if l.lastTok == i-1 && l.lastOut >= 0 && l.lastOut < len(l.out) {
		m := &l.out[l.lastOut]
		if m.Type == TypePerson || m.Type == TypeUnknown || m.Type == TypeTool && typ != TypeProject {
			m.Type = typ
		}
		return
	}
	if typ == TypeProject || prev.kind != kLower || prev.label || stoplike(prev.lower) || utf8.RuneCountInString(prev.w) < MinNameRunes {
		return // "a fan project" names no project; "the Cairn project" does (above)
	}
	if hasMarkOrDigit(prev.w) {
		return
	}
	l.add(prev.s, t.e, typ, i)
}

func hasMarkOrDigit(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// version reports whether w is a version: v1, v1.2, 1.2.3, 1.2.3-rc1.
// standalone is true for the forms that name a release on their own (v1.2,
// 1.2.3); 1.22 or v2 only count right after a name.
func version(w string) (ok, standalone bool) {
	hadV := false
	if len(w) > 1 && (w[0] == 'v' || w[0] == 'V') {
		hadV = true
		w = w[1:]
	}
	core, _, _ := strings.Cut(w, "-")
	if core == "" {
		return false, false
	}
	parts := strings.Split(core, ".")
	for _, p := range parts {
		if p == "" || len(p) > 6 {
			return false, false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false, false
			}
		}
	}
	if !hadV && len(parts) < 2 {
		return false, false
	}
	return true, len(parts) >= 3 || hadV && len(parts) >= 2
}

// slashPairs are words whose slashed pairs are prose: and/or, he/she,
// read/write.
var slashPairs = lazySet(`yes no on off and or read write client server input output true false he she his her him them they
	we us either neither day night week month year am pm mom dad male female man woman boy girl up down left right in
	out before after this that if then`)

// domainHosts are the first path segments that make a slashed name a
// package import path.
func isDomain(seg string) bool {
	dot := strings.LastIndexByte(seg, '.')
	return dot > 0 && tlds()[strings.ToLower(seg[dot+1:])] || strings.HasPrefix(seg, "gopkg.in") || strings.HasPrefix(seg, "golang.org")
}

// shapeType classifies a shaped token; "" means it names nothing.
func shapeType(t token) string {
	w, lower := t.w, t.lower
	if !hasLetter(w) {
		return ""
	}
	switch {
	case strings.Contains(w, "://") || strings.HasPrefix(lower, "www."):
		return TypeURL
	case strings.HasPrefix(w, "@"):
		if strings.Count(w, "/") == 1 && len(w) > 3 {
			return TypeLibrary
		}
		return ""
	case strings.HasPrefix(w, "*.") || strings.HasPrefix(w, "**/"):
		return TypeFile
	case strings.HasPrefix(w, "/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || strings.HasPrefix(w, "~/"):
		if len(w) < 3 {
			return ""
		}
		return TypeFile
	case strings.Contains(w, "/"):
		return slashedType(w)
	case strings.Contains(w, "."):
		return dottedType(w)
	case strings.Contains(w, "_"):
		if isSnake(w) {
			return TypeCode
		}
		return ""
	case t.call:
		if isIdent(w) {
			return TypeCode
		}
		return ""
	case t.kind == kCamel:
		if !isIdent(w) {
			return ""
		}
		if unicode.IsUpper(firstRune(w)) {
			return TypeTool
		}
		return TypeCode
	case t.kind == kShape:
		// Letters and digits: EC2, S3, H100 (an upper-case start, no
		// lower-case letters).
		if unicode.IsUpper(firstRune(w)) && isIdent(w) && strings.ToUpper(w) == w {
			return TypeUnknown
		}
	}
	return ""
}

func slashedType(w string) string {
	w = strings.TrimSuffix(w, "/")
	segs := strings.Split(w, "/")
	allDigits := true
	for _, s := range segs {
		if s == "" {
			return ""
		}
		if hasLetter(s) {
			allDigits = false
		}
	}
	if allDigits {
		return "" // 24/7, 10/12/2023
	}
	if len(segs) == 2 {
		a, b := strings.ToLower(segs[0]), strings.ToLower(segs[1])
		if utf8.RuneCountInString(a) < 2 || utf8.RuneCountInString(b) < 2 || slashPairs()[a] || slashPairs()[b] ||
			isStopword(a) || isStopword(b) {
			return "" // w/o, n/a, and/or, read/write
		}
	}
	if isDomain(segs[0]) {
		return TypeLibrary // github.com/x/y
	}
	last := segs[len(segs)-1]
	if dot := strings.LastIndexByte(last, '.'); dot > 0 && fileExts()[strings.ToLower(last[dot+1:])] || len(segs) >= 3 {
		return TypeFile
	}
	return TypeLibrary // net/http, encoding/json
}

func dottedType(w string) string {
	parts := strings.Split(w, ".")
	long := 0
	for _, p := range parts {
		if p == "" {
			return "" // "wait...what", "a..b"
		}
		if utf8.RuneCountInString(p) >= 2 {
			long++
		}
	}
	if long == 0 {
		return "" // e.g, a.m, U.S
	}
	last := strings.ToLower(parts[len(parts)-1])
	switch {
	case fileExts()[last] && parts[0] != "":
		return TypeFile
	case tlds()[last] && len(parts) >= 2 && lettersOrHyphen(parts):
		return TypeURL
	case isIdentDotted(parts) && long == len(parts):
		return TypeCode // pkg.Func, os.path.join
	}
	return ""
}

func isSnake(w string) bool {
	if !isIdent(w) {
		return false
	}
	for i := 1; i < len(w)-1; i++ {
		if w[i] == '_' && w[i-1] != '_' && w[i+1] != '_' && isAlnum(w[i-1]) && isAlnum(w[i+1]) {
			return hasLetter(w)
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isIdent reports an ASCII identifier: letters, digits, underscores, not
// starting with a digit.
func isIdent(w string) bool {
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) && w[i] != '_' {
			return false
		}
	}
	return true
}

func isIdentDotted(parts []string) bool {
	for _, p := range parts {
		if !isIdent(p) {
			return false
		}
	}
	return true
}

func lettersOrHyphen(parts []string) bool {
	for _, p := range parts {
		for _, r := range p {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' {
				return false
			}
		}
	}
	return true
}

func hasLetter(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func firstRune(w string) rune {
	r, _ := utf8.DecodeRuneInString(w)
	return r
}

// SpeakerLabels returns the canonical names of the speaker labels opening
// the lines of content ("Caroline: ..." gives "caroline"), which are not
// entities of the memory unless its text names them too.
func SpeakerLabels(content string) []string {
	toks := tokenize(content)
	var out []string
	for i := 0; i < len(toks); i++ {
		if !toks[i].label {
			continue
		}
		j := i
		for j+1 < len(toks) && toks[j+1].label && !toks[j+1].lineStart {
			j++
		}
		c := Canonical(content[toks[i].s:toks[j].e])
		if len(out) == 0 || out[len(out)-1] != c {
			out = append(out, c)
		}
		i = j
	}
	return out
}
