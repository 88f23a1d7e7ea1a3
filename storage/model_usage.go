package storage

import (
	"context"
)

// ModelUsage is one day's use of one model provider.
type ModelUsage struct {
	Day          string `json:"day"` // YYYY-MM-DD, UTC
	Provider     string `json:"provider"`
	Calls        int64  `json:"calls"`
	Failed       int64  `json:"failed"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// Fallbacks are the prompts the built-in heuristic answered because
	// the day's token budget was spent.
	Fallbacks int64 `json:"fallbacks"`
}

const addModelUsageQuery = `INSERT INTO model_usage (day, provider, calls, failed, input_tokens, output_tokens, fallbacks)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(day, provider) DO UPDATE SET calls = model_usage.calls + excluded.calls,
		failed = model_usage.failed + excluded.failed, input_tokens = model_usage.input_tokens + excluded.input_tokens,
		output_tokens = model_usage.output_tokens + excluded.output_tokens, fallbacks = model_usage.fallbacks + excluded.fallbacks`

// AddModelUsage adds u's counts to its day and provider.
func AddModelUsage(ctx context.Context, q Querier, u ModelUsage) error {
	_, err := q.ExecContext(ctx, addModelUsageQuery, u.Day, u.Provider, u.Calls, u.Failed, u.InputTokens, u.OutputTokens, u.Fallbacks)
	return err
}

const modelUsageQuery = `SELECT day, provider, calls, failed, input_tokens, output_tokens, fallbacks
	FROM model_usage WHERE day >= ? ORDER BY day DESC, provider`

// ModelUsageSince lists the use of every provider on each day from
// sinceDay (YYYY-MM-DD), newest first.
func ModelUsageSince(ctx context.Context, q Querier, sinceDay string) ([]ModelUsage, error) {
	rows, err := q.QueryContext(ctx, modelUsageQuery, sinceDay)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ModelUsage{}
	for rows.Next() {
		var u ModelUsage
		if err := rows.Scan(&u.Day, &u.Provider, &u.Calls, &u.Failed, &u.InputTokens, &u.OutputTokens, &u.Fallbacks); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// ModelTokensOn is the tokens (input and output) every provider used on
// day.
func ModelTokensOn(ctx context.Context, q Querier, day string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(sum(input_tokens + output_tokens), 0) FROM model_usage WHERE day = ?`, day).Scan(&n)
	return n, err
}
