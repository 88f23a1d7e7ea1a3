package sessions

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Session continuity (docs/design/pipeline.md, "Session continuity"):
// checkpoints of what a session was doing, a recovery digest when it comes
// back after a compaction or a resume, what it was offered and used of its
// memories, and a score at its end.

// Checkpoint triggers.
const (
	TriggerPeriodic      = "periodic"
	TriggerPreCompaction = "pre_compaction"
	TriggerSessionEnd    = "session_end"
	TriggerAgent         = "agent"
	TriggerExplicit      = "explicit"
)

// Buffer rules: checkpoints of one session within the debounce window
// merge; a checkpoint keeps at most 20 queries and 10 remembers.
const (
	checkpointDebounce  = 2500 * time.Millisecond
	checkpointQueries   = 20
	checkpointRemembers = 10
	checkpointPrompts   = 30  // prompts of a session its digests choose from
	checkpointLineChars = 200 // each prompt, query or remember in a digest
	digestWorkingOn     = 6   // prompts a digest shows of what the session was doing
	digestDecisions     = 6   // decisions and rules a digest shows
	activitySessions    = 1000
	activityIdle        = 24 * time.Hour
)

// activity is what a session did since its last checkpoint, kept in
// memory between hooks.
type activity struct {
	prompts        []string
	instructions   string // what the user asked the latest compaction to keep
	queries        []string
	remembers      []string
	sincePrompts   int
	lastCheckpoint time.Time
	touched        time.Time
}

// activities are the sessions' activity since their last checkpoint.
type activities struct {
	mu       sync.Mutex
	sessions map[string]*activity
}

// withActivity runs fn on a session's activity under the lock. Sessions
// idle a day, or the oldest past activitySessions, are forgotten.
func (s *Sessions) withActivity(key string, fn func(a *activity)) {
	if key == "" || !s.cfg.Continuity.Enabled {
		return
	}
	c := &s.activity
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.now()
	a := c.sessions[key]
	if a == nil {
		if len(c.sessions) >= activitySessions {
			var oldest string
			for k, x := range c.sessions {
				if now.Sub(x.touched) > activityIdle {
					delete(c.sessions, k)
				} else if oldest == "" || x.touched.Before(c.sessions[oldest].touched) {
					oldest = k
				}
			}
			if len(c.sessions) >= activitySessions && oldest != "" {
				delete(c.sessions, oldest)
			}
		}
		a = &activity{lastCheckpoint: now}
		c.sessions[key] = a
	}
	a.touched = now
	fn(a)
}

func pushCapped(list []string, v string, max int) []string {
	v = text.Truncate(text.OneLine(v), checkpointLineChars)
	if strings.TrimSpace(v) == "" {
		return list
	}
	list = append(list, v)
	if len(list) > max {
		list = list[len(list)-max:]
	}
	return list
}

// NotePrompt records a prompt and writes a periodic checkpoint every
// continuity.prompt_interval prompts, or when continuity.time_interval has
// passed since the last one. It reports whether one was due: a long
// session is then learned from so far (the prompt hook asks for its
// transcript).
func (s *Sessions) NotePrompt(ctx context.Context, ref Ref, prompt string) (due bool) {
	cfg := s.cfg.Continuity
	s.withActivity(ref.Key, func(a *activity) {
		a.prompts = pushCapped(a.prompts, prompt, checkpointPrompts)
		a.sincePrompts++
		due = a.sincePrompts >= cfg.PromptInterval || s.now().Sub(a.lastCheckpoint) >= cfg.TimeInterval.D()
	})
	if due {
		if _, err := s.Checkpoint(ctx, ref, TriggerPeriodic, ""); err != nil {
			s.log.Warn("periodic checkpoint", "err", err)
		}
	}
	return due
}

// NoteCompaction records what the user asked a compaction of session key
// to keep (Claude Code's /compact instructions): the digests from then on
// carry them.
func (s *Sessions) NoteCompaction(key, instructions string) {
	instructions = strings.TrimSpace(instructions)
	if instructions == "" {
		return
	}
	s.withActivity(key, func(a *activity) { a.instructions = text.Truncate(instructions, 1000) })
}

// NoteQuery records a memory query of session key (the recall hook's).
func (s *Sessions) NoteQuery(key, q string) {
	s.withActivity(key, func(a *activity) { a.queries = pushCapped(a.queries, q, checkpointQueries) })
}

