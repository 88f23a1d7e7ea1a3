//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTUILearnedAt80x24 (issue 34): the real binary in tmux at 80×24
// learns from an agent's session while the person watches; the status bar
// counts what is new, L opens the Learned view over Recall, a keeps one,
// d drops one with a reason, space marks the rest and d drops them after
// one confirmation; "last looked" is then in the store.
func TestTUILearnedAt80x24(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-learned-%d", os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q CAIRN_EMBEDDING_PROVIDER=none CAIRN_PIPELINE_V2_POLL_INTERVAL=100ms TERM=xterm-256color %q --addr %s",
		home, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("recent memories", 20*time.Second)

	var lines []string
	for _, p := range []string{"We decided to use sqlc instead of gorm because gorm hid N+1 queries in our last project.",
		"The team prefers table driven tests for every parser in this repository.",
		"Always run make lint before pushing, the CI rejects unformatted code.",
		"We decided to keep the staging database on PostgreSQL 16 because the extensions need it."} {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		lines = append(lines, string(b))
	}
	if code, body := postJSON(t, "http://"+addr+"/api/hooks/session-end", map[string]any{"harness": "claude-code",
		"session_id": "tui-learn", "cwd": "/work/learned", "transcript": strings.Join(lines, "\n")}); code != 200 {
		t.Fatalf("session-end: %d %v", code, body)
	}
	// The status bar re-reads every 5 s; the memories' arrival refreshes it sooner.
	s.waitFor("4 learned since you last looked (L)", 20*time.Second)

	s.keys("L")
	screen := s.waitFor("4 learned from sessions (never looked)", 5*time.Second)
	if !strings.Contains(screen, "from session tui-learn") || !strings.Contains(screen, "a keep") {
		t.Fatalf("the Learned view:\n%s", screen)
	}
	type learned struct {
		Count       int    `json:"count"`
		SeenThrough string `json:"seenThrough"`
		Memories    []struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		} `json:"memories"`
	}
	var before learned
	fetchJSON(t, "http://"+addr+"/api/learned", &before)
	if before.Count != 4 {
		t.Fatalf("the API: %+v", before)
	}
	short := func(id string) string { return id[len(id)-8:] }

	// a keeps the selected (the newest).
	s.keys("a")
	s.waitFor("kept "+short(before.Memories[0].ID), 5*time.Second)
	s.waitFor("3 learned since you last looked", 5*time.Second)

	// d drops the next with a reason; it is forgotten, not new.
	s.keys("d")
	s.waitFor("It is forgotten (recoverable).", 5*time.Second)
	s.text("wrong")
	s.keys("Enter")
	s.waitFor("dropped "+short(before.Memories[1].ID)+" · ctrl+z undoes", 5*time.Second)
	s.waitFor("2 learned since you last looked", 5*time.Second)

	// space marks the two left; d drops both after one confirmation.
	s.keys("Space", "Space")
	s.waitFor("2 marked (a keeps, d drops", 5*time.Second)
	s.keys("d")
	s.waitFor("Drop the 2 marked memories?", 5*time.Second)
	s.keys("Enter")
	screen = s.waitFor("dropped 2 memories · ctrl+z undoes", 5*time.Second)
	if !strings.Contains(screen, "Nothing new") {
		t.Fatalf("after the batch drop:\n%s", screen)
	}

	var after learned
	fetchJSON(t, "http://"+addr+"/api/learned", &after)
	if after.Count != 0 || after.SeenThrough == "" {
		t.Fatalf("after reviewing everything the API says %+v", after)
	}
	for i, m := range before.Memories {
		var mem struct {
			IsDeleted bool `json:"is_deleted"`
		}
		fetchJSON(t, "http://"+addr+"/api/memory/"+m.ID+"?include_deleted=true", &mem)
		if mem.IsDeleted != (i > 0) {
			t.Fatalf("memory %d (%s): deleted %v", i, m.Content, mem.IsDeleted)
		}
	}
	for _, l := range lastLines(s.capture(), 24) {
		if w := len([]rune(l)); w > 80 {
			t.Fatalf("a line is %d cells wide: %q", w, l)
		}
	}
	s.keys("Escape")
	s.waitFor("recent memories", 5*time.Second)
	s.keys("q")
}
