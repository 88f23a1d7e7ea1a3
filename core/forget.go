package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/keyword"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// BatchForgetInput selects memories to forget by ids, a query or filters,
// and either previews the selection or executes it.
type BatchForgetInput struct {
	Mode  string // "preview" (default) or "execute"
	Limit int    // 0 means 20; clamped to 1..max_batch
	IDs   []string
	Query string
	// Match is how a query selects: MatchAll (the default) a memory
	// holding every word of it, MatchAny one holding any (ranked).
	Match        string
	Filter       storage.MemoryFilter // Type, Tags, Who, SourceType, Since, Until
	Reason       string
	Force        bool
	ConfirmToken string
	// IfVersionGiven is set when the caller sent if_version, which batch
	// forget refuses: version-guarded deletes go one at a time.
	IfVersionGiven bool
}

// How a batch forget's query selects (BatchForgetInput.Match).
const (
	MatchAll = "all"
	MatchAny = "any"
)

// forgetPool is how many more of a query's best keyword hits a batch
// forget reads than it keeps, when every word must match: a memory with
// every word usually ranks first, not always.
const forgetPool = 500

// ForgetCandidate is one memory a batch forget would delete.
type ForgetCandidate struct {
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Pinned  bool    `json:"pinned"`
	Version int64   `json:"version"`
	Content string  `json:"content"`
}

// BatchForgetResult is a preview (Candidates) or an execution report
// (Requested, Deleted, Results).
type BatchForgetResult struct {
	Mode            string
	Count           int
	RequiresConfirm bool
	ConfirmToken    string
	Candidates      []*ForgetCandidate
	Requested       int
	Deleted         int
	Results         []*MutationResult
}

type forgetPreviewJSON struct {
	Mode            string             `json:"mode"`
	Count           int                `json:"count"`
	RequiresConfirm bool               `json:"requiresConfirm"`
	ConfirmToken    string             `json:"confirmToken"`
	Candidates      []*ForgetCandidate `json:"candidates"`
}

type forgetExecuteJSON struct {
	Mode      string            `json:"mode"`
	Requested int               `json:"requested"`
	Deleted   int               `json:"deleted"`
	Results   []*MutationResult `json:"results"`
}

// Response renders the result as the API returns it; each mode has its
// own fixed set of fields, present even when empty.
func (r *BatchForgetResult) Response() any {
	if r.Mode == "execute" {
		res := r.Results
		if res == nil {
			res = []*MutationResult{}
		}
		return forgetExecuteJSON{Mode: r.Mode, Requested: r.Requested, Deleted: r.Deleted, Results: res}
	}
	c := r.Candidates
	if c == nil {
		c = []*ForgetCandidate{}
	}
	return forgetPreviewJSON{Mode: r.Mode, Count: r.Count, RequiresConfirm: r.RequiresConfirm, ConfirmToken: r.ConfirmToken, Candidates: c}
}

func (in *BatchForgetInput) hasFilter() bool {
	f := in.Filter
	return f.Type != "" || len(f.Tags) > 0 || f.Who != "" || f.SourceType != "" || f.Since != "" || f.Until != "" || f.Project != ""
}

// ConfirmToken is the token a large batch forget must echo back: the first
// 32 hex characters of SHA-256 over the sorted, distinct candidate ids
// joined by "|". Any change to the selection changes it.
func ConfirmToken(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	s = slices.Compact(s)
	sum := sha256.Sum256([]byte(strings.Join(s, "|")))
	return hex.EncodeToString(sum[:])[:32]
}

