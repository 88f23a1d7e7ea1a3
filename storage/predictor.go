package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// Training data and state of the learned ranker (core/ranker/predictor.go).

// OfferedMemory is one memory offered to a scored session, as training
// data: where and at which rank it was offered, its features then, and the
// relevance the session's scoring gave it.
type OfferedMemory struct {
	SessionKey string
	MemoryID   string
	Source     string
	Rank       int
	Group      int
	Injected   bool
	Features   []float64
	Relevance  float64
}

// ScoredSession is one scored session whose offers carry features.
type ScoredSession struct {
	Key      string
	ScoredAt string
	Offers   []*OfferedMemory
}

// ScoresSince counts the sessions scored after since and returns the
// newest score's time ("" when none).
func ScoresSince(ctx context.Context, q Querier, since string) (int, string, error) {
	var n int
	var newest sql.NullString
	err := q.QueryRowContext(ctx, `SELECT count(*), max(created_at) FROM session_scores WHERE created_at > ?`, since).Scan(&n, &newest)
	return n, newest.String, err
}

// ScoredSessions returns the scored sessions (oldest score first) whose
// offered memories have features and a relevance, scored after since
// (empty: all) and up to until, at most limit of them.
func ScoredSessions(ctx context.Context, q Querier, since, until string, limit int) ([]*ScoredSession, error) {
	rows, err := q.QueryContext(ctx, `SELECT sc.session_key, sc.created_at, sm.memory_id, sm.source, sm.rank, sm.offer_group, sm.was_injected,
		sm.features, sm.relevance
		FROM (SELECT session_key, created_at FROM session_scores WHERE created_at > ? AND created_at <= ?
			ORDER BY created_at, session_key LIMIT ?) sc
		JOIN session_memories sm ON sm.session_key = sc.session_key
		WHERE sm.features IS NOT NULL AND sm.relevance IS NOT NULL
		ORDER BY sc.created_at, sc.session_key, sm.offer_group, sm.rank`, since, until, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ScoredSession
	for rows.Next() {
		var key, at, feats string
		o := &OfferedMemory{}
		if err := rows.Scan(&key, &at, &o.MemoryID, &o.Source, &o.Rank, &o.Group, &o.Injected, &feats, &o.Relevance); err != nil {
			return nil, err
		}
		if json.Unmarshal([]byte(feats), &o.Features) != nil {
			continue
		}
		o.SessionKey = key
		if len(out) == 0 || out[len(out)-1].Key != key {
			out = append(out, &ScoredSession{Key: key, ScoredAt: at})
		}
		s := out[len(out)-1]
		s.Offers = append(s.Offers, o)
	}
	return out, rows.Err()
}

// PredictorState returns the ranker's stored state (JSON), or ErrNotFound.
func PredictorState(ctx context.Context, q Querier) (string, error) {
	var s string
	err := q.QueryRowContext(ctx, `SELECT state FROM predictor_state WHERE id = 1`).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return s, err
}

// SavePredictorState stores the ranker's state.
func SavePredictorState(ctx context.Context, q Querier, state, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO predictor_state (id, state, updated_at) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`, state, now)
	return err
}
