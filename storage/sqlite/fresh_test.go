package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A new database copied from the process's fresh image is the database
// migrating makes: the same schema, settings and (empty) tables, a sound
// file, and writable.
func TestFreshImageIsWhatMigratingMakes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	describe := func(db *DB) string {
		t.Helper()
		var b strings.Builder
		rows, err := db.write.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ, name, tbl, sql string
			if err := rows.Scan(&typ, &name, &tbl, &sql); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %s %s %s\n", typ, name, tbl, sql)
		}
		for _, p := range []string{"user_version", "application_id", "page_size", "auto_vacuum", "journal_mode", "encoding"} {
			var v string
			if err := db.write.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s=%s\n", p, v)
		}
		var n int
		if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "migrations=%d\n", n)
		return b.String()
	}
	// Migrations given: migrated here, never copied.
	migrated, err := Open(ctx, Options{Path: filepath.Join(dir, "migrated.db"), NoBackup: true, Migrations: ms})
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	want := describe(migrated)
	var copied *DB
	for i := range 2 { // the second new database of a process at the latest is a copy
		if copied, err = Open(ctx, Options{Path: filepath.Join(dir, fmt.Sprintf("new%d.db", i)), NoBackup: true}); err != nil {
			t.Fatal(err)
		}
		defer copied.Close()
	}
	fresh.Lock()
	img := fresh.image
	fresh.Unlock()
	if img == nil {
		t.Fatal("no fresh image after two new databases")
	}
	if len(copied.migrated) != 0 {
		t.Fatalf("the second new database was migrated (%v), not copied", copied.migrated)
	}
	if got := describe(copied); got != want {
		t.Fatalf("copied database:\n%s\nmigrated:\n%s", got, want)
	}
	var ok string
	if err := copied.write.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	if err := copied.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO project_steps VALUES ('a', 'b')`)
		return err
	}); err != nil {
		t.Fatalf("writing to the copy: %v", err)
	}
}
