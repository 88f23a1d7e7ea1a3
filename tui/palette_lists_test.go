package tui

import (
	"strings"
	"testing"

	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

// TestPaletteOffersTheListKeys: the palette lists the sort of History,
// Jobs and Proposals and Proposals' filter and mark, and runs them in
// their pane.
func TestPaletteOffersTheListKeys(t *testing.T) {
	h := newHarness(t, harnessOpts{width: 80, height: 24})
	pipelineFixture(h)
	h.Press(":")
	h.TypeText("sort")
	s := h.Screen()
	for _, want := range []string{"History      o              sort: newest/oldest first", "Jobs         o              sort: live first/newest/oldest/type", "Proposals    o              sort: newest/oldest/confidence/action"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the palette does not offer %q:\n%s", want, s)
		}
	}
	h.Press("esc", ":")
	h.TypeText("history sort")
	h.Press("enter")
	if h.m.Active() != 1 || !strings.Contains(h.Screen(), "events, oldest first") {
		t.Fatalf("the palette does not sort the history:\n%s", h.Screen())
	}
	h.Press(":")
	h.TypeText("proposals sort")
	h.Press("enter")
	if h.m.Active() != 4 || !strings.Contains(h.Screen(), "pending proposals, oldest first") {
		t.Fatalf("the palette does not sort the proposals:\n%s", h.Screen())
	}
	h.Press(":")
	h.TypeText("proposals mark")
	if sel := tuitest.SelectedLine(h.Screen()); !strings.Contains(sel, "space") || !strings.Contains(sel, "mark (bulk a/r)") {
		t.Fatalf("mark: %q\n%s", sel, h.Screen())
	}
	h.Press("enter")
	if !strings.Contains(h.Screen(), "1 marked (a approves") {
		t.Fatalf("the palette does not mark:\n%s", h.Screen())
	}
	h.Press(":")
	h.TypeText("proposals filter by text")
	h.Press("enter")
	if !h.m.Pane(4).Capturing() || !strings.Contains(h.Screen(), "/ filter proposals") {
		t.Fatalf("the palette does not open the filter:\n%s", h.Screen())
	}
}