// NoteRemember records what session key remembered (the remember hook's).
func (s *Sessions) NoteRemember(key, content string) {
	s.withActivity(key, func(a *activity) { a.remembers = pushCapped(a.remembers, content, checkpointRemembers) })
}

// Checkpoint snapshots a session: its project, prompt count and
// duration, recent prompts, memory queries and remembers, and (at
// compaction) the context the harness gave. Secrets are redacted. A
// checkpoint within 2.5 s of the session's last one merges into it. The
// session keeps its newest continuity.max_checkpoints_per_session, and
// checkpoints older than continuity.retention are deleted.
func (s *Sessions) Checkpoint(ctx context.Context, ref Ref, trigger, sessionContext string) (*storage.Checkpoint, error) {
	cfg := s.cfg.Continuity
	if !cfg.Enabled || ref.Key == "" {
		return nil, nil
	}
	switch trigger {
	case TriggerPeriodic, TriggerPreCompaction, TriggerSessionEnd, TriggerAgent, TriggerExplicit:
	default:
		return nil, core.Invalid("trigger", "trigger must be one of periodic, pre_compaction, session_end, agent, explicit")
	}
	if err := s.mem.CheckFrozen(); err != nil {
		return nil, err
	}
	var prompts, queries, remembers []string
	instructions := ""
	s.withActivity(ref.Key, func(a *activity) {
		prompts = append(prompts, a.prompts...)
		instructions = a.instructions
		queries = append(queries, a.queries...)
		remembers = append(remembers, a.remembers...)
		a.sincePrompts, a.lastCheckpoint = 0, s.now()
		a.queries, a.remembers = nil, nil
	})
	promptCount, started := 0, ""
	if st, err := storage.SessionHead(ctx, s.db.Reader(), ref.Key); err == nil {
		promptCount, started = st.PromptCount, st.StartedAt
		ref.Project = core.OrDefault(ref.Project, st.Project)
		ref.Harness = core.OrDefault(ref.Harness, st.Harness)
	}
	nowT := s.now()
	now := storage.FormatTime(nowT)
	cp := &storage.Checkpoint{ID: core.NewID(), SessionKey: ref.Key, Harness: core.OrDefault(ref.Harness, "unknown"), Project: ref.Project,
		Trigger: trigger, PromptCount: promptCount, MemoryQueries: s.redactAll(queries),
		RecentRemembers: s.redactAll(remembers), CreatedAt: now, UpdatedAt: now}
	duration := ""
	if t, err := storage.ParseTime(started); err == nil {
		duration = humanDuration(nowT.Sub(t))
	}
	note := digestNote{context: sessionContext, instructions: instructions}
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		last, err := storage.SessionCheckpoints(ctx, tx, ref.Key, 1)
		if err != nil {
			return err
		}
		if len(last) == 1 {
			if t, err := storage.ParseTime(last[0].UpdatedAt); err == nil && nowT.Sub(t) < checkpointDebounce {
				prev := last[0]
				cp.ID, cp.CreatedAt = prev.ID, prev.CreatedAt
				cp.MemoryQueries = mergeCapped(prev.MemoryQueries, cp.MemoryQueries, checkpointQueries)
				cp.RecentRemembers = mergeCapped(prev.RecentRemembers, cp.RecentRemembers, checkpointRemembers)
				cp.PromptCount = max(prev.PromptCount, cp.PromptCount)
				if note.context == "" {
					note.context = contextOf(prev.Digest) // a merged checkpoint keeps the harness's context
				}
				cp.Digest = s.mem.Redact(checkpointDigest(cp, duration, prompts, note))
				return storage.UpdateCheckpoint(ctx, tx, cp)
			}
		}
		cp.Digest = s.mem.Redact(checkpointDigest(cp, duration, prompts, note))
		if err := storage.InsertCheckpoint(ctx, tx, cp); err != nil {
			return err
		}
		_, err = storage.TrimCheckpoints(ctx, tx, ref.Key, cfg.MaxCheckpointsPerSession,
			storage.FormatTime(nowT.Add(-cfg.Retention.D())))
		return err
	})
	if err != nil {
		return nil, err
	}
	return cp, nil
}

func (s *Sessions) redactAll(list []string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = s.mem.Redact(v)
	}
	return out
}

