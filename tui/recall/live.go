package recall

import (
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/tui/pane"
)

// StampInterval is how often an open memory checks whether what it shows
// changed: many changes publish no event (an access a recall counted, a
// worker's embedding or entity links, an attribute superseded, an
// aspect's weight), so the detail reads the memory's stamp, one indexed
// read, and reads the memory again only when the stamp differs.
const StampInterval = pane.PollInterval

// stampMsg answers a check of the open memory's stamp.
type stampMsg struct {
	id    string
	stamp string
	err   error
}

// SetShown implements pane.Shown: the open memory is checked only while
// the pane is on screen.
func (m *Model) SetShown(shown bool) tea.Cmd {
	m.shown = shown
	return m.watch()
}

// watch runs the stamp check while a memory is open in the detail view
// and the pane is shown, and stops it otherwise. Every change of mode
// happens in Update, which calls it last.
func (m *Model) watch() tea.Cmd {
	on := m.shown && m.mode == modeDetail && m.mem != nil
	return m.stampPoll.SetShown(on, m.checkStamp)
}

// checkStamp reads the open memory's stamp.
func (m *Model) checkStamp() tea.Cmd {
	if m.mem == nil {
		return nil
	}
	b, id := m.ctx.Client, m.mem.ID
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		stamp, err := b.MemoryStamp(ctx, id)
		return stampMsg{id: id, stamp: stamp, err: err}
	}
}

// stamped reads the open memory again when its stamp changed since it
// was read; the detail keeps its scroll position and picked entity
// (detailMsg). A failed check says nothing: the next tick tries again,
// and a change with an event reloads the memory anyway.
func (m *Model) stamped(msg stampMsg) tea.Cmd {
	if msg.err != nil || msg.stamp == "" || m.mode != modeDetail || m.mem == nil || m.mem.ID != msg.id || msg.stamp == m.stamp {
		return nil
	}
	m.stamp = msg.stamp // one reload per change, however slow it is
	return m.openDetail(msg.id, m.explain)
}
