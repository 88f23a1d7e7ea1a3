package pane

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Poller is a pane's refresh loop that runs only while the pane is on
// screen (pane.Shown): showing the pane reads at once and starts a tick
// chain; hiding it stops the chain at its next tick. Each Poller's ticks
// are its own, so several polling panes never take each other's.
type Poller struct {
	Interval time.Duration
	// Clock times the ticks; nil is RealClock.
	Clock Clock
	shown bool
	gen   int // bumped on every show and hide: ticks of an older chain are stale
}

// PollTick is a Poller's tick message.
type PollTick struct {
	p   *Poller
	gen int
}

// SetShown records whether the pane is on screen; shown, it returns
// load() batched with the first tick (load is not called when hiding).
func (p *Poller) SetShown(shown bool, load func() tea.Cmd) tea.Cmd {
	if shown == p.shown {
		return nil
	}
	p.shown = shown
	p.gen++
	if !shown {
		return nil
	}
	return tea.Batch(load(), p.Tick())
}

// Shown reports whether the pane is on screen.
func (p *Poller) Shown() bool { return p.shown }

// Tick schedules the chain's next tick.
func (p *Poller) Tick() tea.Cmd {
	gen := p.gen
	return clockOr(p.Clock).Tick(p.Interval, func(time.Time) tea.Msg { return PollTick{p: p, gen: gen} })
}

// Due reports whether msg is this poller's current tick while shown; the
// pane then refreshes and schedules the next Tick.
func (p *Poller) Due(msg PollTick) bool { return msg.p == p && msg.gen == p.gen && p.shown }
