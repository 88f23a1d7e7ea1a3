package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// TestNoColor checks what NO_COLOR users get: the renderer strips every
// colour, and the selected row is still marked.
func TestNoColor(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.Ascii}
	if _, err := w.WriteString(h.m.Render()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "38;2;") || strings.Contains(out, "48;2;") || strings.Contains(out, "38;5;") {
		t.Fatal("colours survive the Ascii profile")
	}
	if !strings.Contains(out, "› ") {
		t.Fatal("no selection marker without colour")
	}
}

func TestResizeKeepsFrameSize(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, size := range [][2]int{{120, 40}, {60, 15}, {200, 50}, {80, 24}} {
		h.Send(teaWindowSize(size[0], size[1]))
		out := h.m.Render()
		if got := strings.Count(out, "\n") + 1; got != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], got)
		}
		for i, line := range strings.Split(stripANSI(out), "\n") {
			if w := len([]rune(line)); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide", size[0], size[1], i, w)
			}
		}
	}
}
