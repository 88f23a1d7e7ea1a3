package backend

import (
	"context"

	"github.com/cairnmem/cairn/core"
)

// Sessions is what the session view reads: one agent session with its
// checkpoints, the memories it was offered (rank, score, uses, relevance)
// and its continuity score.
type Sessions interface {
	Session(ctx context.Context, key string) (*core.SessionInfo, error)
}

// Session implements Sessions.
func (l *Local) Session(ctx context.Context, key string) (*core.SessionInfo, error) {
	return l.svc.Hooks().Session(ctx, key)
}

// Session implements Sessions with GET /api/sessions/{key}.
func (h *HTTP) Session(ctx context.Context, key string) (*core.SessionInfo, error) {
	return h.c.Session(ctx, key)
}
