package core

import (
	"context"
	"math"

	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
)

type ExportedEmbedding struct {
	ID         string    `json:"id"`
	Content    string    `json:"content"`
	Who        string    `json:"who,omitempty"`
	Importance float64   `json:"importance"`
	Type       string    `json:"type"`
	Tags       []string  `json:"tags"`
	SourceType string    `json:"sourceType"`
	SourceID   string    `json:"sourceId,omitempty"`
	CreatedAt  string    `json:"createdAt"`
	Model      string    `json:"model"`
	Dimensions int       `json:"dimensions"`
	Vector     []float32 `json:"vector,omitempty"`
}

// Embeddings pages through live memories that have a vector for the
// current model, oldest first.
func (s *Service) Embeddings(ctx context.Context, limit, offset int, withVectors bool) ([]*ExportedEmbedding, int, error) {
	if s.embedder == nil {
		return []*ExportedEmbedding{}, 0, nil
	}
	model := s.embedder.Model()
	r := s.db.Reader()
	total, err := storage.CountEmbeddedMemories(ctx, r, model)
	if err != nil {
		return nil, 0, err
	}
	rows, err := storage.ListEmbeddedMemories(ctx, r, model, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*ExportedEmbedding, 0, len(rows))
	for _, row := range rows {
		m := row.Memory
		e := &ExportedEmbedding{ID: m.ID, Content: m.Content, Who: m.Who, Importance: m.Importance, Type: m.Type,
			Tags: ViewOf(m).Tags, SourceType: m.SourceType, SourceID: m.SourceID, CreatedAt: m.CreatedAt,
			Model: model, Dimensions: row.Dimensions}
		if withVectors {
			if e.Vector, err = vector.Decode(row.Vector, row.Dimensions); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, e)
	}
	return out, total, nil
}

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
	ix, err := s.emb.index(ctx)
	if err != nil {
		return nil, &Error{Code: CodeVectorsUnavailable, Message: err.Error()}
	}
	v, ok := ix.Vector(id)
	if !ok {
		if _, err := s.Get(ctx, id, false); err != nil {
			return nil, err
		}
		return nil, &Error{Code: CodeNotFound, Message: "No embedding found for this memory"}
	}
	f := storage.MemoryFilter{Type: typ}
	hits := ix.Search(v, k+1, &f)
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
