package tui

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// TestPaletteRunsAnyPanesAction: from History, the palette finds
// Recall's "show deleted" by a few letters, goes to Recall and runs it;
// it finds a pane by name; esc closes it without doing anything.
func TestPaletteRunsAnyPanesAction(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.Press("2", ":")
	s := h.Screen()
	if !strings.Contains(s, "actions · ↑/↓ pick") || !strings.Contains(s, "History") {
		t.Fatalf("the palette does not open:\n%s", s)
	}
	h.TypeText("shwdel")
	s = h.Screen()
	if sel := tuitest.SelectedLine(s); !strings.Contains(sel, "show deleted") || !strings.Contains(sel, "Recall") {
		t.Fatalf("fuzzy match: %q\n%s", sel, s)
	}
	h.Press("enter")
	if h.m.Active() != 0 || !strings.Contains(h.Screen(), "deleted memories") {
		t.Fatalf("enter does not run Recall's D:\n%s", h.Screen())
	}

	h.Press("ctrl+p")
	h.TypeText("go to jobs")
	h.Press("enter")
	if h.m.Active() != 2 {
		t.Fatalf("the palette does not go to Jobs: active %d", h.m.Active())
	}

	h.Press(":")
	h.TypeText("quit")
	h.Press("esc")
	if h.m.palette != nil || h.m.Active() != 2 {
		t.Fatal("esc does not close the palette")
	}
	h.Press(":")
	h.TypeText("zzzzqqq")
	if !strings.Contains(h.Screen(), "No action matches.") {
		t.Fatalf("no match:\n%s", h.Screen())
	}
}

func TestFuzzy(t *testing.T) {
	for _, c := range []struct {
		q, s string
		ok   bool
	}{
		{"", "anything", true},
		{"pin", "recall pin/unpin p", true},
		{"shwdel", "recall show deleted d", true},
		{"xyz", "recall pin/unpin p", false},
		{"nip", "recall pin", false},
	} {
		if _, ok := fuzzy(c.q, c.s); ok != c.ok {
			t.Errorf("fuzzy(%q, %q) = %v, want %v", c.q, c.s, ok, c.ok)
		}
	}
	exact, _ := fuzzy("pin", "recall pin/unpin p")
	loose, _ := fuzzy("pin", "history open the event's session")
	if exact >= loose {
		t.Errorf("a contiguous match (%d) does not beat a scattered one (%d)", exact, loose)
	}
}

// TestNoticeClearedOnPaneSwitch: a notice from one pane does not linger
// in the next.
func TestNoticeClearedOnPaneSwitch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.Send(pane.NoticeMsg{Text: "pinned 0000a001"})
	if text, _ := h.m.Notice(); text == "" {
		t.Fatal("no notice to clear")
	}
	h.Press("2")
	if text, _ := h.m.Notice(); text != "" || strings.Contains(h.Screen(), "pinned 0000a001") {
		t.Fatalf("the notice followed to History: %q", text)
	}
}
