package storage

import (
	"context"
	"encoding/json"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Scopes (docs/design/evolution.md, "Scopes and slots"; migration 0018): a
// memory belongs to its project (scope NULL), to the user (scope 'user', in
// every project) or to the agent that wrote it (scope 'agent', who names
// the agent).

// SetMemoryScope sets memory id's scope ("" for the project scope).
func SetMemoryScope(ctx context.Context, q Querier, id, scope string) error {
	_, err := q.ExecContext(ctx, `UPDATE memories SET scope = ? WHERE id = ?`, nullable(scope), id)
	return err
}

var scopesOfQuery = dialect.SQL(`SELECT id, scope, COALESCE(who, '') FROM memories
	WHERE id IN (%s) AND scope IS NOT NULL`, textList)

// ScopesOf returns the scope of each of ids that has one (user or agent)
// and its writer: id → [scope, who].
func ScopesOf(ctx context.Context, q Querier, ids []string) (map[string][2]string, error) {
	out := map[string][2]string{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := q.QueryContext(ctx, scopesOfQuery.For(q), string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, scope, who string
		if err := rows.Scan(&id, &scope, &who); err != nil {
			return nil, err
		}
		out[id] = [2]string{scope, who}
	}
	return out, rows.Err()
}

// ScopeCandidates returns up to limit live memories of scope (user, or
// agent with who), newest first; with pinnedOnly, only pinned ones.
func ScopeCandidates(ctx context.Context, q Querier, scope, who string, pinnedOnly bool, limit int) ([]InjectCandidate, error) {
	return injectCandidates(ctx, q, scopeCond, []any{scope, who}, pinnedOnly, limit)
}

// scopeCond selects the memories of a scope (?), an agent's only its own
// (who ?).
const scopeCond = `scope = ? AND (scope <> 'agent' OR who = ?)`

// ScopeIDs returns the ids of up to limit live memories of scope (user,
// or agent with who), newest first.
func ScopeIDs(ctx context.Context, q Querier, scope, who string, limit int) ([]string, error) {
	return Strings(ctx, q, `SELECT id FROM memories WHERE is_deleted = 0 AND `+scopeCond+`
		ORDER BY created_at DESC LIMIT ?`, scope, who, limit)
}
