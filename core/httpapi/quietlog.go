package httpapi

import (
	"context"
	"log/slog"
)

// quietLogger is l for a library that logs routine events at INFO (the MCP
// SDK: three lines per stateless request): those are logged at DEBUG,
// warnings and errors as they are.
func quietLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoteInfo{l.Handler()})
}

// demoteInfo is a slog.Handler that logs INFO records at DEBUG.
type demoteInfo struct{ h slog.Handler }

func (d demoteInfo) Enabled(ctx context.Context, level slog.Level) bool {
	if level == slog.LevelInfo {
		level = slog.LevelDebug
	}
	return d.h.Enabled(ctx, level)
}

func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		r.Level = slog.LevelDebug
	}
	return d.h.Handle(ctx, r)
}

func (d demoteInfo) WithAttrs(attrs []slog.Attr) slog.Handler {
	return demoteInfo{d.h.WithAttrs(attrs)}
}

func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.h.WithGroup(name)} }
