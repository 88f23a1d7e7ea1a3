package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/text"
)

// The heuristic extractor's knowledge filter. A coding session's transcript
// is mostly chatter: the user asking the agent for things, the agent saying
// what it is about to do or just did, questions, acknowledgements, tool
// output and code, one-off progress ("Tests pass now."), jokes. What is
// worth remembering is rarer: decisions and their reasons, preferences and
// conventions, commands, environment facts, bugs with cause and fix, what
// changed and what is current, project status. The filter reads a
// transcript as messages ("User: …" and "Assistant: …" lines, as
// text.NormalizeTranscript writes them), drops code and verse, and keeps a
// sentence only when it states something:
//
//   - the user's declarative sentences (the user is the authority on the
//     project), unless they are questions, greetings, acknowledgements,
//     requests to the agent or one-off progress;
//   - the agent's sentences only with a knowledge marker (a cause, a fix, a
//     rule, a decision, a status, a command), never its narration ("Let
//     me…", "I'll…", "Added the…");
//   - a request to the agent only when it sets a rule ("from now on",
//     "always", "never", "every", "in this repo", a command in backticks).
//
// Adjacent kept sentences of one message that belong together (a decision
// and its reason, a sentence opening with "because", "so", "it", "this")
// stay one fact. Text that is not a transcript (a memory's content) is
// read as the user's.

// speaker is who wrote a message.
type speaker uint8

const (
	speakerUnknown speaker = iota
	speakerUser
	speakerAgent
)

// message is one turn of a transcript.
type message struct {
	who  speaker
	text string
}

// transcriptLabel starts a message in a normalized transcript.
var transcriptLabel = lazyRegexp(`^(User|Human|Assistant|Claude|Agent):[ \t]?`)

// splitTranscript splits body into its messages. isTranscript is false for
// text without a "User:" or "Assistant:" line: then it is one message of
// unknown speaker.
func splitTranscript(body string) (msgs []message, isTranscript bool) {
	var cur *message
	var b strings.Builder
	flush := func() {
		if cur != nil {
			cur.text = b.String()
			msgs = append(msgs, *cur)
		}
		b.Reset()
	}
	for _, line := range strings.Split(body, "\n") {
		if m := transcriptLabel().FindStringSubmatch(line); m != nil {
			flush()
			who := speakerAgent
			if m[1] == "User" || m[1] == "Human" {
				who = speakerUser
			}
			cur = &message{who: who}
			isTranscript = true
			b.WriteString(line[len(m[0]):])
			b.WriteByte('\n')
			continue
		}
		if cur == nil {
			cur = &message{who: speakerUnknown}
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return msgs, isTranscript
}

// creativeRequest is a prompt asking for a joke, a poem or the like: the
// agent's answer to it is not knowledge.
var creativeRequest = lazyRegexp(`(?i)\b(?:haikus?|poems?|limericks?|jokes?|sonnets?|songs?|raps?|riddles?|puns?|rhymes?|stor(?:y|ies)|verses?|fun fact)\b`)

// omittedMarker is the line a shortened transcript carries where it left
// text out.
var omittedMarker = lazyRegexp(`^\[\.\.\. .* omitted \.\.\.\]$`)

// proseLine is a line of prose; gap says lines were left out before it.
type proseLine struct {
	text string
	gap  bool
}

// proseLines returns a message's lines that are prose: fenced code blocks,
// lines that look like code, logs or diffs, and runs of verse (three or
// more short lines in a row that are not a list) are left out.
func proseLines(msg string) []proseLine {
	lines := strings.Split(msg, "\n")
	var out []proseLine
	inFence, gap := false, false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			inFence, gap = !inFence, true
			continue
		}
		if inFence || l == "" || omittedMarker().MatchString(l) || codeLike(l) {
			gap = gap || l != ""
			continue
		}
		// Verse: a run of short lines that are not list items.
		j := i
		for j < len(lines) && isVerseLine(strings.TrimSpace(lines[j])) {
			j++
		}
		if j-i >= 3 {
			i, gap = j-1, true
			continue
		}
		out = append(out, proseLine{l, gap})
		gap = false
	}
	return out
}

func isVerseLine(l string) bool {
	if l == "" || listItem().MatchString(l) || strings.HasPrefix(l, "```") {
		return false
	}
	return len(strings.Fields(l)) <= 10
}

var listItem = lazyRegexp(`^(?:[-*•+]|\d+[.)])\s`)

