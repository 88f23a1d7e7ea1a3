package storage

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage/dialect"
)

// memory_hints holds alternative phrasings of a memory (heuristic ones
// computed at write time), indexed in memory_hints_fts so a query worded
// differently from the memory still finds it.

// A memory's content changed (or is new): every hint of it goes, a
// model's too, since they were written for the old content.
const deleteHeuristicHintsQuery = `DELETE FROM memory_hints WHERE memory_id = ?`

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
	where, args := f.Where(dialect.Of(q))
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

// ReplaceModelHints replaces every hint of memory memoryID with hints a
// model wrote (source names it).
func ReplaceModelHints(ctx context.Context, q Querier, memoryID, source string, hints []string, now string) error {
	if _, err := q.ExecContext(ctx, deleteHeuristicHintsQuery, memoryID); err != nil {
		return fmt.Errorf("replace hints: %w", err)
	}
	for _, h := range hints {
		if _, err := q.ExecContext(ctx, `INSERT INTO memory_hints (memory_id, hint, source, created_at) VALUES (?, ?, ?, ?)`,
			memoryID, h, source, now); err != nil {
			return fmt.Errorf("write hints: %w", err)
		}
	}
	return nil
}

// MemoryHints returns a memory's hints with their source.
func MemoryHints(ctx context.Context, q Querier, memoryID string) (hints, sources []string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT hint, source FROM memory_hints WHERE memory_id = ? ORDER BY id`, memoryID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h, s string
		if err := rows.Scan(&h, &s); err != nil {
			return nil, nil, err
		}
		hints, sources = append(hints, h), append(sources, s)
	}
	return hints, sources, rows.Err()
}
