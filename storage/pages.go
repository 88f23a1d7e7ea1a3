package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Paging by position. The terminal UI reaches every row of a long list a
// page at a time. A cursor names a row's place in the list (its
// created_at, then its row id), so reading the page after it walks the
// list's index from there: a page costs the same at row 90,000 as at row
// 0, where OFFSET would read every row before it.

// PageQuery asks for one page of a list ordered newest first (oldest
// first with Oldest). At most one of Before, After and Last is set; none
// asks for the first page.
type PageQuery struct {
	// Oldest orders the list oldest first; Before and After still mean
	// below and above in the list as shown.
	Oldest bool
	// Before asks for the rows after the cursor in list order (older);
	// with Inclusive, the row at the cursor comes first (a refresh
	// re-reads from a row it shows).
	Before    string
	Inclusive bool
	// After asks for the rows just above the cursor (newer), nearest
	// last: still in list order.
	After string
	// Last asks for the list's last rows (the oldest).
	Last  bool
	Limit int
}

// Cursor is the position of the row created at createdAt with row id rid:
// the time, a bar and the row id zero-padded to 20 digits, so that
// cursors compare as strings in the order of the list.
func Cursor(createdAt string, rid int64) string {
	return createdAt + "|" + fmt.Sprintf("%020d", rid)
}

// ParseCursor splits a cursor; a malformed one is an error naming it.
func ParseCursor(c string) (createdAt string, rid int64, err error) {
	at, n, ok := strings.Cut(c, "|")
	if ok {
		rid, err = strconv.ParseInt(n, 10, 64)
	}
	if !ok || err != nil || at == "" {
		return "", 0, fmt.Errorf("cursor %q: want TIME|ROWID as a page returned it", c)
	}
	return at, rid, nil
}

// clause is the page's condition on the columns at and rid (with its
// arguments), the ORDER BY, and whether the rows come back in reverse
// list order (the caller flips them).
func (p PageQuery) clause(at, rid string) (cond string, args []any, order string, reversed bool, err error) {
	// down and up are the comparisons that select the rows below and
	// above a cursor; list and back the orders that read them.
	down, up, list, back := "<", ">", at+" DESC, "+rid+" DESC", at+" ASC, "+rid+" ASC"
	if p.Oldest {
		down, up, list, back = up, down, back, list
	}
	row := "(" + at + ", " + rid + ") "
	switch {
	case p.Before != "":
		t, r, err := ParseCursor(p.Before)
		if err != nil {
			return "", nil, "", false, err
		}
		if p.Inclusive {
			down += "="
		}
		return row + down + " (?, ?)", []any{t, r}, list, false, nil
	case p.After != "":
		t, r, err := ParseCursor(p.After)
		if err != nil {
			return "", nil, "", false, err
		}
		return row + up + " (?, ?)", []any{t, r}, back, true, nil
	case p.Last:
		return "TRUE", nil, back, true, nil
	}
	return "TRUE", nil, list, false, nil
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// ListMemoriesPage returns one page of the memories matching f, newest
// first, with each row's cursor.
func ListMemoriesPage(ctx context.Context, q Querier, f MemoryFilter, p PageQuery) ([]*Memory, []string, error) {
	cond, pargs, order, reversed, err := p.clause("m.created_at", "m.rid")
	if err != nil {
		return nil, nil, err
	}
	where, args := f.Where(dialect.Of(q))
	args = append(append(args, pargs...), max(1, p.Limit))
	rows, err := q.QueryContext(ctx, `SELECT m.rid, `+memoryColumns+` FROM memories m
		WHERE `+where+` AND `+cond+` ORDER BY `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []*Memory
	var cursors []string
	for rows.Next() {
		var rid int64
		m, err := ScanMemory(ridScanner{rows, &rid})
		if err != nil {
			return nil, nil, err
		}
		out = append(out, m)
		cursors = append(cursors, Cursor(m.CreatedAt, rid))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if reversed {
		reverse(out)
		reverse(cursors)
	}
	return out, cursors, nil
}

// SearchHistoryPage is SearchHistory one page at a time, with each
// event's cursor.
func SearchHistoryPage(ctx context.Context, q Querier, f HistorySearch, p PageQuery) ([]*HistoryEvent, []string, error) {
	cond, pargs, order, reversed, err := p.clause("h.created_at", "h.rowid")
	if err != nil {
		return nil, nil, err
	}
	where, args := f.where(dialect.Of(q))
	args = append(append(args, pargs...), max(1, p.Limit))
	rows, err := q.QueryContext(ctx, `SELECT h.rowid, `+historySelect+` FROM memory_history h WHERE `+where+` AND `+cond+`
		ORDER BY `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []*HistoryEvent
	var cursors []string
	for rows.Next() {
		var h HistoryEvent
		var rid int64
		var reason, meta, sess, req sql.NullString
		if err := rows.Scan(&rid, &h.ID, &h.MemoryID, &h.Event, &h.OldContent, &h.NewContent, &h.ChangedBy,
			&h.ActorType, &reason, &meta, &sess, &req, &h.CreatedAt); err != nil {
			return nil, nil, err
		}
		h.Reason, h.Metadata, h.SessionID, h.RequestID = reason.String, meta.String, sess.String, req.String
		out = append(out, &h)
		cursors = append(cursors, Cursor(h.CreatedAt, rid))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if reversed {
		reverse(out)
		reverse(cursors)
	}
	return out, cursors, nil
}

// CountHistory counts the events matching f.
func CountHistory(ctx context.Context, q Querier, f HistorySearch) (int, error) {
	where, args := f.where(dialect.Of(q))
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM memory_history h WHERE `+where, args...).Scan(&n)
	return n, err
}