// codeLine matches lines that are code, shell, logs or diffs rather than
// prose.
var codeLine = lazyRegexp(`^(?:\$ |> |//|/\*|\*/|#include|#!|import |package |func |return |const |var |let |type |if \(|for \(|} |}$|{$|<[/A-Za-z][^>]*>|at [\w.$<>]+ \(|goroutine \d|panic: |--- (?:FAIL|PASS)|=== RUN|ok  |FAIL\b|@@ |\+\+\+ |--- a/|diff --git|\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d)`)

// codeLike reports whether a line is code rather than prose: it starts
// like code, ends like a block, or is mostly symbols.
func codeLike(l string) bool {
	if codeLine().MatchString(l) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(l)
	if last == '{' || last == ';' && !strings.Contains(l, " ") {
		return true
	}
	if strings.Contains(l, " := ") || strings.Contains(l, ") => ") || strings.Contains(l, "();") {
		return true
	}
	return symbolShare(l) > 0.3
}

// symbolShare is the share of a line's non-space characters that are
// neither letters nor digits nor ordinary punctuation.
func symbolShare(l string) float64 {
	n, sym := 0, 0
	for _, r := range l {
		if unicode.IsSpace(r) {
			continue
		}
		n++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(".,;:!?'\"-()`’/", r) {
			sym++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sym) / float64(n)
}

// leadIn is a discourse marker or acknowledgement at a sentence's start
// ("OK, …", "Right, …", "Also …"); the statement is what follows it.
var leadIn = lazyRegexp(`(?i)^(?:ok(?:ay)?|k|lol|lmao|haha+|hehe|heh|wow|oops|ugh|yay|omg|right|good|great|yes|yeah|yep|yup|sure|perfect|cool|nice|alright|also|and|but|so|now|then|actually|anyway|well|oh|hmm|btw|hey|hi|hello|thanks|thank you|got it|understood|noted|sounds good|makes sense|good call|good catch|true|exactly|agreed|lgtm|one more thing|quick question|by the way|for the record|note that|fyi|heads up|to be clear|just so you know|keep in mind that)\b[\s,:;!.—–-]*`)

// noteLeadIn are lead-ins that announce knowledge.
var noteLeadIn = lazyRegexp(`(?i)^(?:by the way|for the record|note that|fyi|heads up|to be clear|just so you know|keep in mind that)\b`)

// stripLeadIns removes lead-ins and leading symbols (emoji, quotes) from
// s; note reports whether one of them announced knowledge.
func stripLeadIns(s string) (rest string, note bool) {
	for {
		t := strings.TrimLeftFunc(s, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '`' && r != '/' && r != '.' && r != '#' && r != '*'
		})
		if noteLeadIn().MatchString(t) {
			note = true
		}
		loc := leadIn().FindStringIndex(t)
		if loc == nil || loc[1] == 0 {
			return t, note
		}
		// A lead-in is only one when something follows it as a separate
		// word ("Now" in "Nowhere" is not).
		if loc[1] < len(t) {
			if r, _ := utf8.DecodeRuneInString(t[loc[1]-1:]); unicode.IsLetter(r) {
				return t, note
			}
		}
		s = t[loc[1]:]
	}
}

// questionStart opens a question even without a question mark.
var questionStart = lazyRegexp(`(?i)^(?:how|what|why|which|where|when|who|whose|can (?:you|we|i)|could (?:you|we|i)|would (?:you|it)|will you|should (?:i|we)|shall (?:i|we)|do (?:you|we|i)|does|did (?:you|we)|is (?:there|it|this|that)|are (?:there|we|you)|any (?:idea|chance|thoughts)|want me to|anything else|mind if)\b`)

// agentNarration opens the agent's account of its own actions and plans.
var agentNarration = lazyRegexp(`(?i)^(?:let me|let's|i'll|i will|i'm|i am|i've|i have|i'd|i can|i could|i found|i see|i notice|i checked|i added|i updated|i changed|i removed|i ran|i made|i think|i need|i wrote|i just|now i|now let|first,? i|next,? i|then i|here's|here is|here are|there's|there is|there are|done\b|all set|all (?:tests|checks|packages|files|\w+ tests)|ready|great|perfect|good news|looks good|that explains|that worked|it works|it worked|nothing else|no problem|you too|happy to|glad to|(?:added|removed|renamed|reverted|switched|updated|created|fixed|moved|pushed|deleted|installed|ported|converted|replaced|migrated|changed|wrote|implemented|configured|enabled|disabled|refactored|cleaned|merged|committed|deployed|generated|set up|started|stopped|tested|verified|confirmed|applied|registered|wired|documented|scaffolded)\b)`)

