// Package shelltest builds the root model (tui.Model) on a tuitest
// Harness for the pane packages' tests. They drive their pane through the
// shell as a person does: its number key, the status bar, the whole frame
// in the goldens. tui's own tests cannot import this package (it imports
// tui); they build the same root in their harness_test.go.
package shelltest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/tui"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// Harness drives the root model.
type Harness = tuitest.Harness[*tui.Model]

// Options configure New.
type Options = tuitest.Options

// New is the root model over a seeded store (see tuitest.New), sized,
// initialised and showing the fixed status.
func New(t *testing.T, o Options) *Harness {
	t.Helper()
	h := tuitest.New(t, o, func(e tuitest.Env) *tui.Model {
		return tui.New(tui.Options{Client: e.Client, Addr: e.Addr, Theme: e.Theme, Version: "test", Now: e.Now, Clock: e.Clock, Project: e.Project, Types: e.Types})
	})
	FixStatus(h)
	return h
}

// FixStatus replaces the measured status (its health is a latency) with
// tuitest.FixedStatus, so renders are stable.
func FixStatus(h *Harness) { h.Send(tui.StatusMsg{Status: tuitest.FixedStatus}) }

// PipelineFixture fills h's queue and proposals (tuitest.PipelineFixture).
func PipelineFixture(h *Harness) {
	h.T.Helper()
	tuitest.PipelineFixture(h.T, h.App, h.DB)
}

// View is one state of the UI worth pinning in a golden file.
type View struct {
	Name  string
	Setup func(h *Harness)
	// Client replaces the Local client (error states).
	Client func(ap *app.App) client.Client
	// Status adjusts the fixed status after setup (warnings).
	Status func(s *pane.Status)
}

// Golden renders every view at 80×24 and 120×40 in the dark and light
// themes, each in a subtest <name>_<w>x<h>_<theme> of t, and compares the
// frame with testdata/<test>/<subtest>.golden. Goldens hold the
// full-colour (TrueColor) rendering: lipgloss emits colours at full depth
// and the renderer downsamples them for the real terminal, so the strings
// are the same on every machine. Run with -update to rewrite them.
func Golden(t *testing.T, views []View) {
	for _, v := range views {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			for _, theme := range []string{"dark", "light"} {
				t.Run(fmt.Sprintf("%s_%dx%d_%s", v.Name, size[0], size[1], theme), func(t *testing.T) {
					t.Parallel() // each view has its own store
					h := New(t, Options{Theme: theme, Width: size[0], Height: size[1], Client: v.Client})
					v.Setup(h)
					if !h.PumpUntil(5*time.Second, func() bool { return !h.M.Busy() }) {
						t.Fatal("still busy after the setup")
					}
					FixStatus(h)
					if v.Status != nil {
						st := tuitest.FixedStatus
						v.Status(&st)
						h.Send(tui.StatusMsg{Status: st})
					}
					h.Send(pane.NoticeMsg{}) // clear the last action's notice
					out := h.M.Render()
					if got := strings.Count(out, "\n") + 1; got != size[1] {
						t.Errorf("%d lines, want %d", got, size[1])
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}
