package hooks

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// The hooks' side of scopes (docs/design/evolution.md, "Scopes and
// slots": user, project and agent slots, each queried on its own). A
// session start lists the user's memories (they
// follow the user into every project) and the hook agent's own under
// their own headings and within their own budgets (hooks.user_chars,
// hooks.agent_chars), apart from the project's list; a prompt adds up to
// hooks.prompt_scope_memories of them that hold the prompt's words, beside
// the project's. Another agent's memories are never injected. A hook
// confined to its project (a project-scoped token) sees neither.

// maxScopeCandidates bounds the memories of one scope a hook considers
// (the newest, and every pinned one up to the same number).
const maxScopeCandidates = 200

// agentOf is the agent a hook speaks for: who, else the harness.
func agentOf(h Request) string { return core.OrDefault(h.Who, h.Harness) }

// scopedOut splits ids by scope: those of the user or of agent (kept
// apart from the project's lists), and those of another agent (never
// injected).
func (hk *Hooks) scopedOut(ctx context.Context, ids []string, agent string) (scoped, foreign map[string]bool, err error) {
	scopes, err := storage.ScopesOf(ctx, hk.db.Reader(), ids)
	if err != nil {
		return nil, nil, err
	}
	scoped, foreign = map[string]bool{}, map[string]bool{}
	for id, sw := range scopes {
		if sw[0] == evolution.ScopeAgent && sw[1] != agent {
			foreign[id] = true
		} else {
			scoped[id] = true
		}
	}
	return scoped, foreign, nil
}

// withoutScoped drops from a session's project candidates the memories of
// the user and agent scopes (listed in their own sections) and those of
// other agents.
func (hk *Hooks) withoutScoped(ctx context.Context, h Request, cands []*startCandidate) ([]*startCandidate, error) {
	ids := make([]string, 0, len(cands))
	for _, c := range cands {
		if c.m.Project == "" {
			ids = append(ids, c.m.ID)
		}
	}
	scoped, foreign, err := hk.scopedOut(ctx, ids, agentOf(h))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(cands, func(c *startCandidate) bool { return scoped[c.m.ID] || foreign[c.m.ID] }), nil
}

