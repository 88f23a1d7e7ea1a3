package dialect_test

import (
	"testing"

	"github.com/cairnmem/cairn/storage/dialect"
)

type postgresQuerier struct{}

func (postgresQuerier) Dialect() dialect.Dialect { return dialect.Postgres }

func TestSQLPicksTheQueriersDialect(t *testing.T) {
	q := dialect.SQL(`SELECT id FROM t WHERE id IN (%s) AND n = %s AND name %s ? AND x LIKE '%%'`,
		dialect.List("?"), dialect.Greatest("a", "?"), dialect.Like)
	if got, want := q.For(struct{}{}), `SELECT id FROM t WHERE id IN (SELECT value FROM json_each(?)) AND n = max(a, ?) AND name LIKE ? AND x LIKE '%%'`; got != want {
		t.Errorf("SQLite:\n%s\nwant\n%s", got, want)
	}
	if got, want := q.For(postgresQuerier{}), `SELECT id FROM t WHERE id IN (SELECT value FROM jsonb_array_elements_text(?::jsonb)) AND n = GREATEST(a, ?) AND name ILIKE ? AND x LIKE '%%'`; got != want {
		t.Errorf("PostgreSQL:\n%s\nwant\n%s", got, want)
	}
	if got := dialect.Ints("?2").In(dialect.Postgres); got != `SELECT value::bigint FROM jsonb_array_elements_text(?2::jsonb)` {
		t.Errorf("Ints = %s", got)
	}
}

func TestSQLRefusesFragmentsThatDoNotMatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SQL with two places and one fragment did not panic")
		}
	}()
	dialect.SQL(`SELECT %s, %s`, dialect.Like)
}
