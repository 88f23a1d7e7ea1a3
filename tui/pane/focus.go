package pane

import tea "charm.land/bubbletea/v2"

// Focusable is a pane that works only while it is shown (the Diagnostics
// pane polls once a second). The shell calls Focus when the pane becomes
// the active tab and Blur when it stops being it.
type Focusable interface {
	Focus() tea.Cmd
	Blur()
}

// SwitchFocus tells from and to (when they are Focusable) that the active
// pane changed, returning to's command.
func SwitchFocus(from, to Pane) tea.Cmd {
	if f, ok := from.(Focusable); ok {
		f.Blur()
	}
	if f, ok := to.(Focusable); ok {
		return f.Focus()
	}
	return nil
}
