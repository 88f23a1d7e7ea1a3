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
	"github.com/cairnmem/cairn/tui/backend"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

// goldenViews puts the UI in each state worth pinning. Goldens hold the
// full-colour (TrueColor) rendering: lipgloss emits colours at full depth
// and the renderer downsamples them for the real terminal, so the strings
// are the same on every machine. Run with -update to rewrite them.
var goldenViews = []struct {
	name  string
	setup func(h *harness)
	// backend replaces the Local backend (error states).
	backend func(svc *core.Service) backend.Backend
	// status adjusts the fixed status after setup (warnings).
	status func(s *backend.Status)
}{
	{name: "jobs-empty", setup: func(h *harness) { h.Press("3") }},
	{name: "jobs-busy", setup: func(h *harness) { pipelineFixture(h); h.Press("3", "j", "j") },
		status: func(s *backend.Status) { s.Pipeline, s.Queue, s.DeadJobs, s.PendingProposals = "shadow", 3, 1, 3 }},
	{name: "jobs-detail", setup: func(h *harness) { pipelineFixture(h); h.Press("3", "G", "enter") }},
	{name: "jobs-confirm", setup: func(h *harness) { pipelineFixture(h); h.Press("3", "R") }},
	{name: "jobs-error", setup: func(h *harness) { h.Press("3") }, backend: failing},
	{name: "proposals-empty", setup: func(h *harness) { h.Press("5") }},
	{name: "proposals-busy", setup: func(h *harness) { pipelineFixture(h); h.Press("5", "j") },
		status: func(s *backend.Status) { s.Pipeline, s.PendingProposals, s.ProposalsCapped = "shadow", 100, true }},
	{name: "proposals-conflict", setup: func(h *harness) {
		pipelineFixture(h)
		c := "postgres runs on port 5435 in staging"
		if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &c, Reason: "moved"}, core.Actor{Name: "agent"}); err != nil {
			h.t.Fatal(err)
		}
		h.Press("5", "j", "a")
	}},
	{name: "proposals-decided", setup: func(h *harness) {
		pipelineFixture(h)
		h.Press("5", "G", "r")
		h.TypeText("still flaky")
		h.Press("enter", "d")
	}},
	{name: "proposals-error", setup: func(h *harness) { h.Press("5") }, backend: failing},
}

func failing(svc *core.Service) backend.Backend {
	return tuitest.Failing(svc)
}

func TestGolden(t *testing.T) {
	for _, v := range goldenViews {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			for _, theme := range []string{"dark", "light"} {
				t.Run(fmt.Sprintf("%s_%dx%d_%s", v.name, size[0], size[1], theme), func(t *testing.T) {
					t.Parallel() // each view has its own store; most of the time is waiting
					h := newHarness(t, harnessOpts{theme: theme, width: size[0], height: size[1], backend: v.backend})
					v.setup(h)
					// A slow machine can leave a load in flight past the
					// harness's wait: let it land before rendering.
					h.PumpUntil(5*time.Second, func() bool { return !h.m.Busy() })
					h.fixStatus()
					if v.status != nil {
						st := h.m.status
						v.status(&st)
						h.Send(StatusMsg{Status: st})
					}
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