// mergeCapped is the union of a then b, first occurrences kept, the
// newest max.
func mergeCapped(a, b []string, max int) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range append(append([]string{}, a...), b...) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// digestNote is what a checkpoint's digest carries beside the session's
// own activity: the context the harness gave, and the user's instructions
// for the latest compaction.
type digestNote struct {
	context      string
	instructions string
}

// Digest section titles (RecoveryDigest reads them back).
const (
	digestInstructionsTitle = "The user's instructions for this compaction: "
	digestDecisionsTitle    = "Decisions and rules stated in the session:"
	digestWorkingTitle      = "What the session was working on:"
	digestContextTitle      = "Session context:"
)

// checkpointDigest is the structured markdown of a checkpoint: the
// project, prompt count and real duration; the user's compaction
// instructions; the decisions and rules the session's prompts stated (the
// heuristic extractor's knowledge, chatter left out); what the session
// was working on (its first substantive prompt and the latest ones, not
// greetings, thanks or jokes); memory queries, remembers and the
// harness's context.
func checkpointDigest(cp *storage.Checkpoint, duration string, prompts []string, note digestNote) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Checkpoint (%s) of project %s: %d prompts", strings.ReplaceAll(cp.Trigger, "_", "-"), core.OrDefault(cp.Project, "none"), cp.PromptCount)
	if duration != "" {
		fmt.Fprintf(&b, " in %s", duration)
	}
	b.WriteString(".\n")
	if in := strings.TrimSpace(note.instructions); in != "" {
		b.WriteString(digestInstructionsTitle + text.OneLine(in) + "\n")
	}
	decisions, working := digestPrompts(prompts)
	if len(decisions) > 0 {
		b.WriteString(digestDecisionsTitle + "\n")
		for _, d := range decisions {
			b.WriteString("- " + d + "\n")
		}
	}
	if len(working) > 0 {
		b.WriteString(digestWorkingTitle + "\n")
		for _, p := range working {
			b.WriteString("- " + p + "\n")
		}
	}
	if len(cp.MemoryQueries) > 0 {
		b.WriteString("Memory queries: " + strings.Join(cp.MemoryQueries, "; ") + "\n")
	}
	if len(cp.RecentRemembers) > 0 {
		b.WriteString("Remembered:\n")
		for _, r := range cp.RecentRemembers {
			b.WriteString("- " + r + "\n")
		}
	}
	if c := strings.TrimSpace(note.context); c != "" {
		b.WriteString(digestContextTitle + "\n" + text.Truncate(c, 1500) + "\n")
	}
	return b.String()
}

// digestPrompts splits a session's prompts into what they decided (the
// knowledge the heuristic extractor finds in them) and what the session
// was working on: the prompts of substance (extract.PromptGist) that
// decided nothing, the first of them (the session's goal) and the latest.
func digestPrompts(prompts []string) (decisions, working []string) {
	seen := map[string]bool{}
	var tasks []string
	for _, p := range prompts {
		ext := extract.HeuristicExtract("User: " + p)
		for _, f := range ext.Facts {
			if k := strings.ToLower(f.Content); !seen[k] {
				seen[k] = true
				decisions = append(decisions, text.Truncate(f.Content, checkpointLineChars))
			}
		}
		if len(ext.Facts) > 0 {
			continue
		}
		if g, ok := extract.PromptGist(p); ok && !seen[strings.ToLower(g)] && !followUp(g) {
			seen[strings.ToLower(g)] = true
			tasks = append(tasks, text.Truncate(g, checkpointLineChars))
		}
	}
	if len(decisions) > digestDecisions {
		decisions = decisions[len(decisions)-digestDecisions:]
	}
	if len(tasks) > digestWorkingOn {
		tasks = append(tasks[:1], tasks[len(tasks)-digestWorkingOn+1:]...)
	}
	return decisions, tasks
}

// followUpMaxWords: a shorter prompt that points back with a pronoun
// ("Make it a bit rounder too.") says nothing once the context it points
// into is compacted away.
const followUpMaxWords = 10

