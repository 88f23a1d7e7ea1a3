package storage

import (
	"context"
	"fmt"
)

// memory_hints holds alternative phrasings of a memory (heuristic ones
// computed at write time), indexed in memory_hints_fts so a query worded
// differently from the memory still finds it.

const deleteHeuristicHintsQuery = `DELETE FROM memory_hints WHERE memory_id = ? AND source = 'heuristic'`

const insertHeuristicHintQuery = `INSERT INTO memory_hints (memory_id, hint, source, created_at) VALUES (?, ?, 'heuristic', ?)`

// ReplaceHeuristicHints replaces the heuristic hints of memory memoryID
// with hints.
func ReplaceHeuristicHints(ctx context.Context, q Querier, memoryID string, hints []string, now string) error {
	if _, err := q.ExecContext(ctx, deleteHeuristicHintsQuery, memoryID); err != nil {
		return fmt.Errorf("replace hints: %w", err)
	}
	for _, h := range hints {
		if _, err := q.ExecContext(ctx, insertHeuristicHintQuery, memoryID, h, now); err != nil {
			return fmt.Errorf("write hints: %w", err)
		}
	}
	return nil
}

// HintMatch is one hint matching a full-text query.
type HintMatch struct {
	MemoryID string
	// BM25 is FTS5's raw score: negative, lower is better.
	BM25 float64
}

// MatchHints returns up to limit hints matching the FTS5 expression match
// whose memory passes f, best first. A memory may appear more than once
// (SQLite refuses bm25() under an aggregate, so the caller picks each
// memory's best).
func MatchHints(ctx context.Context, q Querier, match string, f MemoryFilter, limit int) ([]HintMatch, error) {
	where, args := f.Where()
	rows, err := q.QueryContext(ctx, `SELECT h.memory_id, bm25(memory_hints_fts) AS s
		FROM memory_hints_fts JOIN memory_hints h ON h.id = memory_hints_fts.rowid
		JOIN memories m ON m.id = h.memory_id
		WHERE memory_hints_fts MATCH ? AND `+where+`
		ORDER BY s LIMIT ?`, append(append([]any{match}, args...), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HintMatch
	for rows.Next() {
		var h HintMatch
		if err := rows.Scan(&h.MemoryID, &h.BM25); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
