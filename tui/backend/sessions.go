package backend

import (
	"context"

	"github.com/cairnmem/cairn/core/sessions"
)

// Sessions is what the session view reads: one agent session with its
// checkpoints, the memories it was offered (rank, score, uses, relevance)
// and its continuity score.
type Sessions interface {
	Session(ctx context.Context, key string) (*sessions.Info, error)
}

// Session implements Sessions.
func (l *Local) Session(ctx context.Context, key string) (*sessions.Info, error) {
	return l.app.Sessions.Get(ctx, key)
}

// Session implements Sessions with GET /api/sessions/{key}.
func (h *HTTP) Session(ctx context.Context, key string) (*sessions.Info, error) {
	return h.c.Session(ctx, key)
}
