package storage

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/storage/postgres"
	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// The PostgreSQL engine's schema has every table, column, index and
// trigger of the SQLite engine's, with the same NOT NULL, but what only
// SQLite has: a migration added to one engine and not the other fails
// here.
func TestPostgresSchemaMatchesSQLite(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	ctx := context.Background()
	lite := openTemp(t, filepath.Join(t.TempDir(), "cairn.db"), nil)
	// A copy of the template the migrations ran on.
	pg, err := postgres.Open(ctx, postgres.Options{URL: c.URL(MigratedPostgres(t, c))})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	sqliteOnly := func(name, _ string) bool {
		return strings.Contains(name, "_fts") || strings.HasPrefix(name, "sqlite_") ||
			name == "idx_embeddings_float32" || // the float32 vectors of stores before 0011
			slices.Contains([]string{"memories_ai", "memories_au", "memory_hints_ai", "memory_hints_ad"}, name) // FTS5 upkeep
	}
	postgresOnly := func(name, _ string) bool {
		return strings.HasPrefix(name, "memory_changes") || strings.HasPrefix(name, "idx_memory_changes") ||
			!strings.HasPrefix(name, "idx_") && (strings.HasSuffix(name, "_pkey") || strings.HasSuffix(name, "_key")) // constraints' own
	}
	collect := func(q Querier, query string, skip func(name, detail string) bool) []string {
		t.Helper()
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var name, detail string
			if err := rows.Scan(&name, &detail); err != nil {
				t.Fatal(err)
			}
			if !skip(name, detail) {
				out = append(out, name+" "+detail)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	compare := func(what string, lite, pg []string) {
		t.Helper()
		for _, x := range lite {
			if !slices.Contains(pg, x) {
				t.Errorf("%s %q is on SQLite, not on PostgreSQL", what, x)
			}
		}
		for _, x := range pg {
			if !slices.Contains(lite, x) {
				t.Errorf("%s %q is on PostgreSQL, not on SQLite", what, x)
			}
		}
	}
	// Columns (a primary key's NOT NULL is implied on SQLite).
	compare("column",
		collect(lite.Reader(), `SELECT m.name, p.name || CASE WHEN p."notnull" OR p.pk > 0 THEN ' not null' ELSE '' END
			FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name <> 'schema_migrations'`,
			sqliteOnly),
		collect(pg.Reader(), `SELECT table_name, column_name || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END
			FROM information_schema.columns c WHERE table_schema = 'public' AND table_name <> 'schema_migrations'
			AND EXISTS (SELECT 1 FROM information_schema.tables t WHERE t.table_schema = 'public'
				AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE')`,
			func(table, column string) bool {
				// SQLite's rowid is implicit; PostgreSQL's is migration 0003's.
				return postgresOnly(table, column) || column == "rowid not null"
			}))
	compare("index",
		collect(lite.Reader(), `SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`, sqliteOnly),
		collect(pg.Reader(), `SELECT indexname, tablename FROM pg_indexes WHERE schemaname = 'public'`, postgresOnly))
	compare("trigger",
		collect(lite.Reader(), `SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'`, sqliteOnly),
		collect(pg.Reader(), `SELECT DISTINCT trigger_name, event_object_table FROM information_schema.triggers
			WHERE trigger_schema = 'public'`, postgresOnly))
}
