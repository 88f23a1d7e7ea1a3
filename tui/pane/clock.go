package pane

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Clock is where the UI's timed commands come from: every tick (the
// status bar's, pollers', the search debounce, spinner frames, a flash's
// expiry) and the one command that blocks on the world outside (the wait
// for the next live change). The shell and the panes never call tea.Tick
// themselves, so a test harness can swap in a fake whose commands it
// recognises: it runs real I/O to completion and fires timers when it
// chooses, instead of sitting out real intervals. Production uses
// RealClock, which is tea.Tick itself.
type Clock interface {
	// Tick is tea.Tick: a command that sends fn(t) once d has passed.
	Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// Wait marks cmd as blocking until something happens outside the UI
	// (a write by anyone), not as I/O that ends by itself.
	Wait(cmd tea.Cmd) tea.Cmd
}

// RealClock is the wall clock: Tick is tea.Tick and Wait returns the
// command unchanged.
type RealClock struct{}

// Tick implements Clock with tea.Tick.
func (RealClock) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd { return tea.Tick(d, fn) }

// Wait implements Clock: the command runs as it is.
func (RealClock) Wait(cmd tea.Cmd) tea.Cmd { return cmd }

// clockOr is c, or RealClock when c is nil (zero values stay usable).
func clockOr(c Clock) Clock {
	if c == nil {
		return RealClock{}
	}
	return c
}
