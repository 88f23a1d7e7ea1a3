package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// HookRequest is what every hook endpoint reads: the reference's fields,
// snake_case or camelCase, plus Claude Code's own names.
type HookRequest struct {
	Harness        string
	Project        string
	SessionKey     string
	Prompt         string
	LastAssistant  string
	TranscriptPath string
	Transcript     string
	Reason         string
	Source         string
	Content        string
	Query          string
	Summary        string
	Who            string
	Type           string
	IdempotencyKey string
	RuntimePath    string
	Tags           []string
	Importance     *float64
	Pinned         *bool
	Limit          int
	// Confined keeps the hook to Project's own memories: no other
	// project's, none without a project, whatever hooks.cross_project
	// says (the caller's token is scoped to Project).
	Confined bool
	// Caller, when named, is who the hook's writes are recorded as (the
	// caller's token); otherwise the harness is.
	Caller Actor
	// ProjectResolved says Project is an identity the hook shim resolved
	// on the user's side (its repository root): it is only normalized.
	// Otherwise Project (an older shim's working directory, a short name)
	// is resolved by strings against the known projects (ResolveProject).
	ProjectResolved bool
	// ProjectNames are short names stored for Project that could not be
	// moved into it yet (adoptNames): the hook matches them too.
	ProjectNames []string
}

// actor is who h's writes are recorded as.
func (h HookRequest) actor() Actor {
	if h.Caller.Name == "" {
		return Actor{Name: h.Harness, Type: ActorHarness, SessionID: h.SessionKey}
	}
	a := h.Caller
	a.SessionID = h.SessionKey
	return a
}

// ---------------------------------------------------------------------------
// session-start
// ---------------------------------------------------------------------------

// InjectedMemory is a memory placed in an inject.
type InjectedMemory struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	Type       string  `json:"type"`
	Importance float64 `json:"importance"`
	Pinned     bool    `json:"pinned,omitempty"`
	Project    string  `json:"project,omitempty"`
	Score      float64 `json:"score"`
	CreatedAt  string  `json:"created_at"`
	// Scope is "user" or "agent" for a memory of those scopes (core/scopes.go).
	Scope string `json:"scope,omitempty"`
}

// SessionStartResult is the answer of the session-start hook.
type SessionStartResult struct {
	Inject      string            `json:"inject"`
	Memories    []*InjectedMemory `json:"memories"`
	MemoryCount int               `json:"memoryCount"`
	Identity    []string          `json:"identityFiles"`
	Project     string            `json:"project,omitempty"`
	SessionKey  string            `json:"sessionKey,omitempty"`
	// Recovered says the inject opens with a recovery digest (a session
	// back after a compaction or a resume).
	Recovered bool `json:"recovered,omitempty"`
	// Ranker is what the learned ranker did (predictor.enabled, a model).
	Ranker *RankerNote `json:"ranker,omitempty"`
}

type startCandidate struct {
	m          InjectedMemory
	tags       []string
	sameProj   bool
	lastAccess string
}

