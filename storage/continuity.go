package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Checkpoint is one row of session_checkpoints.
type Checkpoint struct {
	ID              string   `json:"id"`
	SessionKey      string   `json:"session_key"`
	Harness         string   `json:"harness"`
	Project         string   `json:"project,omitempty"`
	Trigger         string   `json:"trigger"`
	Digest          string   `json:"digest"`
	PromptCount     int      `json:"prompt_count"`
	MemoryQueries   []string `json:"memory_queries"`
	RecentRemembers []string `json:"recent_remembers"`
	CreatedAt       string   `json:"created_at"`
	UpdatedAt       string   `json:"updated_at"`
}

func jsonStrings(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func fromJSONStrings(s string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// InsertCheckpoint stores a checkpoint.
func InsertCheckpoint(ctx context.Context, q Querier, c *Checkpoint) error {
	_, err := q.ExecContext(ctx, `INSERT INTO session_checkpoints (id, session_key, harness, project, trigger, digest,
		prompt_count, memory_queries, recent_remembers, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		c.ID, c.SessionKey, c.Harness, nullable(c.Project), c.Trigger, c.Digest, c.PromptCount,
		jsonStrings(c.MemoryQueries), jsonStrings(c.RecentRemembers), c.CreatedAt, c.UpdatedAt)
	return err
}

// UpdateCheckpoint rewrites a checkpoint merged with a later one.
func UpdateCheckpoint(ctx context.Context, q Querier, c *Checkpoint) error {
	_, err := q.ExecContext(ctx, `UPDATE session_checkpoints SET trigger = ?, digest = ?, prompt_count = ?,
		memory_queries = ?, recent_remembers = ?, updated_at = ? WHERE id = ?`,
		c.Trigger, c.Digest, c.PromptCount, jsonStrings(c.MemoryQueries), jsonStrings(c.RecentRemembers), c.UpdatedAt, c.ID)
	return err
}

const checkpointColumns = `id, session_key, harness, COALESCE(project, ''), trigger, digest, prompt_count,
	memory_queries, recent_remembers, created_at, updated_at`

func scanCheckpoints(rows *sql.Rows, err error) ([]*Checkpoint, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Checkpoint{}
	for rows.Next() {
		var c Checkpoint
		var mq, rr string
		if err := rows.Scan(&c.ID, &c.SessionKey, &c.Harness, &c.Project, &c.Trigger, &c.Digest, &c.PromptCount,
			&mq, &rr, &c.CreatedAt, &c.UpdatedAt); err != nil {
			return nil, err
		}
		c.MemoryQueries, c.RecentRemembers = fromJSONStrings(mq), fromJSONStrings(rr)
		out = append(out, &c)
	}
	return out, rows.Err()
}

// SessionCheckpoints returns up to limit checkpoints of a session, newest
// first.
func SessionCheckpoints(ctx context.Context, q Querier, key string, limit int) ([]*Checkpoint, error) {
	return scanCheckpoints(q.QueryContext(ctx, `SELECT `+checkpointColumns+` FROM session_checkpoints
		WHERE session_key = ? ORDER BY created_at DESC, id DESC LIMIT ?`, key, limit))
}

// ProjectCheckpoints returns up to limit checkpoints of a project made
// since, newest first.
func ProjectCheckpoints(ctx context.Context, q Querier, project, since string, limit int) ([]*Checkpoint, error) {
	return scanCheckpoints(q.QueryContext(ctx, `SELECT `+checkpointColumns+` FROM session_checkpoints
		WHERE project = ? AND created_at >= ? ORDER BY created_at DESC, id DESC LIMIT ?`, project, since, limit))
}

// TrimCheckpoints keeps a session's newest keep checkpoints and deletes
// every checkpoint created before cutoff; it returns how many it deleted.
func TrimCheckpoints(ctx context.Context, q Querier, key string, keep int, cutoff string) (int64, error) {
	a, err := q.ExecContext(ctx, `DELETE FROM session_checkpoints WHERE session_key = ? AND id NOT IN (
		SELECT id FROM session_checkpoints WHERE session_key = ? ORDER BY created_at DESC, id DESC LIMIT ?)`, key, key, keep)
	if err != nil {
		return 0, err
	}
	b, err := q.ExecContext(ctx, `DELETE FROM session_checkpoints WHERE created_at < ?`, cutoff)
	if err != nil {
		return 0, err
	}
	na, _ := a.RowsAffected()
	nb, _ := b.RowsAffected()
	return na + nb, nil
}

// SessionMemory is what a session was offered of one memory and how it
// was used.
type SessionMemory struct {
	MemoryID    string   `json:"memory_id"`
	Source      string   `json:"source"`
	Rank        int      `json:"rank"`
	Score       float64  `json:"score"`
	WasInjected bool     `json:"was_injected"`
	Uses        int      `json:"uses"`
	Relevance   *float64 `json:"relevance,omitempty"`
	Content     string   `json:"content,omitempty"`
	CreatedAt   string   `json:"created_at"`
	// Group is the prompt it was offered with (0: session start); Features
	// what recall knew of it then (the learned ranker's input).
	Group    int       `json:"offer_group"`
	Features []float64 `json:"-"`
	// Own says the memory was written in this session (its words in a
	// later prompt or the transcript are its source, not a use).
	Own bool `json:"own,omitempty"`
}

var offerSessionMemoryQuery = dialect.SQL(`INSERT INTO session_memories (session_key, memory_id, source, rank, score,
	was_injected, features, offer_group, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (session_key, memory_id) DO UPDATE SET score = %s, was_injected = %s, updated_at = excluded.updated_at`,
	dialect.Greatest("session_memories.score", "excluded.score"), dialect.Greatest("session_memories.was_injected", "excluded.was_injected"))

// OfferSessionMemory records that a memory was offered to a session (a
// second offer keeps the first's source and rank, and the best score).
func OfferSessionMemory(ctx context.Context, q Querier, key string, m *SessionMemory, now string) error {
	var feats any
	if m.Features != nil {
		b, err := json.Marshal(m.Features)
		if err != nil {
			return err
		}
		feats = string(b)
	}
	_, err := q.ExecContext(ctx, offerSessionMemoryQuery.For(q), key, m.MemoryID, m.Source, m.Rank, m.Score, m.WasInjected, feats, m.Group, now, now)
	return err
}

// NoteSessionMemoryUses adds n uses to memories of a session.
func NoteSessionMemoryUses(ctx context.Context, q Querier, key string, uses map[string]int, now string) error {
	for id, n := range uses {
		if _, err := q.ExecContext(ctx, `UPDATE session_memories SET uses = uses + ?, updated_at = ? WHERE session_key = ? AND memory_id = ?`,
			n, now, key, id); err != nil {
			return err
		}
	}
	return nil
}

// SetSessionMemoryRelevance records the relevance a scoring gave.
func SetSessionMemoryRelevance(ctx context.Context, q Querier, key string, rel map[string]float64, now string) error {
	for id, r := range rel {
		if _, err := q.ExecContext(ctx, `UPDATE session_memories SET relevance = ?, updated_at = ? WHERE session_key = ? AND memory_id = ?`,
			r, now, key, id); err != nil {
			return err
		}
	}
	return nil
}

// SessionMemories returns what a session was offered, in the order
// offered, with each memory's content.
func SessionMemories(ctx context.Context, q Querier, key string) ([]*SessionMemory, error) {
	rows, err := q.QueryContext(ctx, `SELECT sm.memory_id, sm.source, sm.rank, sm.score, sm.was_injected, sm.uses, sm.relevance,
		COALESCE(m.content, ''), sm.created_at, sm.offer_group, COALESCE(m.session_id = sm.session_key, FALSE)
		FROM session_memories sm LEFT JOIN memories m ON m.id = sm.memory_id
		WHERE sm.session_key = ? ORDER BY sm.created_at, sm.source DESC, sm.rank`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*SessionMemory{}
	for rows.Next() {
		var m SessionMemory
		var rel sql.NullFloat64
		if err := rows.Scan(&m.MemoryID, &m.Source, &m.Rank, &m.Score, &m.WasInjected, &m.Uses, &rel, &m.Content, &m.CreatedAt, &m.Group, &m.Own); err != nil {
			return nil, err
		}
		if rel.Valid {
			m.Relevance = &rel.Float64
		}
		out = append(out, &m)
	}
	return out, rows.Err()
}

// SessionScore is one row of session_scores.
type SessionScore struct {
	SessionKey        string  `json:"session_key"`
	Project           string  `json:"project,omitempty"`
	Harness           string  `json:"harness"`
	Score             float64 `json:"score"`
	Confidence        float64 `json:"confidence"`
	MemoriesRecalled  int     `json:"memories_recalled"`
	MemoriesUsed      int     `json:"memories_used"`
	NovelContextCount int     `json:"novel_context_count"`
	Method            string  `json:"method"`
	Reasoning         string  `json:"reasoning,omitempty"`
	CreatedAt         string  `json:"created_at"`
}

// SaveSessionScore stores (or replaces) a session's score.
func SaveSessionScore(ctx context.Context, q Querier, s *SessionScore) error {
	_, err := q.ExecContext(ctx, `INSERT INTO session_scores (session_key, project, harness, score, confidence,
		memories_recalled, memories_used, novel_context_count, method, reasoning, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (session_key) DO UPDATE SET project = excluded.project, harness = excluded.harness,
		score = excluded.score, confidence = excluded.confidence, memories_recalled = excluded.memories_recalled,
		memories_used = excluded.memories_used, novel_context_count = excluded.novel_context_count,
		method = excluded.method, reasoning = excluded.reasoning, created_at = excluded.created_at`,
		s.SessionKey, nullable(s.Project), s.Harness, s.Score, s.Confidence, s.MemoriesRecalled, s.MemoriesUsed,
		s.NovelContextCount, s.Method, nullable(s.Reasoning), s.CreatedAt)
	return err
}

// GetSessionScore returns a session's score, or ErrNotFound.
func GetSessionScore(ctx context.Context, q Querier, key string) (*SessionScore, error) {
	var s SessionScore
	var project, reasoning sql.NullString
	err := q.QueryRowContext(ctx, `SELECT session_key, project, harness, score, confidence, memories_recalled, memories_used,
		novel_context_count, method, reasoning, created_at FROM session_scores WHERE session_key = ?`, key).
		Scan(&s.SessionKey, &project, &s.Harness, &s.Score, &s.Confidence, &s.MemoriesRecalled, &s.MemoriesUsed,
			&s.NovelContextCount, &s.Method, &reasoning, &s.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.Project, s.Reasoning = project.String, reasoning.String
	return &s, nil
}
