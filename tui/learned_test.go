package tui

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// The Learned view (issue 34): L in Recall lists what sessions taught
// since the person last looked; a keeps, e edits (and keeps), d drops with
// a reason (ctrl+z undoes), space marks rows for a batch; once nothing is
// new "last looked" advances, in the store. The same in process and as a
// client of a running cairn (over its API).
func TestLearnedViewKeepsEditsAndDrops(t *testing.T) {
	t.Run("in process", func(t *testing.T) { learnedViewFlow(t, newHarness(t, harnessOpts{width: 100, height: 30})) })
	t.Run("client of a running cairn", func(t *testing.T) {
		learnedViewFlow(t, newHarness(t, harnessOpts{width: 100, height: 30, client: func(ap *app.App) client.Client {
			srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
			t.Cleanup(srv.Close)
			return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
		}}))
	})
}

func learnedViewFlow(t *testing.T, h *harness) {
	tuitest.LearnFrom(t, h.app, "s-learn", "/work/alpha", tuitest.LearnedPrompts...)
	ctx := context.Background()
	state := func() (int, string) {
		t.Helper()
		l, err := h.app.Ops.Learned(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		return l.Count, l.SeenThrough
	}
	if n, _ := state(); n != 4 {
		t.Fatalf("learned: %d, want 4", n)
	}
	st := tuitest.FixedStatus
	st.Learned = 4
	h.Send(StatusMsg{Status: st})
	if !strings.Contains(h.Screen(), "4 learned since you last looked (L)") {
		t.Fatalf("the status bar has no count:\n%s", h.Screen())
	}

	h.Press("L")
	if _, open := h.m.Learned(); !open {
		t.Fatal("L did not open the Learned view")
	}
	screen := h.Screen()
	if !strings.Contains(screen, "4 learned from sessions (never looked)") || !strings.Contains(screen, "from session s-learn") {
		t.Fatalf("the view:\n%s", screen)
	}
	// Newest first; the learned memories of one session share a time, so
	// the order is by id.
	lm, _ := h.m.Learned()
	first, _ := lm.Selected()

	h.Press("a")
	if n, seen := state(); n != 3 || seen != "" {
		t.Fatalf("after keeping one: %d new, seen through %q", n, seen)
	}
	if !strings.Contains(h.Screen(), "kept "+pane.ShortID(first.ID)) {
		t.Fatalf("after a:\n%s", h.Screen())
	}
	if !strings.Contains(h.statusLine(), "3 learned since you last looked") {
		t.Fatalf("the status bar did not follow: %s", h.statusLine())
	}

	// e: the Recall pane's form; the edit is saved with a reason and kept.
	edited, _ := lm.Selected()
	h.Press("e")
	if !strings.Contains(h.Screen(), "Edit "+pane.ShortID(edited.ID)) {
		t.Fatalf("e did not open the form:\n%s", h.Screen())
	}
	h.TypeText("Note: ")
	h.Press("ctrl+s")
	h.TypeText("clearer")
	h.Press("enter")
	if got := h.Get(edited.ID); !strings.HasPrefix(got.Content, "Note: ") {
		t.Fatalf("the edit was not saved: %q", got.Content)
	}
	if n, _ := state(); n != 2 {
		t.Fatalf("after an edit: %d new, want 2", n)
	}

	// space marks both rows left; d drops them after one confirmation.
	left := lm.Rows()
	h.Press("space", "space")
	if !strings.Contains(h.Screen(), "2 marked") {
		t.Fatalf("marks:\n%s", h.Screen())
	}
	h.Press("d")
	if !strings.Contains(h.Screen(), "Drop the 2 marked memories?") {
		t.Fatalf("the drop asks:\n%s", h.Screen())
	}
	h.TypeText("not true")
	h.Press("enter")
	for _, mem := range left {
		if got := h.Get(mem.ID); !got.IsDeleted {
			t.Fatalf("%s was not dropped", mem.ID)
		}
	}
	n, seen := state()
	if n != 0 || seen == "" {
		t.Fatalf("after reviewing everything: %d new, seen through %q", n, seen)
	}
	if !strings.Contains(h.Screen(), "dropped 2 memories · ctrl+z undoes") || !strings.Contains(h.Screen(), "Nothing new") {
		t.Fatalf("after the drop:\n%s", h.Screen())
	}
	// ctrl+z recovers them (they were seen: not new again).
	h.Press("ctrl+z")
	for _, mem := range left {
		if got := h.Get(mem.ID); got.IsDeleted {
			t.Fatalf("%s was not recovered", mem.ID)
		}
	}
	if n, _ := state(); n != 0 {
		t.Fatalf("after undo: %d new", n)
	}
	h.Press("esc")
	if _, open := h.m.Learned(); open || h.m.Active() != 0 {
		t.Fatal("esc did not go back to Recall")
	}
}

// S marks everything seen after a y/n that says how many; the palette
// opens the view too.
func TestLearnedViewMarksAllSeen(t *testing.T) {
	h := newHarness(t, harnessOpts{width: 80, height: 24})
	tuitest.LearnFrom(t, h.app, "s-seen", "/work/alpha", tuitest.LearnedPrompts...)
	h.Press(":")
	h.TypeText("learned since")
	h.Press("enter")
	if _, open := h.m.Learned(); !open {
		t.Fatalf("the palette did not open the view:\n%s", h.Screen())
	}
	h.Press("S")
	if !strings.Contains(h.Screen(), "Mark all 4 seen?") {
		t.Fatalf("S asks:\n%s", h.Screen())
	}
	h.Press("n")
	if l, _ := h.app.Ops.Learned(context.Background(), 0); l.Count != 4 {
		t.Fatalf("n changed it: %+v", l)
	}
	h.Press("S", "y")
	l, _ := h.app.Ops.Learned(context.Background(), 0)
	if l.Count != 0 || l.SeenThrough == "" {
		t.Fatalf("after S y: %+v", l)
	}
	if !strings.Contains(h.Screen(), "marked 4 seen") {
		t.Fatalf("after S y:\n%s", h.Screen())
	}
}

// statusLine is the status bar (the line above the hint line).
func (h *harness) statusLine() string {
	lines := strings.Split(strings.TrimRight(h.Screen(), "\n"), "\n")
	return lines[len(lines)-2]
}