// SessionStart builds the context injected when an agent session
// starts: the current project's memories first, pinned ones always,
// ranked by importance decayed with age, within a character budget, plus
// the optional identity files.
func (s *Hooks) SessionStart(ctx context.Context, h HookRequest) (*SessionStartResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	cfg := s.svc.cfg.Hooks
	now := s.svc.now()
	cands, err := s.startCandidates(ctx, h.Project, h.Confined, h.ProjectNames)
	if err == nil {
		cands, err = s.withoutScoped(ctx, h, cands) // the user's and the agent's have their own sections
	}
	if err != nil {
		return nil, err
	}
	rate := s.svc.cfg.Search.DecayRate
	var keep []*startCandidate
	for _, c := range cands {
		if c.m.Pinned {
			c.m.Score = 1
		} else {
			ref := c.lastAccess
			if ref == "" {
				ref = c.m.CreatedAt
			}
			days := 0.0
			if t, err := storage.ParseTime(ref); err == nil {
				days = max(0, now.Sub(t).Hours()/24)
			}
			c.m.Score = math.Round(c.m.Importance*math.Pow(rate, days)*1000) / 1000
			if c.m.Score <= 0.2 {
				continue
			}
		}
		keep = append(keep, c)
	}
	if f := s.svc.aspectFactors(ctx, startIDs(keep)); f != nil { // aspect feedback (core/aspect_feedback.go)
		for _, c := range keep {
			c.m.Score *= f[c.m.ID]
		}
	}
	slices.SortStableFunc(keep, func(a, b *startCandidate) int {
		switch {
		case a.m.Pinned != b.m.Pinned:
			return boolOrder(a.m.Pinned)
		case a.sameProj != b.sameProj:
			return boolOrder(a.sameProj)
		case a.m.Score != b.m.Score:
			if a.m.Score > b.m.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(b.m.CreatedAt, a.m.CreatedAt)
	})

	res := &SessionStartResult{Memories: []*InjectedMemory{}, Identity: []string{}, Project: h.Project, SessionKey: h.SessionKey}
	contents, all := make([]string, len(keep)), make([]string, len(keep))
	feats := make([][]float64, len(keep))
	for i, c := range keep {
		contents[i] = s.svc.Redact(truncateRunes(c.m.Content, 500))
		line := "- " + oneLine(contents[i])
		if len(c.tags) > 0 {
			line += " [" + strings.Join(c.tags, ", ") + "]"
		}
		all[i] = line + " (" + shortDate(c.m.CreatedAt) + ")"
		feats[i] = startFeatures(c, i, now)
	}
	pick := func(order []int) []int {
		var out []int
		used := 0
		for _, i := range order {
			n := text.CharCount(all[i]) + 1
			if !keep[i].m.Pinned && used+n > cfg.SessionStartChars {
				continue // a shorter one further down may still fit
			}
			used += n
			out = append(out, i)
		}
		return out
	}
	// The learned ranker's order when it is active (core/predictor_hooks.go).
	isPinned, idOf := func(i int) bool { return keep[i].m.Pinned }, func(i int) string { return keep[i].m.ID }
	final, note := s.learnedPick(ctx, SourceSessionStart, feats, pick, idOf, func(o []int) []int { return pinnedFirst(o, isPinned) })
	res.Ranker = note
	var lines []string
	injected := map[int]bool{}
	for _, i := range pick(final) {
		lines = append(lines, all[i])
		injected[i] = true
		m := keep[i].m
		m.Content = contents[i]
		res.Memories = append(res.Memories, &m)
	}
	scopeText, scopeMems, err := s.sessionScopes(ctx, h, now)
	if err != nil {
		return nil, err
	}
	res.Memories = append(res.Memories, scopeMems...)
	res.MemoryCount = len(res.Memories)
	offers := offersOf(final, injected, offerCandidates, 0, feats, idOf, func(i int) float64 { return keep[i].m.Score })

	header := fmt.Sprintf("%s | project=%s | memories=%d]", text.ContextOpen, OrDefault(h.Project, "none"), res.MemoryCount)
	head := header + "\n# Current Date & Time\n" + now.Format("Monday, January 2, 2006 at 3:04 PM") + " (" + now.Location().String() + ")\n"
	var mem string
	if len(lines) > 0 {
		mem = fmt.Sprintf("\n## Relevant Memories (current project first | scored by importance x recency | %d results)\n", len(lines)) +
			strings.Join(lines, "\n") + "\n"
	}
	mem = scopeText + mem
	tail := text.ContextClose
	// After a compaction or a resume: where the session was, first.
	recovery := s.recoveryDigest(ctx, h)
	res.Recovered = recovery != ""
	head += recovery
	budget := cfg.MaxInjectChars - text.CharCount(head) - text.CharCount(tail)
	if text.CharCount(mem) > budget {
		mem = truncateRunes(mem, max(0, budget-len("\n[context truncated]\n"))) + "\n[context truncated]\n"
	}
	// Identity files get what the memories leave.
	room := budget - text.CharCount(mem)
	var ident strings.Builder
	if dir := cfg.IdentityDir; dir != "" {
		// Each file has its share (AGENTS.md 4,000, USER.md 1,500,
		// MEMORY.md 3,000 characters), scaled down when room is short.
		scale := min(1, float64(room)/8500)
		for _, f := range []struct {
			name, title string
			limit       int
		}{
			{"AGENTS.md", "Agent Instructions", 4000}, {"USER.md", "About Your User", 1500}, {"MEMORY.md", "Working Memory", 3000},
		} {
			data, err := os.ReadFile(filepath.Join(expandHome(dir), f.name))
			if err != nil || strings.TrimSpace(string(data)) == "" {
				continue
			}
			body := s.svc.Redact(strings.TrimSpace(text.StripInjected(string(data))))
			sect := "\n## " + f.title + "\n"
			avail := min(room, int(float64(f.limit)*scale)) - text.CharCount(sect) - 1
			if avail < 100 {
				continue
			}
			if text.CharCount(body) > avail {
				body = truncateRunes(body, avail-len("\n[truncated]")) + "\n[truncated]"
			}
			ident.WriteString(sect + body + "\n")
			room -= text.CharCount(sect) + text.CharCount(body) + 1
			res.Identity = append(res.Identity, f.name)
		}
	}
	res.Inject = head + ident.String() + mem + tail

	if !s.svc.MutationsFrozen() {
		if err := s.recordSessionStart(ctx, h, res.Memories, offers); err != nil {
			s.svc.log.Warn("record session start", "err", err)
		}
	}
	return res, nil
}

func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

// startCandidates reads the newest memories in scope plus every pinned one
// in scope (an old pinned memory is never crowded out by newer ones).
func (s *Hooks) startCandidates(ctx context.Context, project string, confined bool, names []string) ([]*startCandidate, error) {
	scope := s.projectScope(project, confined, names)
	out := map[string]*startCandidate{}
	var order []*startCandidate
	scan := func(pinnedOnly bool, limit int) error {
		rows, err := storage.InjectCandidates(ctx, s.svc.db.Reader(), scope, pinnedOnly, limit)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, dup := out[r.ID]; dup {
				continue
			}
			c := &startCandidate{lastAccess: r.LastAccessed}
			c.m.ID, c.m.Content, c.m.Type, c.m.Importance, c.m.Pinned, c.m.Project, c.m.CreatedAt =
				r.ID, r.Content, r.Type, r.Importance, r.Pinned, r.Project, r.CreatedAt
			_ = json.Unmarshal([]byte(r.Tags), &c.tags)
			c.sameProj = project != "" && (c.m.Project == project || slices.Contains(names, c.m.Project))
			out[c.m.ID] = c
			order = append(order, c)
		}
		return nil
	}
	if err := scan(false, s.svc.cfg.Hooks.SessionStartCandidates); err != nil {
		return nil, err
	}
	if err := scan(true, 200); err != nil {
		return nil, err
	}
	return order, nil
}

