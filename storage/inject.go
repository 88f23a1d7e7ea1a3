package storage

import (
	"context"

	"github.com/cairnmem/cairn/storage/dialect"
)

// ProjectScope is what the session hooks may inject into a session of
// Project: its own memories and those without a project, or, with All,
// every memory, or, with Only, the project's own memories and nothing else
// (a caller confined to the project by its token).
type ProjectScope struct {
	Project string
	// Names are short names stored for Project (not moved into it yet):
	// its memories too.
	Names []string
	All   bool
	Only  bool
}

// where renders the scope as a SQL condition on memories (no alias).
func (p ProjectScope) where(d dialect.Dialect) (string, []any) {
	if p.Only {
		return "COALESCE(project, '') = ?", []any{p.Project}
	}
	if p.All {
		return "TRUE", nil
	}
	if p.Project == "" {
		return "COALESCE(project, '') = ''", nil
	}
	if len(p.Names) > 0 {
		return "(project = ? OR project IN (" + textList.In(d) + ") OR COALESCE(project, '') = '')", []any{p.Project, jsonList(p.Names)}
	}
	return "(project = ? OR COALESCE(project, '') = '')", []any{p.Project}
}

// InjectCandidate is the part of a memory the session-start hook ranks.
type InjectCandidate struct {
	ID           string
	Content      string
	Type         string
	Importance   float64
	Pinned       bool
	Project      string // "" when none
	Tags         string // stored JSON text
	CreatedAt    string
	LastAccessed string // "" when never
}

const injectCandidateColumns = `id, content, type, importance, pinned, COALESCE(project, ''), tags, created_at, COALESCE(last_accessed, '')`

// InjectCandidates returns up to limit live memories in scope, newest
// first; with pinnedOnly, only pinned ones.
func InjectCandidates(ctx context.Context, q Querier, scope ProjectScope, pinnedOnly bool, limit int) ([]InjectCandidate, error) {
	cond, args := scope.where(dialect.Of(q))
	return injectCandidates(ctx, q, cond, args, pinnedOnly, limit)
}

// injectCandidates returns up to limit live memories meeting cond,
// newest first; with pinnedOnly, only pinned ones.
func injectCandidates(ctx context.Context, q Querier, cond string, args []any, pinnedOnly bool, limit int) ([]InjectCandidate, error) {
	pinned := ""
	if pinnedOnly {
		pinned = "pinned = 1 AND "
	}
	rows, err := q.QueryContext(ctx, `SELECT `+injectCandidateColumns+` FROM memories WHERE is_deleted = 0 AND `+pinned+cond+
		` ORDER BY created_at DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []InjectCandidate
	for rows.Next() {
		var c InjectCandidate
		if err := rows.Scan(&c.ID, &c.Content, &c.Type, &c.Importance, &c.Pinned, &c.Project, &c.Tags, &c.CreatedAt, &c.LastAccessed); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