// progressiveStart opens a sentence about what is being done right now.
var progressiveStart = lazyRegexp(`(?i)^(?:running|checking|looking|switching|reading|searching|adding|updating|fixing|writing|installing|starting|trying|working on|investigating|profiling|reproducing|porting|converting|migrating now)\b`)

// progress is a one-off report of how a run went.
var progress = lazyRegexp(`(?i)\b(?:tests?|specs?|builds?|checks?|lint|ci|suite|packages?|files?|it|everything|the app|the page|the chart)\b[^.;]*\b(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing)?|is green|are green|is red|succeed(?:s|ed)?|compiles?|runs? (?:fine|again|now)|works? (?:now|again|fine))\b|\bnow takes\b|\bnow renders\b|\btakes? about \d`)

// symptom is a problem described in the present.
var symptom = lazyRegexp(`(?i)\b(?:freezes|freezing|crashes|crashing|hangs|hanging|keeps? (?:failing|crashing|breaking|redirecting|timing out)|is (?:broken|slow|failing|timing out|down|hanging)|are (?:broken|slow|failing|timing out)|doesn't work|does not work|isn't working|is not working|stopped working|throws|errors out|is off by|are off by|(?:we|i) (?:have|got|hit|see|are seeing|found) (?:a|an|another|the same) (?:bug|problem|issue|regression|error)|there(?:'s| is) (?:a|an|another) (?:bug|problem|issue|regression))\b`)

// causal says why.
var causal = lazyRegexp(`(?i)\b(?:because|caused by|due to|so\b|which is why|that's why|since|broke|bit us)\b`)

// ephemeral names a time that makes a statement one-off.
var ephemeral = lazyRegexp(`(?i)\b(?:yesterday|today|tonight|tomorrow|this morning|this afternoon|right now|at the moment|just now|in the meantime)\b`)

// requestVerb opens a request to the agent.
var requestVerb = lazyRegexp(`(?i)^(?:please\b|pls\b|(?:write|add|run|make|fix|create|rename|remove|delete|update|change|show|tell|explain|look|check|go|start|try|move|implement|refactor|build|deploy|push|commit|revert|help|give|find|open|read|install|put|replace|convert|clean|format|generate|debug|review|draft|split|merge|bump|undo|redo|stop|continue|finish|wrap|port|rewrite|summarize|list|print|paste|grep|search|profile|reproduce|investigate|document|translate|draw|compose|suggest|ship|send|drop|skip|ignore|do|set|use|switch|apply|keep|let's (?:look|see|try|check|do|get|start|take|move|work)|can you|could you|would you|will you)\b)`)

// pleaseRequest is a sentence that asks politely ("…, please keep to
// them.", "Run the tests please.").
var pleaseRequest = lazyRegexp(`(?i)(?:^|[\s,])(?:please|pls)\b`)

// generality marks a request that sets a rule rather than asks for one
// thing.
var generality = lazyRegexp("(?i)\\b(?:from now on|going forward|from here on|always|never|every|each|per|whenever|anytime|in this (?:repo|repository|codebase|project|team)|don't|do not|nobody|no one|must|instead of|rather than|by default)\\b|\\bnot \\w+[,;]|`[^`]+`\\s*(?:to|for|before|after|from|when|whenever)\\b|\\b(?:with|using|via|by running) `[^`]+`")

// knowledgeMarker is what makes a sentence knowledge: a decision, a rule or
// preference, a cause or fix, a status, a command or an environment fact.
var knowledgeMarker = lazyRegexp("(?i)\\b(?:decided|decision|we(?:'ll| will| are going to)? (?:use|go with|switch|stick with|keep)|chose|chosen|picked|went with|settled on|switch(?:ed|ing)? (?:\\w+ )*(?:from|to)|mov(?:ed|ing) (?:\\w+ )*from|replac(?:ed|ing)|instead of|rather than|in favou?r of|no longer|deprecated|from now on|going forward|not negotiable|prefer(?:s|red)?|always|never|must|should always|convention|policy|don't|do not|nobody|no one|mandatory|because|caused by|the cause|root cause|due to|which is why|that's why|that is why|so that|came from|comes from|the fix|fixed by|the bug|the problem was|the issue was|turned out|broke|regression|is done|are done|shipped|released|in progress|blocked on|blocked by|postponed|is next|are next|on hold|deferred|is gone|runs on|deployed (?:on|to)|lives? in|is declared in|is stored|are stored|is cached|are cached|environment variable|listens on|port \\d+|v\\d+\\.\\d+)\\b|`[^`]+`|(?:^|[,;:] )no [a-z]")

