package recall_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/tui/internal/shelltest"
)

// rowText is what a row leaves the memory's text: the cells from where
// the content starts (found by its first words) to the end of the line.
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

// TestRecallColumnsGiveTheTextRoom: searching every project keeps each
// result's project at every width (six results about the same thing in
// different projects must say which is which), and the lesser columns
// (tags, importance, age, the type's full name) give way before the
// memory's text is cut to nothing: at 40 columns it keeps about half the
// line. Scoped to one project, the project column is not repeated.
func TestRecallColumnsGiveTheTextRoom(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		minText int
		tags    bool
	}{{40, 24, 19, false}, {80, 24, 32, false}, {140, 45, 60, true}} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: tc.w, Height: tc.h})
			h.Press("/")
			h.TypeText("deploy")
			row, text := rowText(t, h.Screen(), "Run the deploy")
			if !strings.Contains(row, " cairn ") || text < tc.minText || strings.Contains(row, "infra") != tc.tags {
				t.Fatalf("a search result at %d columns: %q (%d cells of text)\n%s", tc.w, row, text, h.Screen())
			}
			h.Press("esc", "esc") // the recent list, every project
			for _, start := range []string{"The HTTP API", "Run the deploy", "We decided"} {
				row, text := rowText(t, h.Screen(), start)
				if !strings.Contains(row, " cairn ") || text < tc.minText {
					t.Fatalf("a recent memory at %d columns: %q (%d cells of text)", tc.w, row, text)
				}
			}
			// One project: its name is in the header, not on every row.
			h.Press("/")
			h.TypeText("project:cairn")
			h.Press("esc")
			if s := h.Screen(); !strings.Contains(s, "project cairn") {
				t.Fatalf("project:cairn:\n%s", s)
			}
			if row, _ := rowText(t, h.Screen(), "Run the deploy"); strings.Contains(row, " cairn ") {
				t.Fatalf("a project's list repeats the project on its rows: %q", row)
			}
		})
	}
}
