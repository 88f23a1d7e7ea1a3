package storage

import (
	"context"
	"encoding/json"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Aspect feedback (migration 0023; core/ranker/feedback.go): each entity
// aspect's weight, raised when memories holding its attributes are
// confirmed as used in a scored session, decayed when it goes unconfirmed.

// AspectWeight is one aspect with its weight.
type AspectWeight struct {
	ID            string  `json:"id"`
	Entity        string  `json:"entity"`
	Aspect        string  `json:"aspect"`
	Weight        float64 `json:"weight"`
	Confirmations int     `json:"confirmations"`
	ConfirmedAt   string  `json:"confirmed_at,omitempty"`
	// Memories is how many of the session's confirmed memories hold one of
	// its live attributes (SessionAspects only).
	Memories int `json:"memories,omitempty"`
}

// SessionConfirmedAspects counts, per aspect, the memories of session key
// that its scoring found used (relevance above zero) and that hold a live
// attribute of the aspect.
func SessionConfirmedAspects(ctx context.Context, q Querier, key string) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.aspect_id, count(DISTINCT a.memory_id)
		FROM session_memories sm JOIN entity_attributes a ON a.memory_id = sm.memory_id
		WHERE sm.session_key = ? AND sm.relevance > 0 AND a.status = 'live' AND a.aspect_id IS NOT NULL
		GROUP BY a.aspect_id`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// RaiseAspectWeight adds delta × confirmations to aspect id's weight,
// clamped to [lo, hi], and records the confirmations at now.
func RaiseAspectWeight(ctx context.Context, q Querier, id string, confirmations int, delta, lo, hi float64, now string) error {
	d := dialect.Of(q)
	_, err := q.ExecContext(ctx, `UPDATE entity_aspects SET weight = `+dialect.Least("?", dialect.Greatest("?", "weight + ?").In(d)).In(d)+`,
		confirmations = confirmations + ?, confirmed_at = ? WHERE id = ?`,
		hi, lo, delta*float64(confirmations), confirmations, now, id)
	return err
}

// DecayAspectWeights lowers by rate, floored at lo, the weight of every
// aspect above lo last confirmed (or, never confirmed, created) before
// cutoff. It returns how many aspects it lowered.
func DecayAspectWeights(ctx context.Context, q Querier, cutoff string, rate, lo float64) (int, error) {
	res, err := q.ExecContext(ctx, `UPDATE entity_aspects SET weight = `+dialect.Greatest("?", "weight - ?").In(dialect.Of(q))+`
		WHERE weight > ? AND COALESCE(confirmed_at, created_at) < ?`, lo, rate, lo, cutoff)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// CountSessionScores is how many sessions have been scored.
func CountSessionScores(ctx context.Context, q Querier) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM session_scores`).Scan(&n)
	return n, err
}

var aspectWeightsQuery = dialect.SQL(`SELECT a.memory_id, max(s.weight) FROM entity_attributes a
	JOIN entity_aspects s ON s.id = a.aspect_id WHERE a.memory_id IN (%s) AND a.status = 'live' GROUP BY a.memory_id`, textList)

// MemoryAspectWeights returns, for each of ids that holds a live
// attribute with an aspect, the highest weight among those aspects.
func MemoryAspectWeights(ctx context.Context, q Querier, ids []string) (map[string]float64, error) {
	out := map[string]float64{}
	if len(ids) == 0 {
		return out, nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, aspectWeightsQuery.For(q), string(b))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var w float64
		if err := rows.Scan(&id, &w); err != nil {
			return nil, err
		}
		out[id] = w
	}
	return out, rows.Err()
}

// SessionAspects are the aspects of the memories session key's scoring
// found used, with their weights now, heaviest first.
func SessionAspects(ctx context.Context, q Querier, key string) ([]*AspectWeight, error) {
	rows, err := q.QueryContext(ctx, `SELECT s.id, s.entity, s.name, s.weight, s.confirmations, COALESCE(s.confirmed_at, ''),
		count(DISTINCT a.memory_id)
		FROM session_memories sm JOIN entity_attributes a ON a.memory_id = sm.memory_id
		JOIN entity_aspects s ON s.id = a.aspect_id
		WHERE sm.session_key = ? AND sm.relevance > 0 AND a.status = 'live'
		GROUP BY s.id ORDER BY s.weight DESC, s.entity, s.name`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*AspectWeight{}
	for rows.Next() {
		var a AspectWeight
		if err := rows.Scan(&a.ID, &a.Entity, &a.Aspect, &a.Weight, &a.Confirmations, &a.ConfirmedAt, &a.Memories); err != nil {
			return nil, err
		}
		out = append(out, &a)
	}
	return out, rows.Err()
}

// LowerAspectWeight takes back delta × confirmations from aspect id's
// weight, floored at lo, and the confirmations from its count, when a
// session's relevance is rewritten to confirm fewer of its memories; when
// it was confirmed stays as it was.
func LowerAspectWeight(ctx context.Context, q Querier, id string, confirmations int, delta, lo float64) error {
	d := dialect.Of(q)
	_, err := q.ExecContext(ctx, `UPDATE entity_aspects SET weight = `+dialect.Greatest("?", "weight - ?").In(d)+`,
		confirmations = `+dialect.Greatest("0", "confirmations - ?").In(d)+` WHERE id = ?`,
		lo, delta*float64(confirmations), confirmations, id)
	return err
}
