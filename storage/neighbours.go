package storage

import (
	"context"

	"github.com/cairnmem/cairn/storage/dialect"
)

// SessionContext is the memory stated just before another in its session
// (memories.context_rid): what recall ranks a memory's neighbour by.
type SessionContext struct {
	ID      string
	Content string
}

var contextsByRIDQuery = dialect.SQL(`SELECT rid, id, content FROM memories WHERE rid IN (%s)`, intList)

// ContextsByRID returns the id and content of the memories rows among rids,
// by rid (the session contexts recall reads: the words, and which memory
// they are).
func ContextsByRID(ctx context.Context, q Querier, rids []int64) (map[int64]SessionContext, error) {
	out := make(map[int64]SessionContext, len(rids))
	if len(rids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, contextsByRIDQuery.For(q), jsonList(rids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var rid int64
		var c SessionContext
		if err := rows.Scan(&rid, &c.ID, &c.Content); err != nil {
			return nil, err
		}
		out[rid] = c
	}
	return out, rows.Err()
}
