package tuitest

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Clock is the tests' pane.Clock. Its commands do not wait: a Tick
// command returns a timer and a Wait command returns the blocking command
// it wraps, both as messages only a Harness understands. The Harness keeps
// the timers on its own fake time line and fires them when it chooses,
// and runs the waits in the background, so it never mistakes a timer or
// the wait for live changes for I/O it should finish.
type Clock struct{}

// timerMsg is a Tick command's result: fn(t) is due d after it ran.
type timerMsg struct {
	d  time.Duration
	fn func(time.Time) tea.Msg
}

// waitMsg is a Wait command's result: cmd blocks on the outside world.
type waitMsg struct{ cmd tea.Cmd }

// Tick implements pane.Clock.
func (Clock) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return timerMsg{d: d, fn: fn} }
}

// Wait implements pane.Clock.
func (Clock) Wait(cmd tea.Cmd) tea.Cmd {
	return func() tea.Msg { return waitMsg{cmd: cmd} }
}