// projectScope is what hooks may inject for project: its own memories and
// those without a project; everything when hooks.cross_project is on; only
// its own when the caller is confined to it.
func (s *Hooks) projectScope(project string, confined bool, names []string) storage.ProjectScope {
	return storage.ProjectScope{Project: project, Names: names, All: s.svc.cfg.Hooks.CrossProject, Only: confined}
}

func (s *Hooks) inScope(project, memProject string, confined bool, names []string) bool {
	if confined {
		return memProject == project
	}
	return s.svc.cfg.Hooks.CrossProject || memProject == "" || memProject == project || slices.Contains(names, memProject)
}

func (s *Hooks) recordSessionStart(ctx context.Context, h HookRequest, mems []*InjectedMemory, offers []*storage.SessionMemory) error {
	if h.SessionKey == "" {
		return nil
	}
	ids := make([]string, len(mems))
	for i, m := range mems {
		ids[i] = m.ID
	}
	now := s.svc.Timestamp()
	return s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		if err := upsertSession(ctx, tx, h, now); err != nil {
			return err
		}
		if err := storage.RecordInjections(ctx, tx, h.SessionKey, 0, now, ids...); err != nil {
			return err
		}
		return s.offerMemories(ctx, tx, h.SessionKey, SourceSessionStart, offers, now)
	})
}

func upsertSession(ctx context.Context, tx *storage.Tx, h HookRequest, now string) error {
	return storage.UpsertSession(ctx, tx, h.SessionKey, h.Harness, h.Project, now)
}

// ---------------------------------------------------------------------------
// user-prompt-submit
// ---------------------------------------------------------------------------

// PromptResult is the answer of the user-prompt-submit hook.
type PromptResult struct {
	Inject      string            `json:"inject"`
	MemoryCount int               `json:"memoryCount"`
	QueryTerms  []string          `json:"queryTerms"`
	Engine      string            `json:"engine"`
	TopScore    float64           `json:"topScore"`
	Memories    []*InjectedMemory `json:"memories"`
	Skipped     string            `json:"skipped,omitempty"`
	// Ranker is what the learned ranker did (predictor.enabled, a model).
	Ranker *RankerNote `json:"ranker,omitempty"`
}

// untrusted are metadata blocks some harnesses wrap around prompts; they
// are not what the user asked.
var untrusted = regexp.MustCompile(`(?is)(?:conversation info|sender|untrusted context)\s*\(untrusted[^)]*\):\s*(?:\{.*?\}\s*)?`)

func cleanPrompt(p string) string {
	p = text.StripInjected(p)
	p = untrusted.ReplaceAllString(p, "")
	return strings.TrimSpace(p)
}

