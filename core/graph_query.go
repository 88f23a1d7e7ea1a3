package core

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/storage"
)

// EntityDetail is one entity of the knowledge graph with its relations,
// the entities they lead to, and the memories that mention it.
type EntityDetail struct {
	Entity     GraphEntity      `json:"entity"`
	Relations  []EntityRelation `json:"relations"`
	Neighbours []GraphEntity    `json:"neighbours"`
	Memories   []*Memory        `json:"memories"`
}

// EntityRelation is one relation seen from the entity asked about:
// direction "out" when it is the source, "in" when it is the target.
type EntityRelation struct {
	ID           string      `json:"id"`
	RelationType string      `json:"relation_type"`
	Direction    string      `json:"direction"`
	Other        GraphEntity `json:"other"`
	Mentions     int         `json:"mentions"`
	Confidence   float64     `json:"confidence"`
	UpdatedAt    string      `json:"updated_at"`
}

// EntityQuery narrows GraphEntity: relations of one type, memories of one
// project, and how many of each.
type EntityQuery struct {
	RelationType string
	Project      string
	Limit        int // relations and memories each; default 50, at most 500
}

func graphEntityOf(e storage.Entity) GraphEntity {
	return GraphEntity{ID: e.ID, Name: e.Name, CanonicalName: e.CanonicalName, EntityType: e.EntityType,
		Mentions: e.Mentions, UpdatedAt: e.UpdatedAt}
}

// GraphEntity returns entity id with its relations (either direction,
// most observed first), its neighbours (the distinct entities those
// relations reach) and the live memories that mention it, newest first.
func (s *Service) GraphEntity(ctx context.Context, id string, q EntityQuery) (*EntityDetail, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	r := s.db.Reader()
	e, err := storage.GetEntity(ctx, r, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &Error{Code: CodeNotFound, Message: "no entity " + id}
	}
	if err != nil {
		return nil, err
	}
	rels, err := storage.EntityRelations(ctx, r, id, q.RelationType, limit)
	if err != nil {
		return nil, err
	}
	mems, err := storage.EntityMemories(ctx, r, id, q.Project, limit)
	if err != nil {
		return nil, err
	}
	d := &EntityDetail{Entity: graphEntityOf(*e), Relations: []EntityRelation{}, Neighbours: []GraphEntity{}, Memories: []*Memory{}}
	seen := map[string]bool{}
	for _, rel := range rels {
		dir := "in"
		if rel.Outgoing {
			dir = "out"
		}
		other := graphEntityOf(rel.Other)
		d.Relations = append(d.Relations, EntityRelation{ID: rel.ID, RelationType: rel.RelationType, Direction: dir,
			Other: other, Mentions: rel.Mentions, Confidence: rel.Confidence, UpdatedAt: rel.UpdatedAt})
		if !seen[other.ID] {
			seen[other.ID] = true
			d.Neighbours = append(d.Neighbours, other)
		}
	}
	for _, m := range mems {
		d.Memories = append(d.Memories, ViewOf(m))
	}
	return d, nil
}

// MemoryEntities lists the entities a memory mentions, most mentioned
// first.
func (s *Service) MemoryEntities(ctx context.Context, memoryID string) ([]GraphEntity, error) {
	ents, err := storage.MemoryEntities(ctx, s.db.Reader(), memoryID)
	if err != nil {
		return nil, err
	}
	out := make([]GraphEntity, 0, len(ents))
	for _, e := range ents {
		out = append(out, graphEntityOf(e))
	}
	return out, nil
}
