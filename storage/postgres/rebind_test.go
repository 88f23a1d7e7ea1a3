package postgres

import "testing"

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`: `SELECT 1`,
		`SELECT * FROM t WHERE a = ? AND b IN (?, ?)`:  `SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)`,
		`SELECT ?3, ?4 FROM m WHERE m.id = ?1 AND ?2`:  `SELECT $3, $4 FROM m WHERE m.id = $1 AND $2`,
		`SELECT ?2, ?, ?1, ?`:                          `SELECT $2, $3, $1, $4`,
		`SELECT '?', 'it''s ?', "col?" FROM t WHERE ?`: `SELECT '?', 'it''s ?', "col?" FROM t WHERE $1`,
		"SELECT ? -- a comment?\n, ? /* and ? */, ?":   "SELECT $1 -- a comment?\n, $2 /* and ? */, $3",
		`SELECT $1, $2`:          `SELECT $1, $2`,
		`LIKE ? ESCAPE '\'`:      `LIKE $1 ESCAPE '\'`,
		`SELECT 'unterminated ?`: `SELECT 'unterminated ?`,
	} {
		if got := Rebind(in); got != want {
			t.Errorf("Rebind(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}