var pointsBack = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:it|this|that|these|those|them)\b`) })

// followUp reports whether a prompt's gist is a short follow-up that
// points back into the conversation.
func followUp(gist string) bool {
	return len(strings.Fields(gist)) <= followUpMaxWords && pointsBack().MatchString(gist)
}

// contextOf is the session context a digest carries ("" without one).
func contextOf(digest string) string {
	i := strings.Index(digest, "\n"+digestContextTitle+"\n")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(digest[i+len(digestContextTitle)+2:])
}

// humanDuration says how long a session has run: seconds under a minute
// ("22s"), minutes under a day ("1h 5m"), "under a second" below one.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < time.Minute:
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Minute)
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh %dm", h, m)
}

// RecoveryDigest is what session start injects when a session comes
// back after a compaction or a resume (source "compact" or "resume"): its
// latest checkpoints (for a resumed session without any, the project's
// latest), newest first, within continuity.recovery_budget_chars. Each
// line is said once: an earlier checkpoint adds only what the newer ones
// do not hold, and one that adds nothing is left out.
func (s *Sessions) RecoveryDigest(ctx context.Context, ref Ref, source string) string {
	cfg := s.cfg.Continuity
	if !cfg.Enabled || (source != "compact" && source != "resume") {
		return ""
	}
	r := s.db.Reader()
	var cps []*storage.Checkpoint
	if ref.Key != "" {
		cps, _ = storage.SessionCheckpoints(ctx, r, ref.Key, 5)
	}
	if len(cps) == 0 && source == "resume" && ref.Project != "" {
		since := storage.FormatTime(s.now().Add(-cfg.Retention.D()))
		cps, _ = storage.ProjectCheckpoints(ctx, r, ref.Project, since, 3)
	}
	if len(cps) == 0 {
		return ""
	}
	head := fmt.Sprintf("\n## Session Recovery (after %s: where this session was)\n", source)
	budget := cfg.RecoveryBudgetChars - text.CharCount(head)
	var b strings.Builder
	shown := map[string]bool{}
	for i, c := range cps {
		d := strings.TrimSpace(c.Digest)
		if i > 0 {
			d = earlierLines(d, shown)
			if d == "" {
				continue
			}
			d = "Earlier — " + d
		}
		for _, l := range strings.Split(c.Digest, "\n") {
			shown[strings.TrimSpace(l)] = true
		}
		room := budget - text.CharCount(b.String())
		if room < 80 {
			break
		}
		if text.CharCount(d)+1 > room {
			d = text.Truncate(d, room-len("\n[truncated]\n")) + "\n[truncated]"
		}
		b.WriteString(d + "\n")
	}
	return head + b.String()
}

// earlierLines is an earlier checkpoint's digest less the items a newer
// one already showed: its first line (what checkpoint it was), then each
// section title with the items it adds; "" when it adds none.
func earlierLines(digest string, shown map[string]bool) string {
	lines := strings.Split(digest, "\n")
	out := []string{lines[0]}
	title, added := "", 0
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasSuffix(t, ":") && !strings.HasPrefix(t, "- "):
			title = l
		case shown[t]:
		default:
			if title != "" {
				out = append(out, title)
				title = ""
			}
			out = append(out, l)
			added++
		}
	}
	if added == 0 {
		return ""
	}
	return strings.Join(out, "\n")
}

// offerMemories records what a session was offered (source session_start
// or prompt): the memories injected, and candidates that were not, each
// with its rank and its features (the learned ranker's training data).
func (s *Sessions) offerMemories(ctx context.Context, tx storage.Tx, key, source string, offers []*storage.SessionMemory, now string) error {
	if !s.cfg.Continuity.Enabled || key == "" {
		return nil
	}
	for _, m := range offers {
		m.Source = source
		if err := storage.OfferSessionMemory(ctx, tx, key, m, now); err != nil {
			return err
		}
	}
	return nil
}

// Signs of use (continuity.use_signal).
const (
	UseSignalWeight = "weight"
	UseSignalShare  = "share"
)

// wordsOf are text's distinct content words, lowercased (as
// text.QueryTerms reads them, without its cap on a query's length).
func wordsOf(body string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		for _, t := range text.QueryTerms(line) {
			out[t] = true
		}
	}
	return out
}

// usesIn counts, for each memory offered to a session (injected or only a
// candidate), whether body (a later prompt, the transcript) refers to it,
// by continuity.use_signal:
//   - weight: one line of body holds words of the memory whose inverse
//     document frequencies, log(1 + N/(df+1)) over the store (N at least
//     useMinStore), add up to
//     continuity.use_min_weight (about two rare words). A memory written
//     in the session is not counted: the text is its source.
//   - share: body holds at least two of the memory's content words, and
//     at least a third of them.
func (s *Sessions) usesIn(ctx context.Context, mems []*storage.SessionMemory, body string) map[string]int {
	cfg := s.cfg.Continuity
	out := map[string]int{}
	if cfg.UseSignal == UseSignalShare {
		words := wordsOf(body)
		for _, m := range mems {
			if m.Content == "" {
				continue
			}
			terms := text.QueryTerms(m.Content)
			shared := 0
			for _, t := range terms {
				if words[t] {
					shared++
				}
			}
			if shared >= 2 && float64(shared) >= float64(len(terms))/3 {
				out[m.MemoryID]++
			}
		}
		return out
	}
	var lines []map[string]bool
	all := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		if ts := text.QueryTerms(line); len(ts) > 0 {
			l := make(map[string]bool, len(ts))
			for _, t := range ts {
				l[t], all[t] = true, true
			}
			lines = append(lines, l)
		}
	}
	terms := make([][]string, len(mems))
	need := map[string]bool{}
	for i, m := range mems {
		if m.Content == "" || m.Own {
			continue
		}
		for _, t := range text.QueryTerms(m.Content) {
			if all[t] {
				terms[i] = append(terms[i], t)
				need[t] = true
			}
		}
	}
	if len(need) == 0 {
		return out
	}
	idf, err := s.termWeights(ctx, need)
	if err != nil {
		s.log.Warn("signs of use: term weights", "err", err)
		return out
	}
	for i, m := range mems {
		if len(terms[i]) == 0 {
			continue
		}
		for _, l := range lines {
			w := 0.0
			for _, t := range terms[i] {
				if l[t] {
					w += idf[t]
				}
			}
			if w >= cfg.UseMinWeight {
				out[m.MemoryID]++
				break
			}
		}
	}
	return out
}

// useMinStore is the least store size the signs of use weigh words
// against: in a store of a few memories every word is rare, and none
// would weigh enough.
const useMinStore = 1000

// termWeights are the inverse document frequencies of terms over the
// store: log(1 + N/(df+1)), N the live memories (at least useMinStore).
func (s *Sessions) termWeights(ctx context.Context, terms map[string]bool) (map[string]float64, error) {
	total, deleted, err := storage.MemoryCounts(ctx, s.db.Reader())
	if err != nil {
		return nil, err
	}
	live := max(total-deleted, useMinStore)
	list := make([]string, 0, len(terms))
	for t := range terms {
		list = append(list, t)
	}
	df, err := s.mem.TermDocCounts(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(list))
	for _, t := range list {
		out[t] = math.Log(1 + float64(live)/float64(df[t]+1))
	}
	return out, nil
}

// NoteUses records the session's offered memories a later prompt refers
// to.
func (s *Sessions) NoteUses(ctx context.Context, key, body string) {
	if !s.cfg.Continuity.Enabled || key == "" || strings.TrimSpace(body) == "" {
		return
	}
	injected, err := storage.SessionMemories(ctx, s.db.Reader(), key)
	if err != nil || len(injected) == 0 {
		return
	}
	s.AddUses(ctx, key, s.usesIn(ctx, injected, body))
}

// AddUses counts uses (by memory id) of what session key was offered.
func (s *Sessions) AddUses(ctx context.Context, key string, uses map[string]int) {
	if len(uses) == 0 {
		return
	}
	now := s.timestamp()
	if err := s.db.WriteTx(ctx, func(tx storage.Tx) error { return storage.NoteSessionMemoryUses(ctx, tx, key, uses, now) }); err != nil {
		s.log.Warn("note memory uses", "err", err)
	}
}

// Score scores, at session end, how useful the injected memories were,
// without a model: the share of injected memories the session referred
// to later (its prompts, the transcript, the agent's recalls). Each
// memory's relevance is its uses, one use 0.5, two or more 1.
func (s *Sessions) Score(ctx context.Context, ref Ref, transcript string) (*storage.SessionScore, error) {
	if !s.cfg.Continuity.Enabled || ref.Key == "" {
		return nil, nil
	}
	mems, err := storage.SessionMemories(ctx, s.db.Reader(), ref.Key)
	if err != nil {
		return nil, err
	}
	fromTranscript := s.usesIn(ctx, mems, transcript)
	injected, used := 0, 0
	rel := map[string]float64{}
	weigh := s.cfg.Continuity.UseSignal == UseSignalWeight
	for _, m := range mems {
		// A memory written in the session has no relevance (NULL): its
		// words in the session are its source, which says neither that it
		// was used nor that it was not; the learned ranker does not train
		// on it and the score leaves it out.
		if weigh && m.Own {
			continue
		}
		// Candidates not injected get a relevance too (what the learned
		// ranker could have chosen); the score is of the injected ones.
		u := m.Uses + fromTranscript[m.MemoryID]
		rel[m.MemoryID] = math.Min(1, float64(u)/2)
		if !m.WasInjected {
			continue
		}
		injected++
		if u > 0 {
			used++
		}
	}
	sc := &storage.SessionScore{SessionKey: ref.Key, Project: ref.Project, Harness: core.OrDefault(ref.Harness, "unknown"),
		MemoriesRecalled: injected, MemoriesUsed: used, Method: "heuristic", CreatedAt: s.timestamp()}
	if injected > 0 {
		sc.Score = math.Round(float64(used)/float64(injected)*1000) / 1000
		sc.Confidence = math.Round(math.Min(0.8, 0.3+0.1*float64(injected))*1000) / 1000
		sc.Reasoning = fmt.Sprintf("%d of %d injected memories were referred to later in the session (prompts, transcript, recalls)", used, injected)
	} else {
		sc.Reasoning = "no memory was injected into this session"
	}
	now := s.timestamp()
	err = s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.NoteSessionMemoryUses(ctx, tx, ref.Key, fromTranscript, now); err != nil {
			return err
		}
		if err := storage.SetSessionMemoryRelevance(ctx, tx, ref.Key, rel, now); err != nil {
			return err
		}
		if err := storage.SaveSessionScore(ctx, tx, sc); err != nil {
			return err
		}
		// The aspects of the memories found used gain weight
		// (core/ranker: Feedback).
		return s.feedback.Apply(ctx, tx, ref.Key, s.now())
	})
	return sc, err
}

// Continuity is a session's checkpoints, what it was offered and used,
// and its score, as GET /api/sessions/{key} shows them.
type Continuity struct {
	Checkpoints []*storage.Checkpoint    `json:"checkpoints"`
	Memories    []*storage.SessionMemory `json:"memories"`
	Score       *storage.SessionScore    `json:"score,omitempty"`
	// Aspects are the aspects of the memories the scoring found used,
	// with their weights now (core/ranker: Feedback).
	Aspects []*storage.AspectWeight `json:"aspects"`
}

func (s *Sessions) continuity(ctx context.Context, key string) (*Continuity, error) {
	r := s.db.Reader()
	out := &Continuity{}
	var err error
	if out.Checkpoints, err = storage.SessionCheckpoints(ctx, r, key, s.cfg.Continuity.MaxCheckpointsPerSession); err != nil {
		return nil, err
	}
	if out.Memories, err = storage.SessionMemories(ctx, r, key); err != nil {
		return nil, err
	}
	for _, m := range out.Memories {
		m.Content = s.mem.Redact(text.Truncate(m.Content, 300))
	}
	if out.Score, err = storage.GetSessionScore(ctx, r, key); err != nil && err != storage.ErrNotFound {
		return nil, err
	}
	if out.Aspects, err = storage.SessionAspects(ctx, r, key); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckpointSession writes an explicit or agent checkpoint of a session
// the store knows; note becomes its session context.
func (s *Sessions) CheckpointSession(ctx context.Context, key, trigger, note string) (*storage.Checkpoint, error) {
	if !s.cfg.Continuity.Enabled {
		return nil, &core.Error{Code: core.CodeInvalidRequest, Message: "session continuity is off (continuity.enabled)"}
	}
	st, err := storage.SessionHead(ctx, s.db.Reader(), key)
	if err == storage.ErrNotFound {
		return nil, &core.Error{Code: core.CodeNotFound, Message: "no session " + key}
	}
	if err != nil {
		return nil, err
	}
	if text.CharCount(note) > 4000 {
		return nil, core.Invalid("note", "note is %d characters; at most 4000", text.CharCount(note))
	}
	return s.Checkpoint(ctx, Ref{Key: key, Harness: st.Harness, Project: st.Project}, trigger, note)
}