// shortMinChars: shorter sentences are never knowledge.
const shortMinChars = 12

// fragmentMaxWords: a sentence of fewer words needs a verb to be kept.
const fragmentMaxWords = 9

// hasVerb reports whether s has a finite verb (an auxiliary, a copula, a
// contraction, a past form or a common present form): a fragment without
// one ("Quick status check.") states nothing.
func hasVerb(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		w = strings.ReplaceAll(w, "’", "'")
		if verbWords[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "'re") ||
			strings.HasSuffix(w, "'ll") || strings.HasSuffix(w, "'ve") || strings.HasSuffix(w, "'d") ||
			len(w) > 4 && strings.HasSuffix(w, "ed") {
			return true
		}
	}
	return false
}

var verbWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`is are was were be been being am has have had do does did will would can could should
		must may might shall use uses need needs go goes live lives come comes take takes start starts return returns
		store stores send sends keep keeps work works call calls hit hits cache caches read reads write writes generate
		generates deploy deploys apply applies get gets show shows handle handles expect expects want wants like likes
		prefer prefers verify verifies render renders point points talk talks depend depends break breaks belong belongs
		contain contains mean means require requires support supports own owns hold holds make makes host hosts serve
		serves proxy proxies run runs pin pins skip skips answer answers sit sits stay stays wait waits retry retries
		paginate paginates rate limit limits lint lints format formats test tests build builds ship ships block blocks
		map maps wrap wraps pass passes log logs reset resets sync syncs cost costs happen happens`) {
		verbWords[w] = true
	}
}

// statement is one kept sentence.
type statement struct {
	text   string
	marked bool // it has a knowledge marker
}

// knowledgeSentence decides whether one sentence of who is knowledge, and
// returns it without lead-ins.
func knowledgeSentence(s string, who speaker) (string, bool) {
	if strings.HasSuffix(s, "?") || pleasantry().MatchString(s) {
		return "", false
	}
	rest, note := stripLeadIns(s)
	rest = strings.TrimSpace(rest)
	// A sentence shorter than a fact ("We use date-fns.") may still join
	// its neighbour (knowledgeStatements), when it says something.
	if n := utf8.RuneCountInString(rest); n < shortMinChars || n < FactMinChars && (len(strings.Fields(rest)) < 3 || !hasVerb(rest)) ||
		strings.HasSuffix(rest, "?") || symbolShare(rest) > 0.3 {
		return "", false
	}
	if questionStart().MatchString(rest) || progressiveStart().MatchString(rest) || pleasantry().MatchString(rest) {
		return "", false
	}
	marked := note || knowledgeMarker().MatchString(rest)
	switch who {
	case speakerAgent:
		// The agent's words are knowledge only when they say so.
		if agentNarration().MatchString(rest) || !marked {
			return "", false
		}
	default:
		if strings.HasPrefix(strings.ToLower(rest), "let me ") || agentNarration().MatchString(rest) && who == speakerUnknown && firstPerson(rest) {
			return "", false
		}
		if (requestVerb().MatchString(rest) || pleaseRequest().MatchString(rest)) && !generality().MatchString(rest) {
			return "", false
		}
		if addressesAgent(rest) && !marked && !generality().MatchString(rest) {
			return "", false
		}
		// A short fragment without a verb states nothing ("Quick status
		// check before the meeting."); longer ones are kept, since the
		// verb list cannot know every verb.
		if !marked && len(strings.Fields(rest)) < fragmentMaxWords && !hasVerb(rest) {
			return "", false
		}
	}
	// The agent reporting a run is one-off even when it says why ("One
	// test fails because …").
	if progress().MatchString(rest) && (who == speakerAgent || !strongMarker(rest)) {
		return "", false
	}
	// A problem reported as it happens ("The chart freezes the tab.") is
	// the start of a fix, not knowledge; its cause and fix are.
	if who != speakerUnknown && symptom().MatchString(rest) && !decisive(rest) && !causal().MatchString(rest) {
		return "", false
	}
	// In a working session "yesterday" or "right now" makes a statement
	// one-off; in other text (a chat remembered as a memory) it dates an
	// event worth keeping.
	if who != speakerUnknown && ephemeral().MatchString(rest) && !strongMarker(rest) {
		return "", false
	}
	return upperFirst(rest), true
}

