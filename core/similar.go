package core

import (
	"context"
	"math"

	"github.com/cairnmem/cairn/storage"
)

type SimilarHit struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Type       string   `json:"type"`
	Tags       []string `json:"tags"`
	Score      float64  `json:"score"`
	Confidence float64  `json:"confidence"`
	CreatedAt  string   `json:"created_at"`
}

// Similar returns the k live memories closest in meaning to memory id,
// optionally of one type. It fails with not_found when the memory has no
// vector yet.
func (s *Service) Similar(ctx context.Context, id string, k int, typ string) ([]*SimilarHit, error) {
	f := storage.MemoryFilter{Type: typ}
	hits, ok, err := s.vectors.Similar(ctx, id, k+1, &f)
	if err != nil {
		return nil, &Error{Code: CodeVectorsUnavailable, Message: err.Error()}
	}
	if !ok {
		if _, err := s.Get(ctx, id, false); err != nil {
			return nil, err
		}
		return nil, &Error{Code: CodeNotFound, Message: "No embedding found for this memory"}
	}
	cands := map[string]*candidate{}
	for _, h := range hits {
		if h.ID != id {
			cands[h.ID] = &candidate{id: h.ID, vector: float64(h.Score)}
		}
	}
	if err := s.hydrate(ctx, cands); err != nil {
		return nil, err
	}
	out := []*SimilarHit{}
	for _, h := range hits {
		c, ok := cands[h.ID]
		if !ok || c.mem == nil || len(out) == k {
			continue
		}
		out = append(out, &SimilarHit{ID: c.id, Content: c.mem.Content, Type: c.mem.Type, Tags: c.mem.Tags,
			Score: math.Round(Clamp01(c.vector)*100) / 100, Confidence: c.mem.Confidence, CreatedAt: c.mem.CreatedAt})
	}
	return out, nil
}
