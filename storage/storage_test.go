package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/storage/sqlite"
)

// migrationsBefore is every migration, and those older than version:
// a store written before version, to test its upgrade.
func migrationsBefore(t *testing.T, version int) (before, all []sqlite.Migration) {
	t.Helper()
	all, err := sqlite.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.Version < version {
			before = append(before, m)
		}
	}
	return before, all
}

func openTemp(t *testing.T, path string, ms []sqlite.Migration) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Path: path, Migrations: ms})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return db
}

// count runs a count query on the reader.
func count(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func queryPlan(t *testing.T, db *DB, q string) string {
	t.Helper()
	rows, err := db.Reader().QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, detail)
	}
	return strings.Join(out, "; ")
}

func TestTagsCodec(t *testing.T) {
	if got := DecodeTags(EncodeTags([]string{"a", "b c"})); len(got) != 2 || got[1] != "b c" {
		t.Fatalf("round trip: %q", got)
	}
	if got := DecodeTags("tooling, preference,"); len(got) != 2 || got[0] != "tooling" {
		t.Fatalf("signet comma tags: %q", got)
	}
	if got := DecodeTags(""); got == nil || len(got) != 0 {
		t.Fatalf("empty: %#v", got)
	}
}