// UserPrompt recalls memories for one prompt with the same hybrid
// search as /api/memory/recall, scoped to the project, gated on the real
// top score, within a small budget, without repeating what the last
// prompts of the session already got.
func (s *Hooks) UserPrompt(ctx context.Context, h HookRequest) (*PromptResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	cfg := s.svc.cfg.Hooks
	res := &PromptResult{QueryTerms: []string{}, Memories: []*InjectedMemory{}}
	prompt := cleanPrompt(h.Prompt)
	terms := text.QueryTerms(prompt)
	if len(terms) > 12 {
		terms = terms[:12]
	}
	res.QueryTerms = terms

	promptNo := 0
	if h.SessionKey != "" && !s.svc.MutationsFrozen() {
		err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
			if err := upsertSession(ctx, tx, h, s.svc.Timestamp()); err != nil {
				return err
			}
			var err error
			promptNo, err = storage.BumpSessionPrompt(ctx, tx, h.SessionKey, s.svc.Timestamp())
			return err
		})
		if err != nil {
			s.svc.log.Warn("record prompt", "err", err)
		}
		// Signs that what was injected before is being used, then the
		// prompt joins the session's activity (a periodic checkpoint may
		// fall due).
		s.noteUses(ctx, h.SessionKey, prompt)
		s.notePrompt(ctx, h, prompt)
	}
	if len(terms) == 0 || cfg.PromptMaxMemories == 0 {
		res.Skipped = "no query terms"
		res.Engine = ModeKeyword
		return res, nil
	}
	hits, method, err := s.scopedRecall(ctx, truncateRunes(prompt, 1000), strings.Join(terms, " "), h.Project, h.Confined, h.ProjectNames, 20)
	var scoped map[string]bool
	if err == nil {
		hits, scoped, err = s.withScopes(ctx, h, truncateRunes(prompt, 1000), strings.Join(terms, " "), hits)
	}
	if err != nil {
		return nil, err
	}
	res.Engine = method
	// Gate on relevance (similarity or share of the prompt's words, less
	// those naming a time), not on the rank score: the best keyword hit of
	// any query scores high. Then only what is about the prompt
	// (core/inject_gate.go).
	weights, err := s.svc.promptWeightsOf(ctx, prompt, terms)
	if err != nil {
		return nil, err
	}
	var subject []string // the prompt's terms less those naming a time
	for _, t := range terms {
		if !text.IsTemporalTerm(t) {
			subject = append(subject, t)
		}
	}
	relevance := make([]float64, len(hits))
	for i, hit := range hits {
		relevance[i] = max(hit.Relevance, termCoverage(subject, hit.Content))
		res.TopScore = max(res.TopScore, relevance[i])
	}
	if len(hits) == 0 || res.TopScore < cfg.PromptMinScore {
		res.Skipped = "below prompt_min_score"
		if len(hits) == 0 {
			res.Skipped = "no matches"
		}
		return res, nil
	}
	seen, err := s.recentlyInjected(ctx, h.SessionKey, promptNo)
	if err != nil {
		return nil, err
	}
	floor := s.svc.InjectFloor()
	type about struct {
		hit   *RecallHit
		share float64
	}
	var cands []about
	for i, hit := range hits {
		if relevance[i] < cfg.PromptMinScore || seen[hit.ID] {
			continue
		}
		share := weights.shareWithContext(hit.Content, hit.Context)
		vec := 0.0
		if hit.Explain != nil {
			vec = hit.Explain.Vector
		}
		// About the prompt: most of its weighted words, or a meaning closer
		// than unrelated text ever comes (not when the prompt names a
		// stranger: then it is about someone else).
		if share >= cfg.PromptMinCoverage || (vec >= floor && !weights.stranger) {
			cands = append(cands, about{hit, share})
		}
	}
	// In recall's order: the gate says whether a memory is about the
	// prompt, recall's ranking which answers it best (with aspect
	// feedback's factor when it ranks: core/aspect_feedback.go).
	byAspectWeight(ctx, s.svc, cands, func(c about) string { return c.hit.ID }, func(c about) float64 { return c.hit.Score })
	contents, all := make([]string, len(cands)), make([]string, len(cands))
	feats := make([][]float64, len(cands))
	nowT := s.svc.now()
	for i, c := range cands {
		contents[i] = s.svc.Redact(c.hit.Content)
		all[i] = "- " + oneLine(contents[i]) + " (" + shortDate(c.hit.CreatedAt) + ")"
		sameProj := h.Project != "" && (c.hit.Project == h.Project || slices.Contains(h.ProjectNames, c.hit.Project))
		feats[i] = promptFeatures(c.hit, c.share, i, sameProj, nowT)
	}
	// The project's memories and the user's or agent's (scopes) each
	// within their own count, all within the characters.
	pick := func(order []int) []int {
		var out []int
		used, nScoped := 0, 0
		for _, i := range order {
			sc := scoped[cands[i].hit.ID]
			if sc && nScoped >= cfg.PromptScopeMemories || !sc && len(out)-nScoped >= cfg.PromptMaxMemories {
				continue
			}
			if n := text.CharCount(all[i]) + 1; used+n > cfg.PromptChars {
				continue
			} else {
				used += n
			}
			if sc {
				nScoped++
			}
			out = append(out, i)
		}
		return out
	}
	// The learned ranker's order when it is active (core/predictor_hooks.go).
	idOf := func(i int) string { return cands[i].hit.ID }
	final, note := s.learnedPick(ctx, SourcePrompt, feats, pick, idOf, nil)
	res.Ranker = note
	var lines []string
	injected := map[int]bool{}
	for _, i := range pick(final) {
		hit := cands[i].hit
		lines = append(lines, all[i])
		injected[i] = true
		res.Memories = append(res.Memories, &InjectedMemory{ID: hit.ID, Content: contents[i], Type: hit.Type,
			Importance: hit.Importance, Pinned: hit.Pinned, Project: hit.Project, Score: hit.Score, CreatedAt: hit.CreatedAt})
	}
	res.MemoryCount = len(res.Memories)
	if res.MemoryCount == 0 {
		res.Skipped = "nothing about the prompt, already injected or over budget"
		return res, nil
	}
	res.Inject = fmt.Sprintf("%s | query=%q | results=%d | engine=%s]\n%s\n%s",
		text.RecallOpen, strings.Join(terms, " "), res.MemoryCount, method, strings.Join(lines, "\n"), text.RecallClose)
	if h.SessionKey != "" && !s.svc.MutationsFrozen() {
		now := s.svc.Timestamp()
		ids := make([]string, len(res.Memories))
		for i, m := range res.Memories {
			ids[i] = m.ID
		}
		err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
			if err := storage.RecordInjections(ctx, tx, h.SessionKey, promptNo, now, ids...); err != nil {
				return err
			}
			return s.offerMemories(ctx, tx, h.SessionKey, SourcePrompt,
				offersOf(final, injected, len(final), promptNo, feats, idOf, func(i int) float64 { return cands[i].hit.Score }), now)
		})
		if err != nil {
			s.svc.log.Warn("record injections", "err", err)
		}
	}
	// What was injected was read: it, and only it, counts as accessed.
	ids := make([]string, len(res.Memories))
	for i, m := range res.Memories {
		ids[i] = m.ID
	}
	s.svc.trackAccess(ctx, ids)
	return res, nil
}

