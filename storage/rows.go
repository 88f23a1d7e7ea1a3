package storage

import (
	"context"
	"encoding/json"

	"github.com/cairnmem/cairn/storage/dialect"
)

// textList and intList read a jsonList bound as ? (dialect.List, Ints).
var textList, intList = dialect.List("?"), dialect.Ints("?")

// jsonList encodes ids for `IN (SELECT value FROM json_each(?))`, which
// keeps the statement text fixed (and cached) whatever the batch size.
func jsonList[T any](ids []T) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// Strings collects the first column of a query's rows as strings.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return column[string](ctx, q, query, args...)
}

// column collects the first column of a query's rows.
func column[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var s T
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
