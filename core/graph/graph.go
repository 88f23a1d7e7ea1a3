package graph

import (
	"context"
	"errors"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// Graph answers questions about the knowledge graph (entities, their
// relations, the memories that mention them). It only reads; the
// pipeline writes the graph, and recall's graph boost reads it in core.
type Graph struct {
	db *storage.DB
}

// New returns the graph of db.
func New(db *storage.DB) *Graph { return &Graph{db: db} }

// Entity is one entity as the API lists it.
type Entity struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	CanonicalName string `json:"canonical_name"`
	EntityType    string `json:"entity_type"`
	Mentions      int    `json:"mentions"`
	UpdatedAt     string `json:"updated_at"`
}

// Entities lists entities whose canonical name contains q (all when q
// is empty), most mentioned first.
func (g *Graph) Entities(ctx context.Context, q string, limit int) ([]Entity, error) {
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 1000)
	ents, err := storage.ListEntities(ctx, g.db.Reader(), core.CanonicalEntityName(q), limit)
	if err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(ents))
	for _, e := range ents {
		out = append(out, Entity{ID: e.ID, Name: e.Name, CanonicalName: e.CanonicalName, EntityType: e.EntityType,
			Mentions: e.Mentions, UpdatedAt: e.UpdatedAt})
	}
	return out, nil
}

// Detail is one entity of the knowledge graph with its relations,
// the entities they lead to, and the memories that mention it.
type Detail struct {
	Entity     Entity         `json:"entity"`
	Relations  []Relation     `json:"relations"`
	Neighbours []Entity       `json:"neighbours"`
	Memories   []*core.Memory `json:"memories"`
}

// Relation is one relation seen from the entity asked about:
// direction "out" when it is the source, "in" when it is the target.
type Relation struct {
	ID           string  `json:"id"`
	RelationType string  `json:"relation_type"`
	Direction    string  `json:"direction"`
	Other        Entity  `json:"other"`
	Mentions     int     `json:"mentions"`
	Confidence   float64 `json:"confidence"`
	UpdatedAt    string  `json:"updated_at"`
}

// Query narrows Entity: relations of one type, memories of one
// project, and how many of each.
type Query struct {
	RelationType string
	Project      string
	Limit        int // relations and memories each; default 50, at most 500
}

func entityOf(e storage.Entity) Entity {
	return Entity{ID: e.ID, Name: e.Name, CanonicalName: e.CanonicalName, EntityType: e.EntityType,
		Mentions: e.Mentions, UpdatedAt: e.UpdatedAt}
}

// Entity returns entity id with its relations (either direction,
// most observed first), its neighbours (the distinct entities those
// relations reach) and the live memories that mention it, newest first.
func (g *Graph) Entity(ctx context.Context, id string, q Query) (*Detail, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	r := g.db.Reader()
	e, err := storage.GetEntity(ctx, r, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &core.Error{Code: core.CodeNotFound, Message: "no entity " + id}
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
	d := &Detail{Entity: entityOf(*e), Relations: []Relation{}, Neighbours: []Entity{}, Memories: []*core.Memory{}}
	seen := map[string]bool{}
	for _, rel := range rels {
		dir := "in"
		if rel.Outgoing {
			dir = "out"
		}
		other := entityOf(rel.Other)
		d.Relations = append(d.Relations, Relation{ID: rel.ID, RelationType: rel.RelationType, Direction: dir,
			Other: other, Mentions: rel.Mentions, Confidence: rel.Confidence, UpdatedAt: rel.UpdatedAt})
		if !seen[other.ID] {
			seen[other.ID] = true
			d.Neighbours = append(d.Neighbours, other)
		}
	}
	for _, m := range mems {
		d.Memories = append(d.Memories, core.ViewOf(m))
	}
	return d, nil
}

// MemoryEntities lists the entities a memory mentions, most mentioned
// first.
func (g *Graph) MemoryEntities(ctx context.Context, memoryID string) ([]Entity, error) {
	ents, err := storage.MemoryEntities(ctx, g.db.Reader(), memoryID)
	if err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(ents))
	for _, e := range ents {
		out = append(out, entityOf(e))
	}
	return out, nil
}