// scopedRecall runs Recall and keeps hits hooks may inject for project:
// the project's own memories, then those without a project.
func (s *Hooks) scopedRecall(ctx context.Context, query, keywordQuery, project string, confined bool, names []string, limit int) ([]*RecallHit, string, error) {
	var all []*RecallHit
	method := ModeKeyword
	run := func(f storage.MemoryFilter) error {
		r, err := s.svc.Recall(ctx, RecallInput{Query: query, KeywordQuery: keywordQuery, Limit: limit, Filter: f,
			Explain: true, NoTracking: true})
		if err != nil {
			return err
		}
		method = r.Method
		for _, hit := range r.Results {
			if s.inScope(project, hit.Project, confined, names) && !slices.ContainsFunc(all, func(x *RecallHit) bool { return x.ID == hit.ID }) {
				all = append(all, hit)
			}
		}
		return nil
	}
	if project != "" && (confined || !s.svc.cfg.Hooks.CrossProject) {
		for _, p := range append([]string{project}, names...) {
			if err := run(storage.MemoryFilter{Project: p}); err != nil {
				return nil, method, err
			}
		}
	}
	if !confined {
		if err := run(storage.MemoryFilter{}); err != nil {
			return nil, method, err
		}
	}
	slices.SortStableFunc(all, func(a, b *RecallHit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(all) > limit {
		all = all[:limit]
	}
	return all, method, nil
}

func (s *Hooks) recentlyInjected(ctx context.Context, key string, promptNo int) (map[string]bool, error) {
	seen := map[string]bool{}
	if key == "" || s.svc.cfg.Hooks.DedupPrompts == 0 {
		return seen, nil
	}
	ids, err := storage.InjectedSince(ctx, s.svc.db.Reader(), key, promptNo-1-s.svc.cfg.Hooks.DedupPrompts)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		seen[id] = true
	}
	return seen, nil
}

// ---------------------------------------------------------------------------
// session-end
// ---------------------------------------------------------------------------

// SessionEndResult is the answer of the session-end hook.
type SessionEndResult struct {
	Queued          bool   `json:"queued"`
	SessionKey      string `json:"sessionKey"`
	Format          string `json:"format,omitempty"`
	TranscriptChars int    `json:"transcriptChars"`
	Truncated       bool   `json:"truncated,omitempty"`
	JobID           string `json:"jobId,omitempty"`
	MemoriesSaved   int    `json:"memoriesSaved"`
	// Transcript says what became of the transcript: "stored", or "not
	// sent" when the request carried none (Warning says why when it named
	// a path instead).
	Transcript string `json:"transcript"`
	Warning    string `json:"warning,omitempty"`
	// Score is the session's continuity score (session_scores), when
	// continuity is on.
	Score *float64 `json:"continuityScore,omitempty"`
}

// Transcript states of a session end.
const (
	TranscriptStored  = "stored"
	TranscriptNotSent = "not sent"
)

// SessionEnd records the end of a session and stores its transcript,
// normalized and stripped of cairn's injections, then queues extraction.
// The transcript is the request's own text: the server never opens a path a
// request names (any local page or process could have it read a file and
// serve it back as a session); the hook shim, which runs as the user in
// the harness, reads the file and sends its content.
func (s *Hooks) SessionEnd(ctx context.Context, h HookRequest) (*SessionEndResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	if err := s.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	if h.SessionKey == "" {
		h.SessionKey = "anon-" + NewID()
	}
	res := &SessionEndResult{Queued: true, SessionKey: h.SessionKey, Transcript: TranscriptNotSent}
	var tr *text.Transcript
	var err error
	switch {
	case h.Transcript != "":
		tr, err = text.NormalizeTranscript(strings.NewReader(h.Transcript), s.svc.cfg.Hooks.TranscriptMaxChars)
	case h.TranscriptPath != "":
		res.Warning = "transcript_path is not read by the server; send the transcript's content in transcript (cairn hook session-end does)"
	}
	if err != nil {
		return nil, err
	}
	now := s.svc.Timestamp()
	err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		if err := upsertSession(ctx, tx, h, now); err != nil {
			return err
		}
		if err := storage.EndSession(ctx, tx, h.SessionKey, h.Reason, now); err != nil {
			return err
		}
		if tr == nil {
			return nil
		}
		res.Format, res.Truncated = tr.Format, tr.Truncated
		res.Transcript = TranscriptStored
		var err error
		res.TranscriptChars, res.JobID, err = s.saveTranscript(ctx, tx, h, tr, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := s.Checkpoint(ctx, h, TriggerSessionEnd, ""); err != nil {
		s.svc.log.Warn("session-end checkpoint", "err", err)
	}
	transcript := ""
	if tr != nil {
		transcript = tr.Text
	}
	if sc, err := s.scoreSession(ctx, h, transcript); err != nil {
		s.svc.log.Warn("score session", "err", err)
	} else if sc != nil {
		res.Score = &sc.Score
	}
	return res, nil
}

// saveTranscript stores a session's transcript (redacted) and queues its
// extraction (one live job per session). It returns the characters
// stored and the job's id.
func (s *Hooks) saveTranscript(ctx context.Context, tx *storage.Tx, h HookRequest, tr *text.Transcript, now string) (int, string, error) {
	content := s.svc.Redact(tr.Text)
	if err := storage.SaveTranscript(ctx, tx, &storage.Transcript{SessionKey: h.SessionKey, Content: content,
		Format: tr.Format, Harness: h.Harness, Project: h.Project, SourceBytes: tr.SourceBytes,
		Truncated: tr.Truncated, CreatedAt: now}); err != nil {
		return 0, "", err
	}
	if strings.TrimSpace(content) == "" {
		return 0, "", nil
	}
	// The pipeline worker extracts facts from the transcript
	// (ProcessExtractJob); one live job per session.
	payload, _ := json.Marshal(map[string]string{"session_key": h.SessionKey, "harness": h.Harness, "project": h.Project})
	jobID, err := storage.EnqueueJobOnce(ctx, tx, NewID(), jobs.SessionExtract, string(payload), s.svc.cfg.PipelineV2.MaxAttempts, now)
	return text.CharCount(content), jobID, err
}

// RememberTranscript stores the transcript sent with a remember (seed
// 003's lossless transcripts) as session end would, without ending the
// session: the session is recorded, the transcript saved and its
// extraction queued. It returns the characters stored.
func (s *Hooks) RememberTranscript(ctx context.Context, h HookRequest) (int, error) {
	if err := s.svc.CheckFrozen(); err != nil {
		return 0, err
	}
	if h.SessionKey == "" {
		return 0, Invalid("session_id", "a transcript needs the session it belongs to: session_id")
	}
	tr, err := text.NormalizeTranscript(strings.NewReader(h.Transcript), s.svc.cfg.Hooks.TranscriptMaxChars)
	if err != nil {
		return 0, err
	}
	h.Harness = OrDefault(h.Harness, "api")
	now := s.svc.Timestamp()
	var n int
	err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		if err := upsertSession(ctx, tx, h, now); err != nil {
			return err
		}
		var err error
		n, _, err = s.saveTranscript(ctx, tx, h, tr, now)
		return err
	})
	return n, err
}

