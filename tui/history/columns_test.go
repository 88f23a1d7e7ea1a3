package history_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/tui/internal/shelltest"
)

// rowText is what a row leaves the event's text: the cells from where
// it starts (found by its first words) to the end of the line.
func rowText(t *testing.T, screen, start string) (row string, text int) {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, start); i >= 0 {
			return l, ansi.StringWidth(strings.TrimRight(l[i:], " "))
		}
	}
	t.Fatalf("no row with %q:\n%s", start, screen)
	return "", 0
}

// TestHistoryColumnsGiveTheTextRoom: at 80 columns the event list keeps
// the reason and content room (the time drops its year, the actor its
// padding); wide, every column shows in full.
func TestHistoryColumnsGiveTheTextRoom(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		minText int
		cols    string
	}{{40, 24, 19, "created   0000a004 "}, {80, 24, 35, "03-14 15:09 created   seed        0000a004 "},
		{140, 45, 60, "2026-03-14 15:09 created   seed           operator 0000a004 "}} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: tc.w, Height: tc.h})
			h.Press("2")
			row, text := rowText(t, h.Screen(), "import · Run the d")
			if !strings.Contains(row, tc.cols) || text < tc.minText {
				t.Fatalf("an event at %d columns: %q (%d cells of text)\n%s", tc.w, row, text, h.Screen())
			}
		})
	}
}
