package tui

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// statusLine is the screen's status bar (the line above the hints).
func statusLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-2]
}

// TestStatusBarSaysWhereAt80Columns: at 80 columns the status bar starts
// with whether this process serves the API or is a client of another
// cairn, with the address and the auth mode, whole.
func TestStatusBarSaysWhereAt80Columns(t *testing.T) {
	h := newHarness(t, harnessOpts{width: 80, height: 24})
	if got := statusLine(h.Screen()); !strings.HasPrefix(strings.TrimSpace(got), "serving "+tuitest.Addr+" (local auth) │") {
		t.Fatalf("owning: %q", got)
	}
	c := newHarness(t, harnessOpts{width: 80, height: 24, client: func(ap *app.App) client.Client {
		return pane.Remote("127.0.0.1:38850")
	}})
	c.Send(StatusMsg{Status: pane.Status{Addr: "127.0.0.1:38850", AuthMode: "local", Memories: 400, QueueKnown: true, Health: "api 2ms"}})
	got := statusLine(c.Screen())
	if !strings.HasPrefix(strings.TrimSpace(got), "client of 127.0.0.1:38850 (local auth) │") {
		t.Fatalf("client: %q", got)
	}
	if strings.Count(c.Screen(), "client of") != 1 {
		t.Fatalf("\"client of\" said twice:\n%s", c.Screen())
	}
}
