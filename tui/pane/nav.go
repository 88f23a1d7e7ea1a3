package pane

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/tui/keys"
)

// MoveCursor applies a list navigation key (up, down, page up and down,
// top, bottom) to cursor over n rows with pages of page rows. ok is false
// when msg is not one of them; the result may be out of range (the pane
// clamps it).
func MoveCursor(l keys.List, msg tea.KeyPressMsg, cursor, n, page int) (int, bool) {
	switch {
	case key.Matches(msg, l.Up):
		return cursor - 1, true
	case key.Matches(msg, l.Down):
		return cursor + 1, true
	case key.Matches(msg, l.PageUp):
		return cursor - page, true
	case key.Matches(msg, l.PageDown):
		return cursor + page, true
	case key.Matches(msg, l.Top):
		return 0, true
	case key.Matches(msg, l.Bottom):
		return n - 1, true
	}
	return cursor, false
}

// ScrollDetail handles a key in a detail view shown in vp: top and bottom
// jump, any other key goes to the viewport (arrows, pages, mouse).
func ScrollDetail(vp *viewport.Model, l keys.List, msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, l.Top):
		vp.GotoTop()
	case key.Matches(msg, l.Bottom):
		vp.GotoBottom()
	default:
		var cmd tea.Cmd
		*vp, cmd = vp.Update(msg)
		return cmd
	}
	return nil
}

// IsMove reports whether msg is a list navigation key of l.
func IsMove(l keys.List, msg tea.KeyPressMsg) bool {
	_, ok := MoveCursor(l, msg, 0, 0, 0)
	return ok
}

// WheelRows is how many rows one wheel notch moves a list.
const WheelRows = 3

// WheelCursor moves cursor by a wheel notch (down or up; other buttons
// leave it). The pane clamps the result.
func WheelCursor(msg tea.MouseWheelMsg, cursor int) int {
	switch msg.Button {
	case tea.MouseWheelDown:
		return cursor + WheelRows
	case tea.MouseWheelUp:
		return cursor - WheelRows
	}
	return cursor
}
