package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

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
	// Scope is "user" or "agent" for a memory of those scopes (scopes.go).
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
func (hk *Hooks) SessionStart(ctx context.Context, h Request) (*SessionStartResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	cfg := hk.cfg.Hooks
	now := hk.now()
	cands, err := hk.startCandidates(ctx, h.Project, h.Confined, h.ProjectNames)
	if err == nil {
		cands, err = hk.withoutScoped(ctx, h, cands) // the user's and the agent's have their own sections
	}
	if err != nil {
		return nil, err
	}
	rate := hk.cfg.Search.DecayRate
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
	if f := hk.feedback.Factors(ctx, startIDs(keep)); f != nil { // aspect feedback (core/ranker)
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
		contents[i] = hk.shown(text.Truncate(c.m.Content, 500))
		line := "- " + text.OneLine(contents[i])
		if len(c.tags) > 0 {
			line += " [" + text.DisplayLine(strings.Join(c.tags, ", ")) + "]"
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
	// The learned ranker's order when it is active (features.go).
	isPinned, idOf := func(i int) bool { return keep[i].m.Pinned }, func(i int) string { return keep[i].m.ID }
	final, note := hk.learnedPick(ctx, ranker.SourceSessionStart, feats, pick, idOf, func(o []int) []int { return pinnedFirst(o, isPinned) })
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
	scopeText, scopeMems, err := hk.sessionScopes(ctx, h, now)
	if err != nil {
		return nil, err
	}
	res.Memories = append(res.Memories, scopeMems...)
	res.MemoryCount = len(res.Memories)
	offers := offersOf(final, injected, offerCandidates, 0, feats, idOf, func(i int) float64 { return keep[i].m.Score })

	header := fmt.Sprintf("%s | project=%s | memories=%d]", text.ContextOpen, text.DisplayLine(core.OrDefault(h.Project, "none")), res.MemoryCount)
	head := header + "\n# Current Date & Time\n" + now.Format("Monday, January 2, 2006 at 3:04 PM") + " (" + now.Location().String() + ")\n"
	var mem string
	if len(lines) > 0 {
		mem = fmt.Sprintf("\n## Relevant Memories (current project first | scored by importance x recency | %d results)\n", len(lines)) +
			strings.Join(lines, "\n") + "\n"
	}
	mem = scopeText + mem
	tail := text.ContextClose
	if cfg.StoreInstructions {
		tail = StoreInstructions + tail
	}
	// After a compaction or a resume: where the session was, first.
	recovery := hk.sessions.RecoveryDigest(ctx, h.ref(), h.Source)
	res.Recovered = recovery != ""
	head += recovery
	budget := cfg.MaxInjectChars - text.CharCount(head) - text.CharCount(tail)
	if text.CharCount(mem) > budget {
		mem = text.Truncate(mem, max(0, budget-len("\n[context truncated]\n"))) + "\n[context truncated]\n"
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
			body := hk.shown(strings.TrimSpace(text.StripInjected(string(data))))
			sect := "\n## " + f.title + "\n"
			avail := min(room, int(float64(f.limit)*scale)) - text.CharCount(sect) - 1
			if avail < 100 {
				continue
			}
			if text.CharCount(body) > avail {
				body = text.Truncate(body, avail-len("\n[truncated]")) + "\n[truncated]"
			}
			ident.WriteString(sect + body + "\n")
			room -= text.CharCount(sect) + text.CharCount(body) + 1
			res.Identity = append(res.Identity, f.name)
		}
	}
	res.Inject = text.Display(head + ident.String() + mem + tail) // the pieces are clean; so is what joins them

	if hk.keeps(h) {
		if err := hk.sessions.RecordStart(ctx, h.ref(), idsOf(res.Memories), offers); err != nil {
			hk.log.Warn("record session start", "err", err)
		}
	}
	return res, nil
}

// StoreInstructions close the session-start inject (hooks.store_instructions):
// when the agent should store a memory itself, with cairn's MCP tool, so
// the model the user already runs captures knowledge as it is made. What
// the session teaches is also learned from its transcript; this catches
// what a reading of the transcript would miss, in the agent's own words.
const StoreInstructions = `
## Storing memories
Store a memory with the memory_store tool of the cairn MCP server when, in this session:
- a decision is made (what was chosen, and why);
- the user states a preference or a convention;
- a bug's cause and fix are found.
One self-contained fact per memory, in a full sentence. Not plans, progress or chat.
`

// startCandidates reads the newest memories in scope plus every pinned one
// in scope (an old pinned memory is never crowded out by newer ones).
func (hk *Hooks) startCandidates(ctx context.Context, project string, confined bool, names []string) ([]*startCandidate, error) {
	scope := hk.projectScope(project, confined, names)
	out := map[string]*startCandidate{}
	var order []*startCandidate
	scan := func(pinnedOnly bool, limit int) error {
		rows, err := storage.InjectCandidates(ctx, hk.db.Reader(), scope, pinnedOnly, limit)
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
	if err := scan(false, hk.cfg.Hooks.SessionStartCandidates); err != nil {
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
func (hk *Hooks) projectScope(project string, confined bool, names []string) storage.ProjectScope {
	return storage.ProjectScope{Project: project, Names: names, All: hk.cfg.Hooks.CrossProject, Only: confined}
}

func (hk *Hooks) inScope(project, memProject string, confined bool, names []string) bool {
	if confined {
		return memProject == project
	}
	return hk.cfg.Hooks.CrossProject || memProject == "" || memProject == project || slices.Contains(names, memProject)
}

// startIDs are session-start candidates' memory ids.
func startIDs(cs []*startCandidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.m.ID
	}
	return out
}

// idsOf are the ids of injected memories.
func idsOf(mems []*InjectedMemory) []string {
	ids := make([]string, len(mems))
	for i, m := range mems {
		ids[i] = m.ID
	}
	return ids
}
