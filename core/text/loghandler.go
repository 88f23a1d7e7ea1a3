package text

import (
	"context"
	"fmt"
	"log/slog"
)

// RedactLogs wraps h so that what it writes holds no credential: the
// message and every attribute value (strings, errors, anything printed)
// pass RedactURLsIn (a URL's password, its secret query values) and
// Redact (tokens, keys, passwords in any other form). A log line names
// URLs, errors and paths from requests, at every level; cairn.log and the
// stderr of cairn serve keep none of their secrets.
func RedactLogs(h slog.Handler) slog.Handler { return redactHandler{h} }

type redactHandler struct{ h slog.Handler }

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, redactLogText(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = redactAttr(a)
	}
	return redactHandler{r.h.WithAttrs(clean)}
}

func (r redactHandler) WithGroup(name string) slog.Handler { return redactHandler{r.h.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(redactLogText(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]slog.Attr, len(g))
		for i, x := range g {
			clean[i] = redactAttr(x)
		}
		a.Value = slog.GroupValue(clean...)
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if c := redactLogText(s); c != s {
			a.Value = slog.StringValue(c)
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}

func redactLogText(s string) string {
	if s == "" {
		return s
	}
	out, _ := Redact(RedactURLsIn(s))
	return out
}