// strongMarker is a knowledge marker that outweighs a one-off time or a
// progress report: a rule, a decision, a cause.
var strongMarkerPattern = lazyRegexp(`(?i)\b(?:from now on|going forward|always|never|must|decided|decision|because|caused by|root cause|the fix|instead of|no longer|every|policy|convention)\b`)

func strongMarker(s string) bool { return strongMarkerPattern().MatchString(s) }

var firstPersonStart = lazyRegexp(`(?i)^(?:let me|i'll|i will|i'm going to|now i)\b`)

func firstPerson(s string) bool { return firstPersonStart().MatchString(s) }

var agentAddress = lazyRegexp(`(?i)\b(?:you|your|you're|you've|you'll)\b`)

// addressesAgent: a user sentence speaking to the agent ("Before you add
// more handlers, …") is about the conversation, not the project.
func addressesAgent(s string) bool { return agentAddress().MatchString(s) }

// upperFirst capitalises a statement whose lead-in was taken off ("right,
// the integration tests …"), unless its first word is a name or an
// identifier ("sqlc is configured …", "pnpm test …").
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsLower(r) {
		return s
	}
	word := s
	if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }); i > 0 {
		word = s[:i]
	}
	if w := strings.ToLower(word); !text.Stopwords[w] && !verbWords[w] && !requestVerb().MatchString(w) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// continuation opens a sentence that continues the one before it.
var continuation = lazyRegexp(`(?i)^(?:because|since|so\b|so that|that way|this way|otherwise|which|the reason|that's why|that is why|this is why|this means|that means|it\b|it's|its\b|this\b|that\b|these\b|those\b|they\b|their\b)`)

// danglingPronoun opens a sentence whose subject is in another sentence.
var danglingPronoun = lazyRegexp(`(?i)^(?:it|it's|its|this|that|these|those|they|they're|he|she)\b`)

// maxMergedChars caps a fact merged from several sentences.
const maxMergedChars = 600

// knowledgeStatements returns the knowledge in body: for a transcript, the
// sentences of its messages that state something, merged where they
// belong together; for other text, its sentences less chatter.
func knowledgeStatements(body string) []string {
	msgs, _ := splitTranscript(body)
	var out []string
	creative := false
	for _, m := range msgs {
		if m.who == speakerAgent && creative {
			continue // the joke or poem the user asked for
		}
		if m.who == speakerUser {
			creative = creativeRequest().MatchString(m.text) && !knowledgeMarker().MatchString(m.text)
		}
		var kept []statement
		prevKept := false
		pending := "" // a short statement waiting for the next one
		// A sentence joined to the one before it keeps its lead-in ("…
		// OK, so …"): a fact is always a run of its source's words, so one
		// cut from an ordinary memory restates it and is never proposed.
		for _, line := range proseLines(m.text) {
			if line.gap {
				prevKept, pending = false, ""
			}
			for _, s := range chatSentences(line.text) {
				if label := speakerLabel().FindString(s); label != "" {
					// Another speaker ("Caroline: …"): nothing joins across.
					s, prevKept, pending = strings.TrimSpace(s[len(label):]), false, ""
				}
				k, ok := knowledgeSentence(s, m.who)
				if !ok {
					prevKept, pending = false, ""
					continue
				}
				short := utf8.RuneCountInString(k) < FactMinChars
				joined := false // a short statement before it leads in
				switch {
				case short && prevKept && len(kept) > 0 && utf8.RuneCountInString(kept[len(kept)-1].text)+1+len(s) <= maxMergedChars:
					kept[len(kept)-1].text += " " + s
					continue
				case short:
					pending = k
					continue
				case pending != "":
					k, pending, joined = pending+" "+s, "", true
				}
				st := statement{text: k, marked: knowledgeMarker().MatchString(k)}
				if prevKept && len(kept) > 0 && belongsTogether(kept[len(kept)-1], st, s) &&
					utf8.RuneCountInString(kept[len(kept)-1].text)+1+utf8.RuneCountInString(s) <= maxMergedChars {
					last := &kept[len(kept)-1]
					last.text += " " + s
					last.marked = last.marked || st.marked
				} else if !joined && danglingPronoun().MatchString(s) {
					// "It's a Go service …" with nothing before it to say
					// what "it" is: not a statement on its own.
					prevKept, pending = false, ""
					continue
				} else {
					kept = append(kept, st)
				}
				prevKept = true
			}
		}
		for _, st := range kept {
			out = append(out, st.text)
		}
	}
	return out
}

