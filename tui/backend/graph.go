package backend

import (
	"context"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/connectors"
)

// Graph is what the Jobs pane's connectors view and the Recall pane's
// entity view read and run: the connectors with their state, a sync on
// request, a memory's entities and one entity's neighbourhood. Local and
// HTTP reach the same core functions the API serves.
type Graph interface {
	// Connectors returns every connector with its state, oldest first.
	Connectors(ctx context.Context) ([]*connectors.Connector, error)
	// SyncConnector syncs connector id now. A sync that ran but failed
	// returns what it did and the error, both.
	SyncConnector(ctx context.Context, id string) (*connectors.SyncResult, error)
	// MemoryEntities lists the entities memory id mentions, most
	// mentioned first.
	MemoryEntities(ctx context.Context, id string) ([]core.GraphEntity, error)
	// Entity returns entity id with its relations, neighbours and the
	// memories that mention it (up to EntityLimit of each).
	Entity(ctx context.Context, id string) (*core.EntityDetail, error)
}

// EntityLimit is how many relations and memories the entity view loads.
const EntityLimit = 50

// Connectors implements Graph.
func (l *Local) Connectors(ctx context.Context) ([]*connectors.Connector, error) {
	return l.app.Connectors.List(ctx)
}

// SyncConnector implements Graph.
func (l *Local) SyncConnector(ctx context.Context, id string) (*connectors.SyncResult, error) {
	return l.app.Connectors.Sync(ctx, id)
}

// MemoryEntities implements Graph.
func (l *Local) MemoryEntities(ctx context.Context, id string) ([]core.GraphEntity, error) {
	return l.svc.MemoryEntities(ctx, id)
}

// Entity implements Graph.
func (l *Local) Entity(ctx context.Context, id string) (*core.EntityDetail, error) {
	return l.svc.GraphEntity(ctx, id, core.EntityQuery{Limit: EntityLimit})
}

// Connectors implements Graph with GET /api/connectors.
func (h *HTTP) Connectors(ctx context.Context) ([]*connectors.Connector, error) {
	return h.c.Connectors(ctx)
}

// SyncConnector implements Graph with POST /api/connectors/{id}/sync.
func (h *HTTP) SyncConnector(ctx context.Context, id string) (*connectors.SyncResult, error) {
	return h.c.SyncConnector(ctx, id)
}

// MemoryEntities implements Graph with GET /api/graph/entities?memory=.
func (h *HTTP) MemoryEntities(ctx context.Context, id string) ([]core.GraphEntity, error) {
	return h.c.MemoryEntities(ctx, id)
}

// Entity implements Graph with GET /api/graph/entities/{id}.
func (h *HTTP) Entity(ctx context.Context, id string) (*core.EntityDetail, error) {
	return h.c.GraphEntity(ctx, id, core.EntityQuery{Limit: EntityLimit})
}