// ---------------------------------------------------------------------------
// remember, recall, compaction
// ---------------------------------------------------------------------------

// HookRememberResult is the answer of the remember hook.
type HookRememberResult struct {
	Saved   bool     `json:"saved"`
	ID      string   `json:"id"`
	IDs     []string `json:"ids,omitempty"`
	Deduped bool     `json:"deduped,omitempty"`
}

// Remember stores content through the one write path (Remember), with
// secrets redacted and the harness, project and session recorded.
func (s *Hooks) Remember(ctx context.Context, h HookRequest) (*HookRememberResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Content) == "" {
		return nil, Invalid("content", "harness and content are required")
	}
	in := RememberInput{
		Content: s.svc.Redact(text.StripInjected(h.Content)), Type: h.Type, Tags: h.Tags, Importance: h.Importance, Pinned: h.Pinned,
		Who: OrDefault(h.Who, h.Harness), Project: h.Project, SessionID: h.SessionKey, SourceType: "hook",
		IdempotencyKey: h.IdempotencyKey, RuntimePath: h.RuntimePath,
	}
	res, err := s.svc.Remember(ctx, in, h.actor())
	if err != nil {
		return nil, err
	}
	s.noteRemember(h.SessionKey, h.Content)
	out := &HookRememberResult{Saved: true, Deduped: res.Deduped}
	if res.Chunked {
		out.IDs = res.IDs
		if len(res.IDs) > 0 {
			out.ID = res.IDs[0]
		}
	} else if res.Memory != nil {
		out.ID = res.Memory.ID
	}
	return out, nil
}

// HookRecallResult is the answer of the recall hook.
type HookRecallResult struct {
	Results []*RecallHit `json:"results"`
	Count   int          `json:"count"`
	Query   string       `json:"query"`
	Method  string       `json:"method"`
}

// Recall searches with the same hybrid recall as /api/memory/recall,
// scoped to the project.
func (s *Hooks) Recall(ctx context.Context, h HookRequest) (*HookRecallResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Query) == "" {
		return nil, Invalid("query", "harness and query are required")
	}
	limit := h.Limit
	if limit == 0 {
		limit = 10
	}
	hits, method, err := s.scopedRecall(ctx, h.Query, "", h.Project, h.Confined, h.ProjectNames, limit)
	if err == nil {
		hits, err = s.withoutForeign(ctx, h, hits)
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, hit := range hits {
		hit.Content = s.svc.Redact(hit.Content)
		hit.Explain = nil // asked for the gate of prompt injection, not by the caller
		ids[i] = hit.ID
	}
	s.svc.trackAccess(ctx, ids) // the agent asked and gets them: they are read
	s.noteQuery(h.SessionKey, h.Query)
	if h.SessionKey != "" && len(ids) > 0 && !s.svc.MutationsFrozen() {
		// The agent asking again for what was injected is a use of it.
		uses := map[string]int{}
		for _, id := range ids {
			uses[id] = 1
		}
		s.addUses(ctx, h.SessionKey, uses)
	}
	if hits == nil {
		hits = []*RecallHit{}
	}
	return &HookRecallResult{Results: hits, Count: len(hits), Query: h.Query, Method: method}, nil
}

// PreCompactionResult is the answer of the pre-compaction hook.
type PreCompactionResult struct {
	SummaryPrompt string            `json:"summaryPrompt"`
	Guidelines    string            `json:"guidelines"`
	Memories      []*InjectedMemory `json:"memories"`
	// CheckpointID is the pre_compaction checkpoint recorded (session
	// continuity on, a session key given).
	CheckpointID string `json:"checkpointId,omitempty"`
}

const compactionGuidelines = `- Decisions made and why
- Facts learned about the project, the codebase and the user
- Preferences the user stated
- Open threads and next steps
- Errors met and how they were fixed
- A short first-person summary of the session`

