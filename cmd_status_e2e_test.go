//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// cairn status (issue 34) through the real binary: reading the store when
// no cairn runs, attached to the one that does; what sessions taught since
// the person last looked (learned by the running server from a session's
// transcript), the jobs and a model's use per day; --json; exit 2 for a
// usage error, 1 for a failure.
func TestStatusCommand(t *testing.T) {
	home := t.TempDir()
	out := cliOK(t, home, "status")
	for _, want := range []string{"reading database " + filepath.Join(home, "memories.db"), "memories   0 (0 forgotten)", "proposals  0 pending",
		"learned    0 since you last looked (never looked", "jobs       pending 0 · leased 0 · completed 0 · failed 0 · dead 0",
		"model use  0 tokens today of a daily budget of 300000", "no model calls in the last 7 days"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	if _, errOut, code := cli(t, home, "status", "extra"); code != 2 || !strings.Contains(errOut, "status takes no arguments") {
		t.Fatalf("an argument: exit %d, %s", code, errOut)
	}
	if _, _, code := cli(t, home, "status", "--bogus"); code != 2 {
		t.Fatalf("an unknown flag: exit %d", code)
	}
	if _, errOut, code := cli(t, home, "status", "--db", filepath.Join(home, "nope", "x.db")); code != 1 || !strings.Contains(errOut, "no database at") {
		t.Fatalf("a missing database: exit %d, %s", code, errOut)
	}

	// A model's use, as the pipeline records it, in the store.
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(home, "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	err = db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.AddModelUsage(ctx, tx, storage.ModelUsage{Day: today, Provider: "anthropic", Calls: 7, Failed: 1, InputTokens: 21000, OutputTokens: 1500})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	// A running cairn learns from a session; status attaches to it.
	addr := freeAddr(t)
	cmd := cairnCmd(home, "serve", "--addr", addr)
	cmd.Env = append(cmd.Env, "CAIRN_PIPELINE_V2_POLL_INTERVAL=100ms", "CAIRN_EMBEDDING_PROVIDER=none")
	srv := startServerCmd(t, cmd, addr)
	defer srv.stop(t)
	var lines []string
	for _, p := range []string{"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
		"The team prefers table driven tests for every parser in this repository.",
		"Always run make lint before pushing, the CI rejects unformatted code."} {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
	}
	if code, body := postJSON(t, "http://"+addr+"/api/hooks/session-end", map[string]any{"harness": "claude-code",
		"session_id": "st-1", "cwd": "/work/status", "transcript": strings.Join(lines, "\n")}); code != 200 {
		t.Fatalf("session-end: %d %v", code, body)
	}
	var st statusReport
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := json.Unmarshal([]byte(cliOK(t, home, "status", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		if st.Learned >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !st.Attached || st.Addr != addr || st.Learned != 3 || st.Memories != 3 || st.SeenThrough != "" || st.Jobs["completed"] < 1 ||
		len(st.Model.ModelUsage) != 1 || st.Model.ModelUsage[0].Calls != 7 || st.Model.TokensToday != 22500 || st.Model.DailyTokenBudget != 300000 {
		t.Fatalf("status --json attached: %+v", st)
	}
	out = cliOK(t, home, "status")
	for _, want := range []string{"attached to the running cairn (pid", "learned    3 since you last looked (never looked",
		"model use  22500 tokens today of a daily budget of 300000", fmt.Sprintf("%s  anthropic      7       1         21000           1500", today)} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}

	// Marking everything seen (what the TUI's S does) empties it.
	var l struct {
		Memories []struct {
			CreatedAt string `json:"created_at"`
		} `json:"memories"`
	}
	fetchJSON(t, "http://"+addr+"/api/learned", &l)
	if code, body := postJSON(t, "http://"+addr+"/api/learned/review", map[string]any{"seenThrough": l.Memories[0].CreatedAt}); code != http.StatusOK {
		t.Fatalf("review: %d %v", code, body)
	}
	if out = cliOK(t, home, "status"); !strings.Contains(out, "learned    0 since you last looked (seen through "+l.Memories[0].CreatedAt) {
		t.Fatalf("after marking all seen:\n%s", out)
	}
}