// runOn is where a chat message runs two sentences together without
// punctuation ("lol nice Also write tests …", "ok back to work Run the
// tests"): a lower-case word, then a capitalised opener of a request or a
// new thought.
var runOn = lazyRegexp(`[a-z] (Also|Now|Then|Please|Can|Could|Would|Run|Write|Add|Make|Tell|Fix|Let's|Let|Go back|Remove|Rename|Show|Check) `)

// chatSentences splits a line into sentences (extractSentences) and splits
// run-on chat sentences further.
func chatSentences(line string) []string {
	var out []string
	for _, s := range extractSentences(line) {
		for {
			loc := runOn().FindStringIndex(s)
			if loc == nil {
				break
			}
			out = append(out, strings.TrimSpace(s[:loc[0]+1]))
			s = strings.TrimSpace(s[loc[0]+2:])
		}
		out = append(out, s)
	}
	return out
}

// decisivePattern is the language of a decision or a rule.
var decisivePattern = lazyRegexp(`(?i)\b(?:decided|decision|chose|chosen|picked|went with|settled on|switch(?:ed|ing)? (?:\w+ )*(?:from|to)|instead of|rather than|from now on|going forward|always|never|must|no longer|policy|convention|we(?:'ll| will)? use)\b`)

func decisive(s string) bool { return decisivePattern().MatchString(s) || IsDecisionContent(s) }

// belongsTogether reports whether next (raw: its sentence as written)
// continues prev: it opens with a connective or a pronoun, or the two
// share a term and exactly one of them is a decision or rule (the other
// its reason).
func belongsTogether(prev, next statement, raw string) bool {
	if continuation().MatchString(strings.TrimSpace(raw)) {
		return true
	}
	// A decision or rule and the sentence giving its reason, in either
	// order; two decisions are two facts, and so are a decision and a
	// statement of its own (a preference, a status).
	if decisive(prev.text) == decisive(next.text) {
		return false
	}
	reason := next
	if decisive(next.text) {
		reason = prev
	}
	if reason.marked && !causal().MatchString(reason.text) {
		return false
	}
	a := salientTerms(prev.text)
	for t := range salientTerms(next.text) {
		if a[t] {
			return true
		}
	}
	return false
}

// salientTerms are s's words of four or more letters that are not
// stopwords, with a plural or past ending taken off.
func salientTerms(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) < 4 || text.Stopwords[w] || verbWords[w] || commonWords[w] {
			continue
		}
		for _, suf := range []string{"es", "s", "ed"} {
			if len(w) > 4 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf)
				break
			}
		}
		out[w] = true
	}
	return out
}

// commonWords are frequent words that do not make two sentences about the
// same thing.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`this that with from into than then there their they them these those what when where which
		while will would should could about after before every always never from now only also just like make made more most
		much many some such very well good great file files code test tests thing things time times want need work`) {
		commonWords[w] = true
	}
}

// smallTalk is conversation about the conversation.
var smallTalk = lazyRegexp(`(?i)^(?:back to work|have a (?:nice|good|great) \w+|see you\b|let's go\b|all good\b|talk (?:to you )?(?:soon|later|tomorrow))`)

// promptGistMinWords: a prompt's gist shorter than this ("Go back.") says
// too little of what the session was doing.
const promptGistMinWords = 4

// PromptGist is what a user prompt asks or states, for a session's
// recovery digest: its sentences less greetings, acknowledgements,
// thanks, laughter and requests for a joke or a poem, each without its
// lead-in ("lol nice Also write tests …" is "write tests …"). ok is false
// when nothing of substance is left ("Hi! How's it going?", "Write a
// haiku about autumn leaves.", "ok thanks").
func PromptGist(prompt string) (gist string, ok bool) {
	var kept []string
	words := 0
	for _, line := range strings.Split(prompt, "\n") {
		for _, s := range chatSentences(line) {
			if creativeRequest().MatchString(s) && !knowledgeMarker().MatchString(s) {
				continue
			}
			rest, _ := stripLeadIns(s)
			rest = strings.TrimSpace(rest)
			n := len(strings.Fields(rest))
			if n == 0 || pleasantry().MatchString(rest) || smallTalk().MatchString(rest) || n < 3 && !strings.HasSuffix(rest, "?") {
				continue
			}
			if questionStart().MatchString(rest) && n < 5 {
				continue // "How's it going?"
			}
			kept = append(kept, upperFirst(rest))
			words += n
		}
	}
	if words < promptGistMinWords {
		return "", false
	}
	return strings.Join(kept, " "), true
}
