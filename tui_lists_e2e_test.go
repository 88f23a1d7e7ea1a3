//go:build integration

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTUIWith imports n numbered notes into a fresh store, then runs the
// TUI on it in tmux at w×h; it returns the session and the API address.
func startTUIWith(t *testing.T, n, w, h int) (*tmuxSession, string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	if n > 0 {
		file := filepath.Join(t.TempDir(), "notes.jsonl")
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, `{"content": "paged note %04d about the atlas service", "type": "fact"}`+"\n", i)
		}
		if err := os.WriteFile(file, []byte(sb.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		imp := cairnCmd(home, "import", file)
		imp.Env = append(imp.Env, "CAIRN_EMBEDDING_PROVIDER=none")
		if out, err := imp.CombinedOutput(); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
	}
	addr := freeAddr(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-e2e-%s-%d", strings.NewReplacer("/", "-").Replace(strings.ToLower(t.Name())), os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q CAIRN_EMBEDDING_PROVIDER=none TERM=xterm-256color %q --addr %s", home, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitFor("recent memories", 20*time.Second)
	return s, addr
}

// TestTUIPaging: with 1,200 memories, at 80×24 and at 140×45, Recall and
// History reach every row by paging (G reads the last page), say where the
// cursor is, and a memory arriving while the list is scrolled is announced
// above it.
func TestTUIPaging(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) { tuiPaging(t, size[0], size[1]) })
	}
}

func tuiPaging(t *testing.T, w, h int) {
	s, addr := startTUIWith(t, 1200, w, h)
	screen := s.waitFor("1,200 · 1 of 1,200 · recent memories", 10*time.Second)
	if !strings.Contains(screen, "paged note 1199") {
		t.Fatalf("the newest memory is not first:\n%s", screen)
	}
	s.keys("G")
	screen = s.waitFor("1,200 of 1,200", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "paged note 0000") {
		t.Fatalf("G does not reach the oldest memory: %q\n%s", sel, screen)
	}
	// Page up from the bottom: pages above are read as the cursor goes.
	for range 6 {
		s.keys("PPage")
	}
	// Six pages of the list's height up: the position and the selected
	// row agree (at 80×24, row 1,086: note 0114).
	var pos int
	s.waitUntil("the position and the selected row agree", 10*time.Second, func(screen string) bool {
		if m := positionRE.FindStringSubmatch(screen); m != nil {
			pos, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		}
		return pos > 0 && pos < 1200-6*(h-12) && strings.Contains(selectedLine(screen), fmt.Sprintf("paged note %04d", 1200-pos))
	})
	if w == 80 && pos != 1086 {
		t.Fatalf("six pages up at 80×24: row %d, want 1,086", pos)
	}
	mid := fmt.Sprintf("paged note %04d", 1200-pos)

	// A memory remembered while the list is scrolled is announced.
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "a late note about the borealis cluster"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1 new ↑ g", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, mid) {
		t.Fatalf("the selection moved when a memory arrived: %q\n%s", sel, screen)
	}
	s.keys("g")
	screen = s.waitFor("1 of 1,201", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "borealis") || strings.Contains(screen, "new ↑") {
		t.Fatalf("g does not show the new memory: %q\n%s", sel, screen)
	}

	// History: 1,201 created events, every one reachable.
	s.keys("2")
	s.waitFor("1,201 events, newest first · 1 of 1,201", 10*time.Second)
	s.keys("G")
	screen = s.waitFor("1,201 of 1,201", 10*time.Second)
	if sel := selectedLine(screen); !strings.Contains(sel, "created") {
		t.Fatalf("G in History: %q\n%s", sel, screen)
	}
	if code, body := postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "another late note"}); code != 200 {
		t.Fatalf("remember: %d %v", code, body)
	}
	screen = s.waitFor("1 new ↑ g", 10*time.Second)
	if !strings.Contains(screen, "1,202 of 1,202") {
		t.Fatalf("History's position after an event arrived above:\n%s", screen)
	}
	s.keys("q")
}

// positionRE reads a list header's "N of TOTAL".
var positionRE = regexp.MustCompile(`([\d,]+) of 1,200`)

// selectedLine is the screen's row under the cursor ("› …").
func selectedLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "›") {
			return l
		}
	}
	return ""
}

// TestTUIPaletteAt80x24: the command palette opens with ":" and with
// ctrl+p on a real terminal, finds another pane's action by a few
// letters, and runs it there.
func TestTUIPaletteAt80x24(t *testing.T) {
	s, _ := startTUIWith(t, 30, 80, 24)
	s.keys("2")
	s.waitFor("events, newest first", 5*time.Second)
	s.keys(":")
	s.waitFor("actions · ↑/↓ pick", 5*time.Second)
	s.text("shwdel")
	screen := s.waitUntil("the show deleted action", 5*time.Second, func(screen string) bool {
		return strings.Contains(selectedLine(screen), "show deleted")
	})
	if !strings.Contains(selectedLine(screen), "Recall") {
		t.Fatalf("the match is not Recall's: %q\n%s", selectedLine(screen), screen)
	}
	s.keys("Enter")
	s.waitFor("deleted memories (D to go back", 5*time.Second)
	s.keys("C-p")
	s.waitFor("actions · ↑/↓ pick", 5*time.Second)
	s.text("go to diag")
	s.keys("Enter")
	s.waitFor("Repairs: press a key", 10*time.Second)
	s.keys("q")
}
