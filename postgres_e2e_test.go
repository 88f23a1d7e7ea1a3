//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/documents"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// Two `cairn serve` on one PostgreSQL database (issue 31): a memory
// remembered through one is recalled on the other, whose in-memory
// indexes follow the change feed. The first server takes --database and
// its password from PGPASSWORD; the second storage.url and
// storage.password_file from its config file. Neither has a lock file.
func TestServeTwoServersOnPostgres(t *testing.T) {
	c := pgtest.Start(t)
	url := c.URLWithoutPassword("")

	homeA, homeB := t.TempDir(), t.TempDir()
	addrA := freeAddr(t)
	cmdA := cairnCmd(homeA, "serve", "--addr", addrA, "--database", url)
	cmdA.Env = append(cmdA.Env, "PGPASSWORD="+c.Password)
	a := startServerCmd(t, cmdA, addrA)
	defer a.stop(t)

	pwFile := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pwFile, []byte(c.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, homeB, fmt.Sprintf("[storage]\nurl = %q\npassword_file = %q\n", url, pwFile))
	addrB := freeAddr(t)
	b := startServerCmd(t, cairnCmd(homeB, "serve", "--addr", addrB), addrB)
	defer b.stop(t)

	for _, home := range []string{homeA, homeB} {
		if _, err := os.Stat(filepath.Join(home, "memories.db")); err == nil {
			t.Errorf("%s: a SQLite file was made beside the PostgreSQL store", home)
		}
	}

	// Each server finds what the other remembered, both ways.
	for i, pair := range [][2]*server{{a, b}, {b, a}} {
		from, to := pair[0], pair[1]
		word := fmt.Sprintf("zanzibarquux%d", i)
		content := fmt.Sprintf("The staging deploy key for %s rotates every Tuesday", word)
		code, out := postJSON(t, "http://"+from.addr+"/api/memory/remember", map[string]any{"content": content})
		if code != 200 {
			t.Fatalf("remember through %s: %d %v", from.addr, code, out)
		}
		id, _ := out["id"].(string)
		start := time.Now()
		if !eventually(20*time.Second, func() bool { return recalls(t, to.addr, word, id) }) {
			t.Fatalf("%s never recalled %s, remembered through %s: %s", to.addr, id, from.addr, to.stderr)
		}
		t.Logf("remembered through %s, recalled on %s after %s", from.addr, to.addr, time.Since(start).Round(time.Millisecond))
	}

	checkJobsLeasedOnce(t, c.URL(""), a, b)

	// Diagnostics answer without SQLite's figures, saying so.
	resp, err := http.Get("http://" + a.addr + "/api/diagnostics")
	if err != nil {
		t.Fatal(err)
	}
	diag, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(diag), `"db_size"`) || !strings.Contains(string(diag), "no full-text index (FTS5 is SQLite's)") {
		t.Fatalf("diagnostics: %d %s", resp.StatusCode, diag)
	}

	// A memory forgotten through one is gone from the other's recall.
	code, out := postJSON(t, "http://"+a.addr+"/api/memory/remember", map[string]any{"content": "The flaky test quarantine list lives in ci/quarantine.txt, says qwertyforget"})
	if code != 200 {
		t.Fatalf("remember: %d %v", code, out)
	}
	id := out["id"].(string)
	if !eventually(20*time.Second, func() bool { return recalls(t, b.addr, "qwertyforget", id) }) {
		t.Fatalf("%s never recalled %s", b.addr, id)
	}
	req, _ := http.NewRequest(http.MethodDelete, "http://"+b.addr+"/api/memory/"+id+"?reason=obsolete", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("forget through %s: %d", b.addr, resp.StatusCode)
	}
	if !eventually(20*time.Second, func() bool { return !recalls(t, a.addr, "qwertyforget", id) }) {
		t.Fatalf("%s still recalls %s, forgotten through %s", a.addr, id, b.addr)
	}
}