// sessionScopes renders the session-start sections of the user scope and
// of the hook agent's scope, each ranked as the project's list (pinned
// first, then importance decayed since last use) within its own budget.
func (hk *Hooks) sessionScopes(ctx context.Context, h Request, now time.Time) (string, []*InjectedMemory, error) {
	if h.Confined {
		return "", nil, nil
	}
	cfg := hk.cfg.Hooks
	var out strings.Builder
	var mems []*InjectedMemory
	for _, sc := range []struct {
		scope, who, title string
		budget            int
	}{
		{evolution.ScopeUser, "", "About the User (user scope: every project)", cfg.UserChars},
		{evolution.ScopeAgent, agentOf(h), "This Agent (agent scope)", cfg.AgentChars},
	} {
		if sc.budget <= 0 || (sc.scope == evolution.ScopeAgent && sc.who == "") {
			continue
		}
		var rows []storage.InjectCandidate
		for _, pinned := range []bool{true, false} {
			r, err := storage.ScopeCandidates(ctx, hk.db.Reader(), sc.scope, sc.who, pinned, maxScopeCandidates)
			if err != nil {
				return "", nil, err
			}
			for _, x := range r {
				if !slices.ContainsFunc(rows, func(y storage.InjectCandidate) bool { return y.ID == x.ID }) {
					rows = append(rows, x)
				}
			}
		}
		type ranked struct {
			row   storage.InjectCandidate
			score float64
		}
		var keep []ranked
		for _, r := range rows {
			score := 1.0
			if !r.Pinned {
				score = startScore(r.Importance, r.LastAccessed, r.CreatedAt, hk.cfg.Search.DecayRate, now)
				if score <= 0.2 {
					continue
				}
			}
			keep = append(keep, ranked{r, score})
		}
		slices.SortStableFunc(keep, func(a, b ranked) int {
			switch {
			case a.row.Pinned != b.row.Pinned:
				return boolOrder(a.row.Pinned)
			case a.score != b.score:
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return strings.Compare(b.row.CreatedAt, a.row.CreatedAt)
		})
		var lines []string
		used := 0
		for _, k := range keep {
			content := hk.shown(text.Truncate(k.row.Content, 500))
			line := "- " + text.OneLine(content)
			var tags []string
			_ = json.Unmarshal([]byte(k.row.Tags), &tags)
			if len(tags) > 0 {
				line += " [" + strings.Join(tags, ", ") + "]"
			}
			line += " (" + shortDate(k.row.CreatedAt) + ")"
			n := text.CharCount(line) + 1
			if used+n > sc.budget {
				continue // a shorter one further down may still fit
			}
			used += n
			lines = append(lines, line)
			mems = append(mems, &InjectedMemory{ID: k.row.ID, Content: content, Type: k.row.Type, Importance: k.row.Importance,
				Pinned: k.row.Pinned, Score: math.Round(k.score*1000) / 1000, CreatedAt: k.row.CreatedAt, Scope: sc.scope})
		}
		if len(lines) > 0 {
			out.WriteString("\n## " + sc.title + "\n" + strings.Join(lines, "\n") + "\n")
		}
	}
	return out.String(), mems, nil
}

// startScore is importance decayed per day since last use (or creation).
func startScore(importance float64, lastAccess, created string, rate float64, now time.Time) float64 {
	ref := lastAccess
	if ref == "" {
		ref = created
	}
	days := 0.0
	if t, err := storage.ParseTime(ref); err == nil {
		days = max(0, now.Sub(t).Hours()/24)
	}
	return math.Round(importance*math.Pow(rate, days)*1000) / 1000
}

// withScopes prepares a prompt's hits: the user's and the hook agent's
// memories found by the project's recall leave it, another agent's go,
// and the user's and agent's memories holding the prompt's words are
// searched on their own (by keyword: they are few) and added. It returns
// the hits and the ids of the scoped ones, which the prompt counts
// against hooks.prompt_scope_memories.
func (hk *Hooks) withScopes(ctx context.Context, h Request, query, keywordQuery string, hits []*core.RecallHit) ([]*core.RecallHit, map[string]bool, error) {
	ids := make([]string, 0, len(hits))
	for _, hit := range hits {
		if hit.Project == "" {
			ids = append(ids, hit.ID)
		}
	}
	agent := agentOf(h)
	scoped, foreign, err := hk.scopedOut(ctx, ids, agent)
	if err != nil {
		return nil, nil, err
	}
	hits = slices.DeleteFunc(hits, func(hit *core.RecallHit) bool { return scoped[hit.ID] || foreign[hit.ID] })
	mine := map[string]bool{}
	if h.Confined || hk.cfg.Hooks.PromptScopeMemories == 0 {
		return hits, mine, nil
	}
	var own []string
	for _, sc := range []string{evolution.ScopeUser, evolution.ScopeAgent} {
		got, err := storage.ScopeIDs(ctx, hk.db.Reader(), sc, agent, maxScopeCandidates)
		if err != nil {
			return nil, nil, err
		}
		own = append(own, got...)
	}
	if len(own) == 0 {
		return hits, mine, nil
	}
	r, err := hk.mem.Recall(ctx, core.RecallInput{Query: query, KeywordQuery: keywordQuery, Limit: 10, Mode: core.ModeKeyword,
		Filter: storage.MemoryFilter{IDs: own}, Explain: true, NoTracking: true})
	if err != nil {
		return nil, nil, err
	}
	for _, hit := range r.Results {
		mine[hit.ID] = true
		hits = append(hits, hit)
	}
	return hits, mine, nil
}

// withoutForeign drops another agent's memories from hits.
func (hk *Hooks) withoutForeign(ctx context.Context, h Request, hits []*core.RecallHit) ([]*core.RecallHit, error) {
	ids := make([]string, 0, len(hits))
	for _, hit := range hits {
		if hit.Project == "" {
			ids = append(ids, hit.ID)
		}
	}
	_, foreign, err := hk.scopedOut(ctx, ids, agentOf(h))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(hits, func(hit *core.RecallHit) bool { return foreign[hit.ID] }), nil
}
