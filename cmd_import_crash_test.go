//go:build integration

package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// TestImportKilledMidwayLeavesWholeMemories kills `cairn import` (SIGKILL)
// once its first bulk transaction has committed and before its last, then
// opens the store: every memory there is whole (its full-text entry, its
// created event, its entity links counted on their entities), none is half
// written, the full-text index's bulk merge setting is back to its
// default, and importing the file again completes it without a duplicate.
func TestImportKilledMidwayLeavesWholeMemories(t *testing.T) {
	const n = 60000 // six bulk transactions
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "export.jsonl")
	var sb strings.Builder
	hosts := []string{"Atlas", "Borealis", "Cygnus", "Draco"}
	for i := range n {
		fmt.Fprintf(&sb, `{"content": "Note %d: Alice deployed the %s service on host-%d with PostgreSQL, and Bob checked it in Grafana.", "tags": ["crash"]}`+"\n",
			i, hosts[i%len(hosts)], i%97)
	}
	if err := os.WriteFile(file, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(home, "memories.db")
	env := append(os.Environ(), "CAIRN_HOME="+home, "CAIRN_EMBEDDING_PROVIDER=none")

	cmd := cairnCmd(home, "import", file)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Poll the file read-only until a transaction has committed, then kill.
	var seen int
	for seen == 0 {
		select {
		case err := <-exited:
			t.Fatalf("import ended (%v) before it could be killed mid-way", err)
		case <-time.After(5 * time.Millisecond):
		}
		seen = countRows(t, dbPath)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if seen >= n {
		t.Fatalf("the import had written all %d memories before the kill", seen)
	}

	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: dbPath, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	var memories, docs, noEvent, miscounted, automerge int
	r := db.Reader()
	for q, dst := range map[string]*int{
		`SELECT count(*) FROM memories`:             &memories,
		`SELECT count(*) FROM memories_fts_docsize`: &docs,
		`SELECT count(*) FROM memories m WHERE NOT EXISTS
			(SELECT 1 FROM memory_history h WHERE h.memory_id = m.id AND h.event = 'created')`: &noEvent,
		`SELECT count(*) FROM entities e WHERE mentions <>
			(SELECT count(*) FROM memory_entity_mentions mm WHERE mm.entity_rid = e.rid)`: &miscounted,
		`SELECT COALESCE((SELECT v FROM memories_fts_config WHERE k = 'automerge'), 4)`: &automerge,
	} {
		if err := r.QueryRowContext(ctx, q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var linked int
	if err := r.QueryRowContext(ctx, `SELECT count(DISTINCT memory_rid) FROM memory_entity_mentions`).Scan(&linked); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteTx(ctx, func(tx storage.Tx) error { return storage.CheckFTSIntegrity(ctx, tx) }); err != nil {
		t.Errorf("full-text index after the kill: %v", err)
	}
	db.Close()
	t.Logf("killed with %d of %d memories committed", memories, n)
	if memories == 0 || memories >= n {
		t.Fatalf("%d memories after the kill: want some, not all", memories)
	}
	if docs != memories {
		t.Errorf("full-text index holds %d documents for %d memories", docs, memories)
	}
	if noEvent != 0 {
		t.Errorf("%d memories without their created event", noEvent)
	}
	if miscounted != 0 {
		t.Errorf("%d entities whose mention count differs from their links", miscounted)
	}
	if linked != memories {
		t.Errorf("%d of %d memories linked to their entities", linked, memories)
	}
	if automerge != 4 {
		t.Errorf("full-text automerge is %d after the kill, want the default 4", automerge)
	}

	again := cairnCmd(home, "import", file)
	again.Env = env
	out, err := again.CombinedOutput()
	if err != nil {
		t.Fatalf("import again: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("imported %d memories", n-memories); !strings.Contains(string(out), want) {
		t.Errorf("import again: %s; want %q", out, want)
	}
	if got := countRows(t, dbPath); got != n {
		t.Errorf("%d memories after importing again, want %d", got, n)
	}
}

// countRows counts the memories of the database at path through a
// read-only connection of its own (0 before the table exists).
func countRows(t *testing.T, path string) int {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	c, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil {
		return 0 // not migrated yet
	}
	return n
}
