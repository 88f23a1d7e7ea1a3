package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/cairnmem/cairn/core"
)

// goldenViews puts the UI in each state worth pinning. Goldens hold the
// full-colour (TrueColor) rendering: lipgloss emits colours at full depth
// and the renderer downsamples them for the real terminal, so the strings
// are the same on every machine. Run with -update to rewrite them.
var goldenViews = []struct {
	name  string
	setup func(h *harness)
}{
	{"recall-list", func(h *harness) {}},
	{"recall-detail", func(h *harness) { h.press("enter") }},
	{"recall-edit", func(h *harness) { h.press("j", "j", "e") }},
	{"recall-delete", func(h *harness) { h.press("j", "d") }},
	{"history-list", func(h *harness) { h.press("2") }},
	{"history-diff", func(h *harness) {
		c := "postgres runs on port 5433 in staging\nproduction uses the default 5432"
		if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &c, Reason: "split into two lines"},
			core.Actor{Name: "claude-code", Type: core.ActorAgent}); err != nil {
			h.t.Fatal(err)
		}
		h.press("2")
		h.pumpUntil(2*time.Second, func() bool { return strings.Contains(h.screen(), "7 events") })
		h.press("g", "enter")
	}},
}

func TestGolden(t *testing.T) {
	for _, v := range goldenViews {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			for _, theme := range []string{"dark", "light"} {
				t.Run(fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme), func(t *testing.T) {
					h := newHarness(t, harnessOpts{theme: theme, width: size[0], height: size[1]})
					v.setup(h)
					h.fixStatus()
					h.m.notice = ""
					out := h.m.Render()
					if got := strings.Count(out, "\n") + 1; got != size[1] {
						t.Errorf("%d lines, want %d", got, size[1])
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

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
		h.send(teaWindowSize(size[0], size[1]))
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
