// Package dialect names, once, the SQL fragments in which SQLite and
// PostgreSQL differ, for storage's statements to run on either engine
// (docs/design/postgres.md, "Plan: storage's queries on PostgreSQL").
// The engine a Querier belongs to says its dialect (Of); a statement with
// a fragment is built once for each dialect (SQL) and picked by it, so
// its text stays fixed for the engines' statement caches and costs
// SQLite nothing at run time. Where both engines share a form (ON
// CONFLICT, TRUE), storage's statements use it and need nothing here.
package dialect

import (
	"strings"
)

// Dialect is the SQL an engine speaks.
type Dialect uint8

const (
	SQLite   Dialect = iota // storage/sqlite, and any Querier that does not say
	Postgres                // storage/postgres
)

// Speaker is a Querier that says its dialect: the PostgreSQL engine's Tx
// and Reader. One that does not speaks SQLite's.
type Speaker interface{ Dialect() Dialect }

// Of is the dialect of q.
func Of(q any) Dialect {
	if s, ok := q.(Speaker); ok {
		return s.Dialect()
	}
	return SQLite
}

// Fragment is a piece of SQL in each dialect.
type Fragment [2]string

// In is the fragment in d.
func (f Fragment) In(d Dialect) string { return f[d] }

// Text is a statement in each dialect.
type Text [2]string

// For is the statement in the dialect of q.
func (t *Text) For(q any) string { return t[Of(q)] }

// SQL builds a statement from query, each %s in it replaced by the next
// fragment in the dialect built (nothing else is read: % elsewhere is
// SQL's). It panics, at init, if they do not match.
func SQL(query string, frags ...Fragment) Text {
	if strings.Count(query, "%s") != len(frags) {
		panic("dialect: " + query + ": fragments do not match its %s")
	}
	var t Text
	for d := range t {
		s := query
		for _, f := range frags {
			s = strings.Replace(s, "%s", f[d], 1)
		}
		t[d] = s
	}
	return t
}

// List is the rows of a JSON array of text bound as parameter p (a ?,
// ?N or an expression), as a subquery's body, in a column named value:
// `id IN (SELECT value FROM json_each(?))`. A list keeps the statement's
// text fixed whatever its length.
func List(p string) Fragment {
	return Fragment{"SELECT value FROM json_each(" + p + ")",
		"SELECT value FROM jsonb_array_elements_text(" + p + "::jsonb)"}
}

// Ints is List for a JSON array of integers, compared with integers.
func Ints(p string) Fragment {
	return Fragment{"SELECT value FROM json_each(" + p + ")",
		"SELECT value::bigint FROM jsonb_array_elements_text(" + p + "::jsonb)"}
}

// Greatest is the larger of a and b (SQLite's scalar max; neither is NULL).
func Greatest(a, b string) Fragment {
	return Fragment{"max(" + a + ", " + b + ")", "GREATEST(" + a + ", " + b + ")"}
}

// Least is the smaller of a and b (SQLite's scalar min; neither is NULL).
func Least(a, b string) Fragment {
	return Fragment{"min(" + a + ", " + b + ")", "LEAST(" + a + ", " + b + ")"}
}

// Like matches ASCII letters of either case, as SQLite's LIKE does:
// `x ` + Like + ` ? ESCAPE '\'`.
var Like = Fragment{"LIKE", "ILIKE"}
