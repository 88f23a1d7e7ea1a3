package core

import (
	"context"
	"math"
	"strings"

	"github.com/cairnmem/cairn/storage"
)

// Recall limits.
const (
	DefaultRecallLimit = 10
	MaxRecallLimit     = 1000
)

// Recall modes: which legs run.
const (
	ModeHybrid  = "hybrid"
	ModeKeyword = "keyword"
	ModeVector  = "vector"
)

// RecallInput is a search request.
type RecallInput struct {
	Query string
	// KeywordQuery, when set, is used for the keyword leg instead of Query.
	KeywordQuery string
	Limit        int
	Filter       storage.MemoryFilter
	// Mode restricts recall to one leg (keyword, vector); empty is hybrid.
	Mode string
	// Explain fills each hit's Explain with its score parts.
	Explain bool
	// NoTracking leaves access counts alone (benchmarks, previews).
	NoTracking bool
}

// ScoreParts explains one hit's score: each leg's contribution and each
// adjustment applied after fusion. Multipliers are 1 when not applied.
type ScoreParts struct {
	BM25      float64 `json:"bm25"`      // raw FTS5 bm25 (negative; lower is better), 0 if no keyword hit
	Keyword   float64 `json:"keyword"`   // normalized keyword score in [0,1]
	Hint      float64 `json:"hint"`      // best hint (prospective query) match in [0,1]
	Vector    float64 `json:"vector"`    // cosine similarity in [0,1]
	Fused     float64 `json:"fused"`     // after fusing the legs
	Graph     float64 `json:"graph"`     // additive graph boost
	Rerank    float64 `json:"rerank"`    // reranker's similarity, 0 if not reranked
	Dampening float64 `json:"dampening"` // multiplier from gravity/hub/resolution
	Decay     float64 `json:"decay"`     // importance × decay multiplier
	Final     float64 `json:"final"`
}

// RecallHit is one ranked memory.
type RecallHit struct {
	ID            string   `json:"id"`
	Content       string   `json:"content"`
	ContentLength int      `json:"content_length"`
	Truncated     bool     `json:"truncated"`
	Score         float64  `json:"score"`
	Source        string   `json:"source"`
	Type          string   `json:"type"`
	Tags          []string `json:"tags"`
	Pinned        bool     `json:"pinned"`
	Importance    float64  `json:"importance"`
	Who           string   `json:"who,omitempty"`
	Project       string   `json:"project,omitempty"`
	CreatedAt     string   `json:"created_at"`
	// Explain is set when the request asked for it.
	Explain *ScoreParts `json:"explain,omitempty"`
}

// RecallResult is a ranked list and how it was produced. Method is
// "keyword" when only full-text search contributed.
type RecallResult struct {
	Results []*RecallHit `json:"results"`
	Query   string       `json:"query"`
	Method  string       `json:"method"`
}

// Recall searches live memories. This is the keyword leg (FTS5 with BM25);
// deleted memories and every filter are applied in SQL.
func (s *Service) Recall(ctx context.Context, in RecallInput) (*RecallResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, invalid("query", "query is required")
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultRecallLimit
	}
	if limit < 1 || limit > MaxRecallLimit {
		return nil, invalid("limit", "limit must be an integer from 1 to %d", MaxRecallLimit)
	}
	kq := in.KeywordQuery
	if strings.TrimSpace(kq) == "" {
		kq = in.Query
	}
	f := in.Filter
	f.IncludeDeleted, f.OnlyDeleted = false, false
	hits, err := s.KeywordSearch(ctx, kq, f, limit)
	if err != nil {
		return nil, err
	}
	out := &RecallResult{Results: make([]*RecallHit, 0, len(hits)), Query: in.Query, Method: "keyword"}
	for _, h := range hits {
		out.Results = append(out.Results, s.recallHit(h.Memory, h.Score, "keyword"))
	}
	return out, nil
}

func (s *Service) recallHit(m *Memory, score float64, source string) *RecallHit {
	content, n := m.Content, CharCount(m.Content)
	truncated := false
	if limit := s.cfg.Guardrails.RecallTruncateChars; n > limit {
		content = string([]rune(content)[:limit]) + " [truncated]"
		truncated = true
	}
	return &RecallHit{ID: m.ID, Content: content, ContentLength: n, Truncated: truncated,
		Score: math.Round(score*1000) / 1000, Source: source, Type: m.Type, Tags: m.Tags, Pinned: m.Pinned,
		Importance: m.Importance, Who: m.Who, Project: m.Project, CreatedAt: m.CreatedAt}
}
