package core

import (
	"context"
	"errors"
	"log/slog"
	"testing"
)

// A graph step that ran out of its time budget is expected under load and
// logged at DEBUG; a real failure stays a warning.
func TestGraphSkipLevel(t *testing.T) {
	ctx := context.Background()
	expired, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want slog.Level
	}{
		{ctx, errGraphDeadline, slog.LevelDebug},
		{ctx, context.DeadlineExceeded, slog.LevelDebug},
		{expired, errors.New("interrupted"), slog.LevelDebug},
		{ctx, errors.New("no such table: entities"), slog.LevelWarn},
	} {
		if got := skipLevel(c.ctx, c.err); got != c.want {
			t.Errorf("skipLevel(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
