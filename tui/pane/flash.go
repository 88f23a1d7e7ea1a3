package pane

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Shown is implemented by panes that poll while they are on screen (Jobs):
// the shell tells them when they become the active pane and when they stop
// being it, so nothing polls behind the user's back.
type Shown interface {
	SetShown(shown bool) tea.Cmd
}

// FlashTTL is how long an action's outcome stays in a pane's message line.
// Errors stay until the next action: a person must be able to read them.
const FlashTTL = 6 * time.Second

// Flash is a pane's one-line, transient outcome of an action ("requeued 3
// dead jobs", or an error in the error style).
type Flash struct {
	Text string
	Err  bool
	// Clock times the expiry; nil is RealClock.
	Clock Clock
	seq   int
}

type flashExpiredMsg struct {
	flash *Flash
	seq   int
}

// Set shows text (an error when err) and returns the command that clears
// a success after FlashTTL.
func (f *Flash) Set(text string, err bool) tea.Cmd {
	f.seq++
	f.Text, f.Err = text, err
	if err {
		return nil
	}
	seq := f.seq
	return clockOr(f.Clock).Tick(FlashTTL, func(time.Time) tea.Msg { return flashExpiredMsg{flash: f, seq: seq} })
}

// Clear removes the message.
func (f *Flash) Clear() {
	f.seq++
	f.Text, f.Err = "", false
}

// Update clears the message when its time is up; it ignores other messages.
func (f *Flash) Update(msg tea.Msg) {
	if e, ok := msg.(flashExpiredMsg); ok && e.flash == f && e.seq == f.seq {
		f.Text = ""
	}
}
