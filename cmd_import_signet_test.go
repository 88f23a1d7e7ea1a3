//go:build integration

package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"
)

// A Signet store comes over through the binary: a report, the memories
// recallable, a second run adding nothing; while a cairn holds the
// database the import goes through it (the hooks start one, so one
// usually does).
func TestImportSignetThroughTheBinary(t *testing.T) {
	src := filepath.Join(t.TempDir(), "memories.db")
	writeSignet(t, src, "55555555-0000-4000-8000-000000000001", "rotate the payments signing key every 30 days", true)
	home := t.TempDir()
	out, err := cairnCmd(home, "import", "--from", "signet", src).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 1 Signet memories") || !strings.Contains(string(out), "1 empty content") ||
		!strings.Contains(string(out), "history: 1 events imported") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "recall", "--json", "signing key rotation").Output()
	if err != nil || !strings.Contains(string(out), "55555555-0000-4000-8000-000000000001") {
		t.Fatalf("recall: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "import", "--from", "signet", "--json", src).Output()
	var rep struct {
		Memories struct{ Imported, Existing int }
		History  struct{ Imported, Existing int }
	}
	if err != nil || json.Unmarshal(out, &rep) != nil || rep.Memories.Imported != 0 || rep.Memories.Existing != 1 || rep.History.Existing != 1 {
		t.Fatalf("second run: %v %+v\n%s", err, rep, out)
	}

	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	src2 := filepath.Join(t.TempDir(), "memories.db")
	writeSignet(t, src2, "55555555-0000-4000-8000-000000000003", "the billing cron runs at 04:00 UTC on weekdays", false)
	out, err = cairnCmd(home, "import", "--from", "signet", "--dry-run", src2).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "dry run: 1 Signet memories") || !strings.Contains(string(out), "the running cairn") {
		t.Fatalf("dry run through the server: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "import", "--from", "signet", src2).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 1 Signet memories") || !strings.Contains(string(out), "the running cairn") ||
		!strings.Contains(string(out), "history: 1 events imported") {
		t.Fatalf("import while a server holds the store: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "recall", "--json", "billing cron weekdays").Output()
	if err != nil || !strings.Contains(string(out), "55555555-0000-4000-8000-000000000003") {
		t.Fatalf("recall after the import through the server: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "history", "--json", "55555555-0000-4000-8000-000000000003").Output()
	if err != nil || !strings.Contains(string(out), "signet-import") {
		t.Fatalf("the import through the server is recorded as signet-import: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "import", "--from", "signet", filepath.Join(t.TempDir(), "none.db")).CombinedOutput()
	if exitStatus(err) != 1 || !strings.Contains(string(out), "none.db") {
		t.Fatalf("a missing file: %v\n%s", err, out)
	}
	out, err = cairnCmd(home, "import", "--from", "mem0", src).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--from") {
		t.Fatalf("unknown source: %v\n%s", err, out)
	}
}

// writeSignet makes a Signet memories.db holding one memory (id, content)
// with a history event, and with rest an empty row besides.
func writeSignet(t *testing.T, path, id, content string, rest bool) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE memories (id TEXT PRIMARY KEY, type TEXT NOT NULL DEFAULT 'fact', content TEXT NOT NULL,
			importance REAL DEFAULT 0.5, tags TEXT, who TEXT, project TEXT, pinned INTEGER DEFAULT 0,
			is_deleted INTEGER DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
		`CREATE TABLE memory_history (id TEXT PRIMARY KEY, memory_id TEXT NOT NULL, event TEXT NOT NULL, old_content TEXT,
			new_content TEXT, changed_by TEXT NOT NULL, reason TEXT, metadata TEXT, created_at TEXT NOT NULL)`,
		`INSERT INTO memories VALUES ('` + id + `', 'rule', '` + content + `',
			0.9, 'security,payments', 'alice', 'atlas', 1, 0, '2026-10-01T08:00:00.000Z', '2026-10-01T08:00:00.000Z')`,
		`INSERT INTO memory_history VALUES ('h-` + id + `', '` + id + `', 'updated', 'before',
			'` + content + `', 'daemon', 'fact changed', NULL, '2026-10-01T09:00:00.000Z')`,
	}
	if rest {
		stmts = append(stmts, `INSERT INTO memories VALUES ('55555555-0000-4000-8000-000000000002', 'fact', '', 0.5, NULL, NULL, NULL, 0, 0, 't', 't')`)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}
