package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cairnmem/cairn/core/graph"
)

// MemoryEntities implements Client with GET /api/graph/entities?memory=ID: the entities a
// memory mentions, most mentioned first.
func (c *Remote) MemoryEntities(ctx context.Context, memoryID string) ([]graph.Entity, error) {
	var out struct {
		Entities []graph.Entity `json:"entities"`
	}
	if err := c.do(ctx, http.MethodGet, withQuery("/api/graph/entities", url.Values{"memory": {memoryID}}), nil, &out); err != nil {
		return nil, err
	}
	return out.Entities, nil
}

// GraphEntity implements Client with GET /api/graph/entities/{id}: one entity with its
// relations, neighbours and the memories that mention it, narrowed by q.
func (c *Remote) GraphEntity(ctx context.Context, id string, q graph.Query) (*graph.Detail, error) {
	v := url.Values{}
	if q.RelationType != "" {
		v.Set("relation", q.RelationType)
	}
	if q.Project != "" {
		v.Set("project", q.Project)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out graph.Detail
	if err := c.do(ctx, http.MethodGet, withQuery("/api/graph/entities/"+url.PathEscape(id), v), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
