package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/tui/pane"
)

// lines is the screen's lines.
func (h *harness) lines() []string { return strings.Split(h.Screen(), "\n") }

// TestHintLineKeepsGlobalKeys: at 80 columns (and narrower) every pane's
// hint line keeps "? keys" and "q quit"; the pane's hints give way.
func TestHintLineKeepsGlobalKeys(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	pipelineFixture(h)
	for _, w := range []int{80, 60} {
		h.Send(teaWindowSize(w, 24))
		for i := range h.m.panes {
			h.Press(string(rune('1' + i)))
			l := h.lines()
			hint := l[len(l)-1]
			if !strings.Contains(hint, "? keys") || !strings.Contains(hint, "q quit") {
				t.Errorf("%d columns, pane %s: hint line %q", w, h.m.panes[i].Title(), hint)
			}
			if len([]rune(strings.TrimRight(hint, " "))) > w {
				t.Errorf("%d columns, pane %s: hint line wider than the screen: %q", w, h.m.panes[i].Title(), hint)
			}
		}
	}
	// The pane's first (most useful) hint stays; the last ones go.
	h.Send(teaWindowSize(80, 24))
	h.Press("1")
	l := h.lines()
	if hint := l[len(l)-1]; !strings.HasPrefix(hint, "/ search • enter open") {
		t.Errorf("Recall's hint line at 80 columns: %q", hint)
	}
}

// TestFullHelpFitsWithGlobalKeysFirst: the ? help lists the global keys
// first and every key of the pane, within 80 columns (scrolling when it
// is taller than the screen).
func TestFullHelpFitsWithGlobalKeysFirst(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for i, p := range h.m.panes {
		h.Press(string(rune('1' + i)))
		h.Press("?")
		if !h.m.ShowingFullHelp() {
			t.Fatalf("pane %s: ? does not open the help", p.Title())
		}
		// Collect every line the help shows, scrolling down.
		seen := map[string]bool{}
		var all []string
		for range 40 {
			for _, line := range h.lines()[1 : len(h.lines())-2] {
				if !seen[line] {
					seen[line] = true
					all = append(all, line)
				}
			}
			h.Press("j")
		}
		text := strings.Join(all, "\n")
		g := strings.Index(text, "Global")
		if g < 0 || g > strings.Index(text, p.Title()) || !strings.Contains(all[0], "Global") {
			t.Fatalf("pane %s: the global keys do not come first:\n%s", p.Title(), text)
		}
		for _, want := range []string{"tab       next pane", "shift+tab previous pane", "1-5       go to pane", "?         keys", "esc       back", "q         quit"} {
			if !strings.Contains(text, want) {
				t.Errorf("pane %s: global key %q missing:\n%s", p.Title(), want, text)
			}
		}
		for _, group := range p.FullHelp() {
			for _, b := range group {
				if !b.Enabled() || b.Help().Key == "" {
					continue
				}
				first := strings.Fields(b.Help().Desc)[0]
				found := false
				for _, line := range all {
					if strings.Contains(line, b.Help().Key+" ") && strings.Contains(line, first) {
						found = true
					}
				}
				if !found {
					t.Errorf("pane %s: key %q (%s) missing from the help at 80 columns:\n%s", p.Title(), b.Help().Key, b.Help().Desc, text)
				}
			}
		}
		h.Press("esc")
		if h.m.ShowingFullHelp() {
			t.Fatal("esc does not close the help")
		}
	}
}

// TestNoticeHasItsOwnLine: an action's outcome shows on its own line and
// leaves the status bar whole; a success goes after pane.FlashTTL, an
// error stays.
func TestNoticeHasItsOwnLine(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	status := func() string { l := h.lines(); return l[len(l)-2] }
	before := status()
	if !strings.HasSuffix(strings.TrimRight(before, " "), "│ db 1ms") {
		t.Fatalf("the status bar does not end with the health: %q", before)
	}
	h.Send(pane.NoticeMsg{Text: "created 0000a009 and a long explanation that would have covered the end of the status bar"})
	l := h.lines()
	if len(l) != 24 || !strings.Contains(l[len(l)-3], "created 0000a009") || status() != before {
		t.Fatalf("the notice is not on its own line above an untouched status bar:\n%s", h.Screen())
	}
	h.Advance(pane.FlashTTL)
	h.fixStatus()
	if strings.Contains(h.Screen(), "created 0000a009") || len(h.lines()) != 24 {
		t.Fatalf("a success notice does not go:\n%s", h.Screen())
	}
	h.Send(pane.NoticeMsg{Text: "save", Err: errString("version conflict")})
	h.Advance(2 * pane.FlashTTL)
	h.fixStatus() // the status ticks re-measured it meanwhile
	if !strings.Contains(h.Screen(), "save: version conflict") || status() != before {
		t.Fatalf("an error notice does not stay on its line:\n%s", h.Screen())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestClickOnTabSwitches: a left click on a tab's label switches to it.
func TestClickOnTabSwitches(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tabs := h.lines()[0]
	for i, p := range h.m.panes {
		x := len([]rune(tabs[:strings.Index(tabs, p.Title())]))
		h.Send(tea.MouseClickMsg{X: x + 1, Y: 0, Button: tea.MouseLeft})
		if h.m.Active() != i {
			t.Fatalf("click on %q at x=%d: active pane %d", p.Title(), x+1, h.m.Active())
		}
	}
	h.Press("1")
	h.Send(tea.MouseClickMsg{X: 12, Y: 5, Button: tea.MouseLeft}) // below the tab bar
	h.Send(tea.MouseClickMsg{X: len([]rune(tabs[:strings.Index(tabs, "Jobs")])), Y: 0, Button: tea.MouseRight})
	if h.m.Active() != 0 {
		t.Fatalf("a click off the tabs (or not the left button) switched to pane %d", h.m.Active())
	}
}
