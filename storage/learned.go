package storage

import (
	"context"
	"database/sql"
	"errors"
)

// LearnedSeenKey is the settings key of the creation time of the newest
// learned memory the person has seen.
const LearnedSeenKey = "learned.seen_through"

// Setting returns the value of key in settings, "" when unset.
func Setting(ctx context.Context, q Querier, key string) (string, error) {
	var v string
	if err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); !errors.Is(err, sql.ErrNoRows) {
		return v, err
	}
	return "", nil
}

// SetSetting stores value as key's.
func SetSetting(ctx context.Context, q Querier, key, value, now string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, value, now)
	return err
}

// learnedWhere selects the live memories who wrote from a session's
// transcript after since, not kept since; its arguments are who, since.
const learnedWhere = ` FROM memories m WHERE m.who = ? AND m.source_id LIKE 'session:%' AND m.created_at > ?
	AND m.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM learned_reviews r WHERE r.memory_id = m.id)`

// LearnedSince returns how many memories who learned from sessions after
// since that were not kept, and up to limit of them, newest first.
func LearnedSince(ctx context.Context, q Querier, who, since string, limit int) ([]*Memory, int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*)`+learnedWhere, who, since).Scan(&n); err != nil || limit <= 0 {
		return nil, n, err
	}
	rows, err := q.QueryContext(ctx, `SELECT `+memoryColumns+learnedWhere+` ORDER BY m.created_at DESC, m.id DESC LIMIT ?`, who, since, limit)
	if err != nil {
		return nil, 0, err
	}
	out, err := collectMemories(rows)
	return out, n, err
}

// KeepLearned records the memories ids as kept (reviewed) at now.
func KeepLearned(ctx context.Context, q Querier, ids []string, now string) error {
	for _, id := range ids {
		if _, err := q.ExecContext(ctx, `INSERT INTO learned_reviews (memory_id, reviewed_at) VALUES (?, ?)
			ON CONFLICT(memory_id) DO NOTHING`, id, now); err != nil {
			return err
		}
	}
	return nil
}

// NewestLearned is the creation time of the newest memory who learned
// from a session, forgotten ones included ("" when none).
func NewestLearned(ctx context.Context, q Querier, who string) (string, error) {
	var t sql.NullString
	err := q.QueryRowContext(ctx, `SELECT max(created_at) FROM memories WHERE who = ? AND source_id LIKE 'session:%'`, who).Scan(&t)
	return t.String, err
}

// ForgetLearnedReviews drops the kept marks of memories created at or
// before through (seen now) and of memories no longer stored.
func ForgetLearnedReviews(ctx context.Context, q Querier, through string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM learned_reviews WHERE memory_id NOT IN (SELECT id FROM memories WHERE created_at > ?)`, through)
	return err
}