// Documents posted to both servers are each ingested by exactly one
// worker of one of them: every ingest job leased once (one attempt) and
// completed, and each document's chunks made once.
func checkJobsLeasedOnce(t *testing.T, url string, a, b *server) {
	t.Helper()
	const n = 24
	var docs []string
	for i := range n {
		to := []*server{a, b}[i%2]
		code, out := postJSON(t, "http://"+to.addr+"/api/documents", map[string]any{"source_type": "text", "title": fmt.Sprintf("Runbook %d", i),
			"content": fmt.Sprintf("Runbook %d. Restart the ingest service with systemctl restart ingest%d. Check the queue depth on the dashboard before and after.", i, i)})
		if code != 201 {
			t.Fatalf("create a document through %s: %d %v", to.addr, code, out)
		}
		docs = append(docs, out["id"].(string))
	}
	for _, id := range docs {
		if !eventually(60*time.Second, func() bool {
			resp, err := http.Get("http://" + a.addr + "/api/documents/" + id)
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			var d map[string]any
			json.NewDecoder(resp.Body).Decode(&d)
			return d["status"] == "done"
		}) {
			t.Fatalf("document %s never ingested: %s %s", id, a.stderr, b.stderr)
		}
	}
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Reader().QueryContext(ctx, `SELECT attempts, status, lease_owner FROM memory_jobs WHERE job_type = ?`, documents.JobDocumentIngest)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	jobs, owners := 0, map[string]int{}
	for rows.Next() {
		var attempts int
		var status, owner string
		if err := rows.Scan(&attempts, &status, &owner); err != nil {
			t.Fatal(err)
		}
		jobs++
		if attempts != 1 || status != "completed" {
			t.Errorf("an ingest job %s after %d attempts (by %s), want completed after 1", status, attempts, owner)
		}
		pid, _, _ := strings.Cut(strings.SplitN(owner, "/", 2)[1], "/")
		owners[pid]++
	}
	if jobs != n {
		t.Errorf("%d ingest jobs for %d documents", jobs, n)
	}
	var chunks, distinct int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*), count(DISTINCT document_id) FROM document_memories`).Scan(&chunks, &distinct); err != nil {
		t.Fatal(err)
	}
	if distinct != n || chunks != n {
		t.Errorf("%d chunks of %d documents, want one each of %d (each short enough for one)", chunks, distinct, n)
	}
	t.Logf("%d ingest jobs, each leased once; by process: %v", jobs, owners)
}

// recalls reports whether the server at addr recalls id for query.
func recalls(t *testing.T, addr, query, id string) bool {
	t.Helper()
	code, out := postJSON(t, "http://"+addr+"/api/memory/recall", map[string]any{"query": query, "limit": 10})
	if code != 200 {
		t.Logf("recall on %s: %d %v", addr, code, out)
		return false
	}
	results, _ := out["results"].([]any)
	for _, r := range results {
		if m, _ := r.(map[string]any); m["id"] == id {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds or wait has passed.
func eventually(wait time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(wait)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func writeConfig(t *testing.T, home, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// What `cairn serve` refuses on PostgreSQL, each with an error that names
// the setting (--database or storage.url) and never shows the password:
// a URL that is not PostgreSQL's, a server nobody answers at, a wrong
// password, a database newer than the binary (one it cannot migrate).
// (A server older than 15 is refused by the engine: no such server is at
// hand here, see storage/postgres's TestOldServerRefused.)
func TestServePostgresRefusals(t *testing.T) {
	const secret = "Hunter2-s3cr3t"
	nobody := freeAddr(t) // nothing listens there
	serve := func(home string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := cairnCmd(home, append([]string{"serve", "--addr", freeAddr(t)}, args...)...)
		cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
		cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
		out, err := cmd.CombinedOutput()
		if err == nil || ctx.Err() != nil {
			t.Fatalf("cairn serve %v: %v, want a refusal: %s", args, err, out)
		}
		if strings.Contains(string(out), secret) {
			t.Errorf("cairn serve %v shows the password: %s", args, out)
		}
		t.Logf("refused: %s", out)
		return string(out)
	}
	check := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%q does not say %q", out, w)
			}
		}
	}

	check(serve(t.TempDir(), "--database", "mysql://cairn@127.0.0.1/cairn"), "--database", "postgres://")
	check(serve(t.TempDir(), "--database", "postgres://cairn:"+secret+"@"+nobody+"/cairn"), "--database", "cannot open the PostgreSQL database", "xxxxx")
	home := t.TempDir()
	writeConfig(t, home, fmt.Sprintf("[storage]\nurl = %q\n", "postgres://cairn:"+secret+"@"+nobody+"/cairn"))
	check(serve(home), "storage.url", "cannot open the PostgreSQL database")

	c := pgtest.Start(t)
	check(serve(t.TempDir(), "--database", c.URLWithoutPassword("")+"&password="+secret), "--database", "password authentication failed")

	// A database a newer cairn migrated: refused, not served or changed.
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: c.URL("")})
	if err != nil {
		t.Fatal(err)
	}
	err = db.WriteTx(ctx, func(tx storage.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, 'future', 'x', 'now')`)
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	home = t.TempDir()
	cmd := cairnCmd(home, "serve", "--addr", freeAddr(t), "--database", c.URLWithoutPassword(""))
	cmd.Env = append(cmd.Env, "PGPASSWORD="+c.Password)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("cairn serve on a newer schema started: %s", out)
	}
	t.Logf("refused: %s", out)
	check(string(out), "--database", "cannot migrate")
}

// A server killed (SIGKILL) in the middle of a stream of writes loses
// none it acknowledged: every one is on the other server, which shares
// the database.
func TestPostgresAcknowledgedWritesSurviveKill9(t *testing.T) {
	c := pgtest.Start(t)
	start := func() *server {
		addr := freeAddr(t)
		cmd := cairnCmd(t.TempDir(), "serve", "--addr", addr, "--database", c.URLWithoutPassword(""))
		cmd.Env = append(cmd.Env, "PGPASSWORD="+c.Password)
		return startServerCmd(t, cmd, addr)
	}
	a, b := start(), start()
	defer b.stop(t)

	acked := killMidWrites(t, a, a.addr, 100, 30*time.Second)
	if len(acked) < 20 {
		t.Fatalf("only %d writes acknowledged before the kill", len(acked))
	}
	for _, id := range acked {
		resp, err := http.Get("http://" + b.addr + "/api/memory/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("acknowledged memory %s is missing on the other server after kill -9 (status %d)", id, resp.StatusCode)
		}
	}
	t.Logf("%d writes acknowledged by the killed server, all on the other", len(acked))
}
