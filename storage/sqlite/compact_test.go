package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompactSchemaMigration upgrades a database written before migration
// 13 and checks what 13 promises: every mention survives, the mentions
// table keeps its key once (WITHOUT ROWID), no time index is declared
// DESC, and the newest-first listings still read an index in order
// instead of sorting.
func TestCompactSchemaMigration(t *testing.T) {
	ctx := context.Background()
	before, _ := migrationsBefore(t, 13)
	// Up to 16: 17 keys links by the memory's rid, and these name no
	// memory (TestCompactRowsMigration tests 17).
	after, _ := migrationsBefore(t, 17)
	var err error
	path := filepath.Join(t.TempDir(), "c.db")
	db := openTemp(t, path, before)
	err = db.WriteTx(ctx, func(tx *Tx) error {
		for _, s := range []string{
			`INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
				VALUES ('e1', 'Postgres', 'postgres', 'tool', 2, 't', 't')`,
			`INSERT INTO memory_entity_mentions (memory_id, entity_id, mention_text, confidence, created_at)
				VALUES ('m1', 'e1', 'postgres', 0.9, 't'), ('m2', 'e1', NULL, NULL, 't')`,
		} {
			if _, err := tx.Exec(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTemp(t, path, after)
	defer db.Close()
	var n int
	var text string
	if err := db.Reader().QueryRow(`SELECT count(*), group_concat(COALESCE(mention_text, '-'))
		FROM memory_entity_mentions WHERE entity_id = 'e1'`).Scan(&n, &text); err != nil || n != 2 || text != "postgres,-" {
		t.Fatalf("mentions after the upgrade: %d %q %v", n, text, err)
	}
	var ddl string
	db.Reader().QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'memory_entity_mentions'`).Scan(&ddl)
	if !strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("mentions table: %s", ddl)
	}
	rows, err := db.Reader().Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%DESC%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, sql string
		rows.Scan(&name, &sql)
		if strings.Contains(sql, "_at DESC") {
			t.Errorf("time index declared DESC (half-empty pages): %s", sql)
		}
	}
	rows.Close()
	for _, q := range []string{
		`SELECT id FROM memories m WHERE m.is_deleted = 0 ORDER BY m.created_at DESC, m.rid DESC LIMIT 20`,
		`SELECT id FROM memory_history ORDER BY created_at DESC, rowid DESC LIMIT 20`,
		`SELECT id FROM memory_history WHERE event = 'created' ORDER BY created_at DESC, rowid DESC LIMIT 20`,
	} {
		plan := queryPlan(t, db, q)
		if strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "INDEX") {
			t.Errorf("%s\nplan: %s", q, plan)
		}
	}
}

// TestCompactRowsMigrationShrinksTheFile: an existing store upgraded to
// migration 17 is rebuilt once, so the space its rows no longer take
// (a second copy of each content in normalized_content and in the
// created event) is given back to the file system.
func TestCompactRowsMigrationShrinksTheFile(t *testing.T) {
	ctx := context.Background()
	before, all := migrationsBefore(t, 17)
	var err error
	path := filepath.Join(t.TempDir(), "s.db")
	db := openTemp(t, path, before)
	err = db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
			INSERT INTO memories (id, content, normalized_content, content_hash, created_at, updated_at)
			SELECT 'm' || i, printf('Memory %d: %s', i, hex(randomblob(200))), lower(printf('memory %d: %s', i, hex(randomblob(200)))),
				'h' || i, 't', 't' FROM n`)
		if err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO memory_history (id, memory_id, event, new_content, changed_by, created_at)
			SELECT 'h-' || id, id, 'created', content, 'u', 't' FROM memories`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	size := func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	old := size()
	db = openTemp(t, path, all)
	db.Close()
	if now := size(); now > old*3/4 {
		t.Fatalf("file %d bytes before the upgrade, %d after", old, now)
	}
	db = openTemp(t, path, all)
	defer db.Close()
	if n := db.Count(t, `SELECT count(*) FROM memories`); n != 1500 {
		t.Fatalf("%d memories after the upgrade", n)
	}
}

func queryPlan(t *testing.T, db *DB, q string) string {
	t.Helper()
	rows, err := db.Reader().Query(`EXPLAIN QUERY PLAN ` + q)
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

// Count runs a count query on the reader (tests only).
func (db *DB) Count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
