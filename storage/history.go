package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// History event names.
const (
	EventCreated   = "created"
	EventUpdated   = "updated"
	EventDeleted   = "deleted"
	EventRecovered = "recovered"
	EventMerged    = "merged"
	EventNone      = "none"
)

// HistoryEvent is one row of memory_history.
type HistoryEvent struct {
	ID         string
	MemoryID   string
	Event      string
	OldContent *string
	NewContent *string
	ChangedBy  string
	ActorType  string
	Reason     string
	Metadata   string // JSON object, or "" for none
	SessionID  string
	RequestID  string
	CreatedAt  string
}

const historyColumns = `id, memory_id, event, old_content, new_content, changed_by, actor_type,
	reason, metadata, session_id, request_id, created_at`

// A "created" event whose memory row holds the same content stores none
// (new_content NULL): historyNewContent reads it from the row, and the
// triggers of migration 17 copy it into the event before the row's
// content changes or the row is deleted. One memory's content is thus
// stored once, not twice, while the audit trail still shows what was
// created.

// historyNewContent is the new content of the event aliased h.
const historyNewContent = `COALESCE(h.new_content, CASE WHEN h.event = 'created'
	THEN (SELECT m.content FROM memories m WHERE m.id = h.memory_id) END)`

// historySelect lists historyColumns for a query on memory_history h.
const historySelect = `h.id, h.memory_id, h.event, h.old_content, ` + historyNewContent + `, h.changed_by, h.actor_type,
	h.reason, h.metadata, h.session_id, h.request_id, h.created_at`

// historyValues is one row of an insert of historyColumns; its new
// content is NULL when it would repeat the memory row's (historyArgs).
const historyValues = `(?,?,?,?,CASE WHEN ? AND ? = (SELECT content FROM memories WHERE id = ?) THEN NULL ELSE ? END,?,?,?,?,?,?,?)`

// historyArgs are the values of historyValues for h.
func historyArgs(h *HistoryEvent) []any {
	created := h.Event == EventCreated && h.NewContent != nil
	return []any{h.ID, h.MemoryID, h.Event, h.OldContent, created, h.NewContent, h.MemoryID, h.NewContent,
		h.ChangedBy, orDefault(h.ActorType, "operator"), nullable(h.Reason), nullable(h.Metadata),
		nullable(h.SessionID), nullable(h.RequestID), h.CreatedAt}
}

// InsertHistory appends one event to the audit trail.
func InsertHistory(ctx context.Context, q Querier, h *HistoryEvent) error {
	_, err := insertHistory(ctx, q, "", h)
	return err
}

// insertHistory inserts one event, with onConflict ("" or "ON CONFLICT
// DO NOTHING") after it.
func insertHistory(ctx context.Context, q Querier, onConflict string, h *HistoryEvent) (sql.Result, error) {
	return q.ExecContext(ctx, `INSERT INTO memory_history (`+historyColumns+`) VALUES `+historyValues+onConflict, historyArgs(h)...)
}

// HistoryFilter selects audit events. Zero values mean "no constraint".
type HistoryFilter struct {
	MemoryID string
	Event    string
	Actor    string // matches changed_by
	Before   string // created_at strictly before, for paging newest-first
	Oldest   bool   // ascending order instead of newest first
}

// historyEventCond matches events of kind event (one argument). Other
// kinds than "created" repeat the partial index's condition so that
// idx_history_event serves them; "created" events are read through
// idx_history_created.
func historyEventCond(event string) string {
	if event == EventCreated {
		return "event = ?"
	}
	return "event = ? AND event <> 'created'"
}

// ListHistory returns events matching f, newest first unless f.Oldest.
func ListHistory(ctx context.Context, q Querier, f HistoryFilter, limit int) ([]*HistoryEvent, error) {
	var conds []string
	var args []any
	if f.MemoryID != "" {
		conds = append(conds, "memory_id = ?")
		args = append(args, f.MemoryID)
	}
	if f.Event != "" {
		conds = append(conds, historyEventCond(f.Event))
		args = append(args, f.Event)
	}
	if f.Actor != "" {
		conds = append(conds, "changed_by = ?")
		args = append(args, f.Actor)
	}
	if f.Before != "" {
		conds = append(conds, "created_at < ?")
		args = append(args, f.Before)
	}
	where := "TRUE"
	if len(conds) > 0 {
		where = strings.Join(conds, " AND ")
	}
	order := "created_at DESC, rowid DESC"
	if f.Oldest {
		order = "created_at ASC, rowid ASC"
	}
	args = append(args, limit)
	return scanHistory(q.QueryContext(ctx, `SELECT `+historySelect+` FROM memory_history h WHERE `+where+`
		ORDER BY `+order+` LIMIT ?`, args...))
}

// scanHistory reads rows selected with historySelect.
func scanHistory(rows *sql.Rows, err error) ([]*HistoryEvent, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*HistoryEvent{}
	for rows.Next() {
		var h HistoryEvent
		var reason, meta, sess, req sql.NullString
		if err := rows.Scan(&h.ID, &h.MemoryID, &h.Event, &h.OldContent, &h.NewContent, &h.ChangedBy,
			&h.ActorType, &reason, &meta, &sess, &req, &h.CreatedAt); err != nil {
			return nil, err
		}
		h.Reason, h.Metadata, h.SessionID, h.RequestID = reason.String, meta.String, sess.String, req.String
		out = append(out, &h)
	}
	return out, rows.Err()
}

// InsertHistoryIfAbsent appends an event unless one with its id exists
// (an import run twice adds nothing); it reports whether it wrote.
func InsertHistoryIfAbsent(ctx context.Context, q Querier, h *HistoryEvent) (bool, error) {
	res, err := insertHistory(ctx, q, " ON CONFLICT DO NOTHING", h)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// MemoryExists reports whether a row with this id exists, live or deleted.
func MemoryExists(ctx context.Context, q Querier, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM memories WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
