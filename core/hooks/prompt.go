package hooks

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

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
	// Learn asks the caller for the session's transcript so far (POST
	// /api/hooks/session-transcript; the hook shim sends it): a periodic
	// checkpoint fell due, and a long session is learned from as it goes.
	Learn bool `json:"learn,omitempty"`
}

// untrusted are metadata blocks some harnesses wrap around prompts; they
// are not what the user asked.
var untrusted = regexp.MustCompile(`(?is)(?:conversation info|sender|untrusted context)\s*\(untrusted[^)]*\):\s*(?:\{.*?\}\s*)?`)

func cleanPrompt(p string) string {
	p = text.StripInjected(text.StripHarnessBlocks(p))
	p = untrusted.ReplaceAllString(p, "")
	return strings.TrimSpace(p)
}

// UserPrompt recalls memories for one prompt with the same hybrid
// search as /api/memory/recall, scoped to the project, gated on the real
// top score, within a small budget, without repeating what the last
// prompts of the session already got.
func (hk *Hooks) UserPrompt(ctx context.Context, h Request) (*PromptResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	cfg := hk.cfg.Hooks
	res := &PromptResult{QueryTerms: []string{}, Memories: []*InjectedMemory{}}
	prompt := cleanPrompt(h.Prompt)
	terms := text.QueryTerms(prompt)
	if len(terms) > 12 {
		terms = terms[:12]
	}
	res.QueryTerms = terms

	promptNo := 0
	if h.SessionKey != "" && hk.keeps(h) {
		var err error
		if promptNo, err = hk.sessions.Prompted(ctx, h.ref()); err != nil {
			hk.log.Warn("record prompt", "err", err)
		}
		// Signs that what was injected before is being used, then the
		// prompt joins the session's activity (a periodic checkpoint may
		// fall due).
		hk.sessions.NoteUses(ctx, h.SessionKey, prompt)
		due := hk.sessions.NotePrompt(ctx, h.ref(), prompt)
		res.Learn = due && hk.cfg.Pipeline.Enabled
	}
	if len(terms) == 0 || cfg.PromptMaxMemories == 0 {
		res.Skipped = "no query terms"
		res.Engine = core.ModeKeyword
		return res, nil
	}
	hits, method, err := hk.scopedRecall(ctx, text.Truncate(prompt, 1000), strings.Join(terms, " "), h.Project, h.Confined, h.ProjectNames, 20)
	var scoped map[string]bool
	if err == nil {
		hits, scoped, err = hk.withScopes(ctx, h, text.Truncate(prompt, 1000), strings.Join(terms, " "), hits)
	}
	if err != nil {
		return nil, err
	}
	res.Engine = method
	// Gate on relevance (similarity or share of the prompt's words, less
	// those naming a time), not on the rank score: the best keyword hit of
	// any query scores high. Then only what is about the prompt
	// (inject_gate.go).
	weights, err := hk.promptWeightsOf(ctx, prompt, terms)
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
		relevance[i] = max(hit.Relevance, core.TermCoverage(subject, hit.Content))
		res.TopScore = max(res.TopScore, relevance[i])
	}
	if len(hits) == 0 {
		res.Skipped = "no matches"
		return res, nil
	}
	seen, err := hk.recentlyInjected(ctx, h.SessionKey, promptNo)
	if err != nil {
		return nil, err
	}
	floor, floorAlone := hk.InjectFloor(), hk.injectFloorAlone()
	type about struct {
		hit   *core.RecallHit
		share float64
		// answer: the prompt is about the memory (most of its words, or a
		// rule on what it names), not only near it in meaning.
		answer bool
		// successor is the live memory a pending proposal would supersede
		// this one by (currentFirst); "" for most.
		successor string
	}
	var cands []about
	for i, hit := range hits {
		share := weights.shareWithContext(hit.Content, hit.Context)
		// The memory a prompt builds on or contradicts: a rule or decision
		// on something the prompt names specifically.
		rule := weights.namedByRule(hit.Content)
		if relevance[i] < cfg.PromptMinScore && !rule {
			continue
		}
		vec := 0.0
		if hit.Explain != nil {
			vec = hit.Explain.Vector
		}
		// About the prompt: most of its weighted words, or a meaning closer
		// than unrelated text ever comes (closer still when it shares no
		// word with the prompt; never when the prompt names a stranger:
		// then it is about someone else).
		byWords := share >= cfg.PromptMinCoverage
		byMeaning := !weights.stranger && (vec >= floor && share > 0 || vec >= floorAlone)
		if !byWords && !byMeaning && !rule {
			continue
		}
		answer := byWords || rule
		// The repeat rule: what an earlier prompt of the last
		// hooks.dedup_prompts got as an answer is not given again, and
		// what was only offered (at session start, or as a near meaning)
		// is not offered again; but a memory this prompt is about is never
		// held back because it was offered before.
		if answered, ok := seen[hit.ID]; ok && (answered || !answer) {
			continue
		}
		cands = append(cands, about{hit: hit, share: share, answer: answer})
	}
	if len(cands) == 0 && res.TopScore < cfg.PromptMinScore {
		res.Skipped = "below prompt_min_score"
		return res, nil
	}
	// In recall's order: the gate says whether a memory is about the
	// prompt, recall's ranking which answers it best (with aspect
	// feedback's factor when it ranks: core/ranker).
	byAspectWeight(ctx, hk.feedback, cands, func(c about) string { return c.hit.ID }, func(c about) float64 { return c.hit.Score })
	// The current value first: a memory a session has since replaced
	// (pending review) comes after the memory that replaced it, which
	// joins the candidates when the recall missed it.
	succ, err := storage.PendingSupersessions(ctx, hk.db.Reader(), idsOfCands(cands, func(c about) string { return c.hit.ID }))
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(cands); i++ {
		sid := succ[cands[i].hit.ID]
		if sid == "" {
			continue
		}
		cands[i].successor = sid
		if j := slices.IndexFunc(cands, func(c about) bool { return c.hit.ID == sid }); j > i {
			moved := cands[j]
			cands = slices.Insert(slices.Delete(cands, j, j+1), i, moved)
			i++
		} else if j < 0 {
			if hit := hk.liveHit(ctx, sid, h); hit != nil {
				cands = slices.Insert(cands, i, about{hit: hit, share: cands[i].share, answer: cands[i].answer})
				i++
			}
		}
	}
	contents, all := make([]string, len(cands)), make([]string, len(cands))
	feats := make([][]float64, len(cands))
	nowT := hk.now()
	for i, c := range cands {
		contents[i] = hk.shown(c.hit.Content)
		all[i] = "- " + text.OneLine(contents[i]) + " (" + shortDate(c.hit.CreatedAt) + ")"
		if c.successor != "" {
			all[i] += " [replaced by a later memory, pending review]"
		}
		sameProj := h.Project != "" && (c.hit.Project == h.Project || slices.Contains(h.ProjectNames, c.hit.Project))
		feats[i] = promptFeatures(c.hit, c.share, i, sameProj, nowT)
	}
	// The project's memories and the user's or agent's (scopes) each
	// within their own count, all within the characters; a replaced memory
	// only after the one that replaced it.
	pick := func(order []int) []int {
		var out []int
		used, nScoped := 0, 0
		for _, i := range order {
			sc := scoped[cands[i].hit.ID]
			if sc && nScoped >= cfg.PromptScopeMemories || !sc && len(out)-nScoped >= cfg.PromptMaxMemories {
				continue
			}
			if sid := cands[i].successor; sid != "" && !slices.ContainsFunc(out, func(j int) bool { return cands[j].hit.ID == sid }) {
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
	// The learned ranker's order when it is active (features.go).
	idOf := func(i int) string { return cands[i].hit.ID }
	final, note := hk.learnedPick(ctx, ranker.SourcePrompt, feats, pick, idOf, nil)
	res.Ranker = note
	var lines []string
	var answers []bool // the prompt is about it (recentlyInjected)
	injected := map[int]bool{}
	for _, i := range pick(final) {
		hit := cands[i].hit
		lines = append(lines, all[i])
		answers = append(answers, cands[i].answer)
		injected[i] = true
		res.Memories = append(res.Memories, &InjectedMemory{ID: hit.ID, Content: contents[i], Type: hit.Type,
			Importance: hit.Importance, Pinned: hit.Pinned, Project: hit.Project, Score: hit.Score, CreatedAt: hit.CreatedAt})
	}
	res.MemoryCount = len(res.Memories)
	if res.MemoryCount == 0 {
		res.Skipped = "nothing about the prompt, already injected or over budget"
		return res, nil
	}
	res.Inject = text.Display(fmt.Sprintf("%s | query=%q | results=%d | engine=%s]\n%s\n%s",
		text.RecallOpen, strings.Join(terms, " "), res.MemoryCount, method, strings.Join(lines, "\n"), text.RecallClose))
	if h.SessionKey != "" && hk.keeps(h) {
		err := hk.sessions.RecordPrompt(ctx, h.SessionKey, promptNo, idsOf(res.Memories), answers,
			offersOf(final, injected, len(final), promptNo, feats, idOf, func(i int) float64 { return cands[i].hit.Score }))
		if err != nil {
			hk.log.Warn("record injections", "err", err)
		}
	}
	// What was injected was read: it, and only it, counts as accessed.
	if !h.ReadOnly {
		hk.mem.RecordAccess(ctx, idsOf(res.Memories))
	}
	return res, nil
}

// scopedRecall runs Recall and keeps hits hooks may inject for project:
// the project's own memories, then those without a project.
func (hk *Hooks) scopedRecall(ctx context.Context, query, keywordQuery, project string, confined bool, names []string, limit int) ([]*core.RecallHit, string, error) {
	var all []*core.RecallHit
	method := core.ModeKeyword
	run := func(f storage.MemoryFilter) error {
		r, err := hk.mem.Recall(ctx, core.RecallInput{Query: query, KeywordQuery: keywordQuery, Limit: limit, Filter: f,
			Explain: true, NoTracking: true})
		if err != nil {
			return err
		}
		method = r.Method
		for _, hit := range r.Results {
			if hk.inScope(project, hit.Project, confined, names) && !slices.ContainsFunc(all, func(x *core.RecallHit) bool { return x.ID == hit.ID }) {
				all = append(all, hit)
			}
		}
		return nil
	}
	if project != "" && (confined || !hk.cfg.Hooks.CrossProject) {
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
	slices.SortStableFunc(all, func(a, b *core.RecallHit) int {
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

// recentlyInjected returns what session key was injected in its last
// hooks.dedup_prompts prompts before promptNo (and at its start, when
// that is within them), each with whether it was given as an answer.
func (hk *Hooks) recentlyInjected(ctx context.Context, key string, promptNo int) (map[string]bool, error) {
	if key == "" || hk.cfg.Hooks.DedupPrompts == 0 {
		return map[string]bool{}, nil
	}
	return storage.RecentInjections(ctx, hk.db.Reader(), key, promptNo-1-hk.cfg.Hooks.DedupPrompts)
}

// byAspectWeight re-ranks items (in the caller's order) by score times
// their aspect factor when the weight ranks; otherwise it leaves them.
func byAspectWeight[T any](ctx context.Context, fb *ranker.Feedback, items []T, id func(T) string, score func(T) float64) {
	ids := make([]string, len(items))
	for i, x := range items {
		ids[i] = id(x)
	}
	f := fb.Factors(ctx, ids)
	if f == nil {
		return
	}
	slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(score(b)*f[id(b)], score(a)*f[id(a)]) })
}

// idsOfCands are the ids of items.
func idsOfCands[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = id(x)
	}
	return out
}

// liveHit loads memory id as a prompt candidate when it is live and h may
// see it (its project's, or one without a project), else nil.
func (hk *Hooks) liveHit(ctx context.Context, id string, h Request) *core.RecallHit {
	m, err := storage.GetMemory(ctx, hk.db.Reader(), id)
	if err != nil || m.IsDeleted || !hk.inScope(h.Project, m.Project, h.Confined, h.ProjectNames) {
		return nil
	}
	return &core.RecallHit{ID: m.ID, Content: m.Content, Type: m.Type, Importance: m.Importance, Pinned: m.Pinned,
		Project: m.Project, CreatedAt: m.CreatedAt}
}