// ForgetBatch previews or executes a batch soft delete. Execution needs a
// reason, and a confirm token from a preview of the same selection when it
// holds more than memory.forget_confirm_threshold memories.
func (s *Service) ForgetBatch(ctx context.Context, in BatchForgetInput, actor Actor) (*BatchForgetResult, error) {
	defer s.analytics.Since(analytics.LatencyMutate, time.Now())
	mode := in.Mode
	if mode == "" {
		mode = "preview"
	}
	if mode != "preview" && mode != "execute" {
		return nil, Invalid("mode", "mode must be preview or execute")
	}
	if len(in.IDs) == 0 && strings.TrimSpace(in.Query) == "" && !in.hasFilter() {
		return nil, Invalid("query", "query, ids, or at least one filter (type/tags/who/source_type/since/until/project) is required")
	}
	if in.Limit < 0 {
		return nil, Invalid("limit", "limit must be a positive integer")
	}
	switch in.Match {
	case "", MatchAll, MatchAny:
	default:
		return nil, Invalid("match", "match must be all (every word of the query) or any")
	}
	if e := CheckFilter(in.Filter); e != nil {
		return nil, e
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
		if len(in.IDs) > 0 { // explicit ids are the selection; no default cut
			limit = len(in.IDs)
		}
	}
	limit = min(limit, s.cfg.Memory.MaxBatch)
	if mode == "execute" {
		if err := s.CheckFrozen(); err != nil {
			return nil, err
		}
		if strings.TrimSpace(in.Reason) == "" {
			return nil, Invalid("reason", "reason is required for execute mode")
		}
		if in.IfVersionGiven {
			return nil, Invalid("if_version", "if_version is not supported for batch forget; use DELETE /api/memory/{id} for version-guarded deletes")
		}
	}
	cands, err := s.forgetCandidates(ctx, in, limit)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	token := ConfirmToken(ids)
	needsConfirm := len(cands) > s.cfg.Memory.ForgetConfirmThreshold
	if mode == "preview" {
		return &BatchForgetResult{Mode: "preview", Count: len(cands), RequiresConfirm: needsConfirm,
			ConfirmToken: token, Candidates: cands}, nil
	}
	if (needsConfirm || in.ConfirmToken != "") && in.ConfirmToken != token {
		msg := "confirm_token is required for large forget operations; run preview first"
		if in.ConfirmToken != "" {
			msg = "confirm_token does not match the current selection; run preview again"
		}
		return nil, &Error{Code: CodeConfirmRequired, Message: msg,
			Extra: map[string]any{"field": "confirm_token", "requiresConfirm": true, "confirmToken": token, "count": len(cands)}}
	}
	out := &BatchForgetResult{Mode: "execute", Requested: len(cands), Count: len(cands), Results: []*MutationResult{}}
	for _, c := range cands {
		r, err := s.Forget(ctx, ForgetInput{ID: c.ID, Reason: in.Reason, Force: in.Force}, actor)
		if r == nil {
			e := AsError(err)
			if errors.Is(err, ErrFrozen) {
				return nil, err
			}
			r = &MutationResult{ID: c.ID, Status: e.Code, Error: e.Message}
		}
		if r.Status == StatusDeleted {
			out.Deleted++
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

func (s *Service) forgetCandidates(ctx context.Context, in BatchForgetInput, limit int) ([]*ForgetCandidate, error) {
	f := in.Filter
	f.IncludeDeleted, f.OnlyDeleted = false, false
	var out []*ForgetCandidate
	switch {
	case len(in.IDs) > 0:
		f.IDs = slices.Compact(slices.Clone(in.IDs))
		rows, err := storage.ListMemories(ctx, s.db.Reader(), f, len(f.IDs), 0)
		if err != nil {
			return nil, err
		}
		byID := map[string]*storage.Memory{}
		for _, m := range rows {
			byID[m.ID] = m
		}
		for _, id := range in.IDs { // the caller's order
			if m, ok := byID[id]; ok {
				out = append(out, &ForgetCandidate{ID: m.ID, Score: 1, Pinned: m.Pinned, Version: m.Version, Content: m.Content})
				delete(byID, id)
			}
		}
	case strings.TrimSpace(in.Query) != "":
		// Forgetting what merely shares a word with the query ("json")
		// is not what anyone asks for: by default a memory must hold
		// every word (as the index reads them: stemmed, without
		// stopwords).
		all := in.Match != MatchAny
		pool := limit
		if all {
			pool += forgetPool
		}
		hits, err := s.KeywordSearch(ctx, in.Query, f, pool)
		if err != nil {
			return nil, err
		}
		words := stems(strings.Join(text.QueryTerms(in.Query), " "))
		for _, h := range hits {
			if all && !holdsEvery(h.Memory.Content, words) {
				continue
			}
			out = append(out, &ForgetCandidate{ID: h.Memory.ID, Score: math.Round(h.Score*1000) / 1000,
				Pinned: h.Memory.Pinned, Version: h.Memory.Version, Content: h.Memory.Content})
		}
	default:
		rows, err := storage.ListMemoriesByRank(ctx, s.db.Reader(), f, limit)
		if err != nil {
			return nil, err
		}
		for _, m := range rows {
			out = append(out, &ForgetCandidate{ID: m.ID, Score: 1, Pinned: m.Pinned, Version: m.Version, Content: m.Content})
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	if out == nil {
		out = []*ForgetCandidate{}
	}
	return out, nil
}

// stems are the distinct tokens of s as the keyword index reads them.
func stems(s string) map[string]bool {
	out := map[string]bool{}
	keyword.Tokenize(s, func(tok []byte) { out[string(tok)] = true })
	return out
}

// holdsEvery reports whether content holds every one of words (stems).
func holdsEvery(content string, words map[string]bool) bool {
	if len(words) == 0 {
		return false
	}
	have := stems(content)
	for w := range words {
		if !have[w] {
			return false
		}
	}
	return true
}
