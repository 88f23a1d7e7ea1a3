package storage

import (
	"context"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// HistorySearch is the terminal UI's History filter. Event and Actor
// match exactly; Memory and Text match loosely, as a person types them.
type HistorySearch struct {
	Event string
	Actor string
	// Memory is a memory id, the start of one, or the start of its short
	// form (the last 8 characters, which the UI shows).
	Memory string
	// Text holds words that must each appear (case-insensitive for ASCII)
	// in the event's old or new content, its reason or its actor.
	Text []string
}

// ShortIDLen is how many trailing characters of an id the UI shows.
const ShortIDLen = 8

// SearchHistory returns the events matching f, newest first.
func SearchHistory(ctx context.Context, q Querier, f HistorySearch, limit int) ([]*HistoryEvent, error) {
	where, args := f.where(dialect.Of(q))
	args = append(args, limit)
	return scanHistory(q.QueryContext(ctx, `SELECT `+historySelect+` FROM memory_history h WHERE `+where+`
		ORDER BY created_at DESC, rowid DESC LIMIT ?`, args...))
}

// idSuffix is the last ? characters of memory_id.
var idSuffix = dialect.Fragment{"substr(memory_id, -?)", "right(memory_id, ?)"}

// where is f as the condition of a query on memory_history h, with its
// arguments.
func (f HistorySearch) where(d dialect.Dialect) (string, []any) {
	l := " " + dialect.Like.In(d) + ` ? ESCAPE '\'`
	conds := []string{"TRUE"}
	var args []any
	if f.Event != "" {
		conds = append(conds, historyEventCond(f.Event))
		args = append(args, f.Event)
	}
	if f.Actor != "" {
		conds = append(conds, "changed_by = ?")
		args = append(args, f.Actor)
	}
	if f.Memory != "" {
		p := likeEscape(f.Memory) + "%"
		conds = append(conds, `(memory_id`+l+` OR `+idSuffix.In(d)+l+`)`)
		args = append(args, p, ShortIDLen, p)
	}
	for _, w := range f.Text {
		p := "%" + likeEscape(w) + "%"
		conds = append(conds, `(COALESCE(`+historyNewContent+`, '')`+l+` OR COALESCE(old_content, '')`+l+`
			OR COALESCE(reason, '')`+l+` OR changed_by`+l+`)`)
		args = append(args, p, p, p, p)
	}
	return strings.Join(conds, " AND "), args
}