// PreCompaction returns the prompt that asks the agent to store
// durable memories before its context is compacted, with the project's
// most relevant recent memories for reference.
func (s *Hooks) PreCompaction(ctx context.Context, h HookRequest) (*PreCompactionResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	cands, err := s.startCandidates(ctx, h.Project, h.Confined, h.ProjectNames)
	if err != nil {
		return nil, err
	}
	now := s.svc.now()
	score := func(c *startCandidate) float64 {
		days := 0.0
		if t, err := storage.ParseTime(c.m.CreatedAt); err == nil {
			days = max(0, now.Sub(t).Hours()/24)
		}
		return c.m.Importance*0.1 + 0.9/(1+days)
	}
	slices.SortStableFunc(cands, func(a, b *startCandidate) int {
		if a.sameProj != b.sameProj {
			return boolOrder(a.sameProj)
		}
		sa, sb := score(a), score(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	res := &PreCompactionResult{Guidelines: compactionGuidelines, Memories: []*InjectedMemory{}}
	var b strings.Builder
	b.WriteString("Pre-compaction memory flush. Store durable memories now.\n\n" + compactionGuidelines + "\n")
	for i, c := range cands {
		if i == 5 {
			break
		}
		if i == 0 {
			b.WriteString("\nRecent memories for reference:\n")
		}
		m := c.m
		m.Content = s.svc.Redact(truncateRunes(m.Content, 300))
		m.Score = math.Round(score(c)*1000) / 1000
		res.Memories = append(res.Memories, &m)
		b.WriteString("- " + oneLine(m.Content) + "\n")
	}
	res.SummaryPrompt = b.String()
	// Where the session is, kept for after the compaction (with what the
	// harness said of the session, if anything).
	if cp, err := s.Checkpoint(ctx, h, TriggerPreCompaction, OrDefault(h.Summary, h.Content)); err != nil {
		s.svc.log.Warn("pre-compaction checkpoint", "err", err)
	} else if cp != nil {
		res.CheckpointID = cp.ID
	}
	return res, nil
}

// CompactionResult is the answer of the compaction-complete hook.
type CompactionResult struct {
	Success  bool     `json:"success"`
	MemoryID string   `json:"memoryId"`
	IDs      []string `json:"ids,omitempty"`
}

// CompactionComplete stores the compaction summary as a
// session_summary memory through Remember and resets the session's
// injection dedup (the compacted context no longer holds them).
func (s *Hooks) CompactionComplete(ctx context.Context, h HookRequest) (*CompactionResult, error) {
	if err := s.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Summary) == "" {
		return nil, Invalid("summary", "harness and summary are required")
	}
	imp := 0.8
	summary := s.svc.Redact(text.StripInjected(h.Summary))
	key := h.IdempotencyKey
	if key == "" {
		sum := sha256.Sum256([]byte(h.SessionKey + "\x00" + summary))
		key = "compaction:" + hex.EncodeToString(sum[:12])
	}
	res, err := s.svc.Remember(ctx, RememberInput{Content: summary, Type: "session_summary", Importance: &imp,
		Tags: []string{"session", "summary", h.Harness}, Who: h.Harness, Project: h.Project, SessionID: h.SessionKey,
		SourceType: "hook", IdempotencyKey: key, RuntimePath: h.RuntimePath},
		h.actor())
	if err != nil {
		return nil, err
	}
	out := &CompactionResult{Success: true}
	if res.Chunked {
		out.IDs = res.IDs
		if len(res.IDs) > 0 {
			out.MemoryID = res.IDs[0]
		}
	} else if res.Memory != nil {
		out.MemoryID = res.Memory.ID
	}
	if h.SessionKey != "" {
		err := s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
			return storage.ClearInjections(ctx, tx, h.SessionKey)
		})
		if err != nil {
			s.svc.log.Warn("reset injections", "err", err)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// sessions
// ---------------------------------------------------------------------------

// SessionInfo is a session as GET /api/sessions shows it.
type SessionInfo struct {
	Key             string `json:"key"`
	Harness         string `json:"harness"`
	Project         string `json:"project,omitempty"`
	StartedAt       string `json:"started_at"`
	EndedAt         string `json:"ended_at,omitempty"`
	EndReason       string `json:"end_reason,omitempty"`
	PromptCount     int    `json:"prompt_count"`
	LastPromptAt    string `json:"last_prompt_at,omitempty"`
	TranscriptChars int    `json:"transcript_chars"`
	Injections      int    `json:"injections"`
	// Set by GET /api/sessions/{key} only.
	Transcript       *string `json:"transcript,omitempty"`
	TranscriptFormat string  `json:"transcript_format,omitempty"`
	Truncated        bool    `json:"transcript_truncated,omitempty"`
	// Continuity is the session's checkpoints, what it was offered and
	// used, and its score (GET /api/sessions/{key} only).
	Continuity *SessionContinuity `json:"continuity,omitempty"`
}

// sessionInfo is the API view of a stored session.
func sessionInfo(st *storage.Session) *SessionInfo {
	return &SessionInfo{Key: st.Key, Harness: st.Harness, Project: st.Project, StartedAt: st.StartedAt,
		EndedAt: st.EndedAt, EndReason: st.EndReason, PromptCount: st.PromptCount, LastPromptAt: st.LastPromptAt,
		TranscriptChars: st.TranscriptChars, Injections: st.Injections,
		Transcript: st.Transcript, TranscriptFormat: st.TranscriptFormat, Truncated: st.Truncated}
}

// Sessions lists sessions, newest first, optionally of one project.
func (s *Hooks) Sessions(ctx context.Context, project string, limit int) ([]*SessionInfo, error) {
	sessions, err := storage.ListSessions(ctx, s.svc.db.Reader(), project, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*SessionInfo, 0, len(sessions))
	for _, st := range sessions {
		out = append(out, sessionInfo(st))
	}
	return out, nil
}

// Session returns one session with its transcript.
func (s *Hooks) Session(ctx context.Context, key string) (*SessionInfo, error) {
	st, err := storage.GetSession(ctx, s.svc.db.Reader(), key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &Error{Code: CodeNotFound, Message: "no session " + key}
	}
	if err != nil {
		return nil, err
	}
	info := sessionInfo(st)
	if info.Continuity, err = s.sessionContinuity(ctx, key); err != nil {
		return nil, err
	}
	return info, nil
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

func truncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func shortDate(ts string) string {
	t, err := storage.ParseTime(ts)
	if err != nil {
		return ts
	}
	return t.Format("Jan 2, 2006")
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// ---------------------------------------------------------------------------
// transcripts

// Hooks runs the agent hook flows of a Service (session start, each
// prompt, session end, remember and recall, compaction) and keeps the
// sessions they record.
type Hooks struct {
	svc      *Service
	activity continuityState // what each session did since its last checkpoint (continuity.go)
}

// ---------------------------------------------------------------------------
// project identity
// ---------------------------------------------------------------------------

// Resolver returns a project resolver over the config's [projects.NAME]
// tables and the projects the store knows.
func (s *Hooks) Resolver(ctx context.Context) (*project.Resolver, error) {
	known, err := storage.KnownProjects(ctx, s.svc.db.Reader())
	if err != nil {
		return nil, err
	}
	return project.NewResolver(s.svc.cfg.Projects, known), nil
}

// ResolveProject maps a project as a user or a request names it (a short
// name, an alias, a folder) to its identity, by strings only: the server
// never opens or stats a path a request names. Bad or ambiguous names are
// an invalid "project" field.
func (s *Hooks) ResolveProject(ctx context.Context, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", nil
	}
	r, err := s.Resolver(ctx)
	if err != nil {
		return "", err
	}
	id, err := r.Resolve(name)
	if err != nil {
		return "", Invalid("project", "%s", err.Error())
	}
	return id, nil
}

// identify sets h.Project to its identity: normalized when the shim
// resolved it, else resolved; a confined caller's project is its token's
// and stays as it is.
func (s *Hooks) identify(ctx context.Context, h *HookRequest) error {
	if h.Confined {
		return nil
	}
	if h.ProjectResolved {
		id, err := project.Normalize(h.Project)
		if err != nil {
			return Invalid("project", "%s", err.Error())
		}
		h.Project = id
	} else {
		id, err := s.ResolveProject(ctx, h.Project)
		if err != nil {
			return err
		}
		h.Project = id
	}
	h.ProjectNames = s.adoptNames(ctx, h.Project)
	return nil
}

// Steps of the project identity migration (project_steps).
const (
	// projectStepRoots maps absolute project paths to their repository
	// roots: it stats the folders, so it runs once, at open, in the local
	// process (never for a request).
	projectStepRoots = "repository-roots"
)

// MigrateProjects gives every stored project one identity: an absolute
// path inside a repository becomes the repository's root (findRoot, once,
// recorded in project_steps), and a short name becomes the one known root
// with that display name or the root of a config name or alias (at every
// open: a name stored before its root was seen joins it when it is).
// Each changed memory gets a history event; a memory whose content its new
// project already holds is soft-deleted as a duplicate. It returns the
// number of projects remapped.
func (s *Hooks) MigrateProjects(ctx context.Context, findRoot func(dir string) string) (int, error) {
	if s.svc.MutationsFrozen() {
		return 0, nil
	}
	r := s.svc.db.Reader()
	known, err := storage.KnownProjects(ctx, r)
	if err != nil {
		return 0, err
	}
	done, err := storage.ProjectStepDone(ctx, r, projectStepRoots)
	if err != nil {
		return 0, err
	}
	remap := map[string]string{}
	if !done && findRoot != nil {
		for _, id := range known {
			n, err := project.Normalize(id)
			if err != nil || !project.IsPath(n) {
				continue
			}
			if root := findRoot(n); root != "" && root != id {
				remap[id] = root
			}
		}
	}
	// Names resolve against the roots as they will be after the step.
	var roots []string
	for _, id := range known {
		if to, ok := remap[id]; ok {
			roots = append(roots, to)
		} else if n, err := project.Normalize(id); err == nil && n != id {
			remap[id] = n // an unclean path ("/a/b/") joins its clean form
			roots = append(roots, n)
		} else {
			roots = append(roots, id)
		}
	}
	res := project.NewResolver(s.svc.cfg.Projects, roots)
	for _, id := range known {
		if _, ok := remap[id]; ok || project.IsPath(id) {
			continue
		}
		if to, err := res.Resolve(id); err == nil && to != id {
			remap[id] = to
		} else if err != nil {
			s.svc.log.Warn("project identity: name left as it is", "project", id, "err", err)
		}
	}
	froms := make([]string, 0, len(remap))
	for from := range remap {
		froms = append(froms, from)
	}
	slices.Sort(froms)
	actor := Actor{Name: "project-identity", Type: ActorDaemon}
	err = s.svc.db.WriteTx(ctx, func(tx *storage.Tx) error {
		now := s.svc.Timestamp()
		for _, from := range froms {
			to := remap[from]
			moves, err := storage.RemapProject(ctx, tx, from, to, now)
			if err != nil {
				return fmt.Errorf("project %s → %s: %w", from, to, err)
			}
			meta := map[string]any{"project_from": from, "project_to": to}
			for _, mv := range moves {
				event, reason := "updated", "project identity: "+from+" is "+to
				if mv.DuplicateOf != "" {
					event, reason = "deleted", "project identity: "+from+" is "+to+", which already holds this memory as "+mv.DuplicateOf
				}
				if err := s.svc.AddHistory(ctx, tx, mv.ID, event, nil, nil, actor, reason, meta); err != nil {
					return err
				}
			}
		}
		if !done && findRoot != nil {
			return storage.MarkProjectStep(ctx, tx, projectStepRoots, now)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(froms) > 0 {
		s.svc.log.Info("project identity: projects remapped", "projects", len(froms))
	}
	return len(froms), nil
}
