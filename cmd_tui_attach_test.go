//go:build integration

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTUIAttachesToBackgroundServer: with `cairn serve` holding the store
// (as a hook or a service manager starts it), `cairn` opens the UI as its
// client at once, saying so, instead of asking.
func TestTUIAttachesToBackgroundServer(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end TUI test needs it (apt-get install -y tmux)")
	}
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	postJSON(t, "http://"+addr+"/api/memory/remember", map[string]any{"content": "the attach test memory"})
	s := &tmuxSession{t: t, socket: fmt.Sprintf("cairn-attach-%d", os.Getpid()), name: "cairn"}
	script := fmt.Sprintf("CAIRN_HOME=%q TERM=xterm-256color %q --addr %s", home, cairnBin, addr)
	s.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", s.name, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	screen := s.waitFor("client of "+addr+" (", 20*time.Second)
	if want := fmt.Sprintf("attached to cairn serve (pid %d)", srv.cmd.Process.Pid); !strings.Contains(screen, want) {
		t.Fatalf("the tab bar does not name the server's process (%s):\n%s", want, screen)
	}
	if strings.Count(screen, "client of") != 1 {
		t.Fatalf("\"client of\" said more than once:\n%s", screen)
	}
	s.waitFor("the attach test memory", 10*time.Second)
}
