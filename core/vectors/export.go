package vectors

import (
	"context"

	"github.com/cairnmem/cairn/core/vector"
	"github.com/cairnmem/cairn/storage"
)

// ExportedEmbedding is one live memory with its vector, as GET
// /api/embeddings pages them.
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
func (v *Vectors) Embeddings(ctx context.Context, limit, offset int, withVectors bool) ([]*ExportedEmbedding, int, error) {
	if v.embedder == nil {
		return []*ExportedEmbedding{}, 0, nil
	}
	model := v.embedder.Model()
	r := v.db.Reader()
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
		tags := m.Tags
		if tags == nil {
			tags = []string{}
		}
		e := &ExportedEmbedding{ID: m.ID, Content: m.Content, Who: m.Who, Importance: m.Importance, Type: m.Type,
			Tags: tags, SourceType: m.SourceType, SourceID: m.SourceID, CreatedAt: m.CreatedAt,
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
