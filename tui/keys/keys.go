// Package keys holds every key binding of the terminal UI. Panes match key
// presses against these bindings and feed the same bindings to the help
// bar, so the help can never drift from the keys that work.
package keys

import "charm.land/bubbles/v2/key"

// Global are the shell's keys, active in every pane unless a text field has
// the focus (then only Quit's ctrl+c works).
type Global struct {
	Quit, Help, Back key.Binding
	NextTab, PrevTab key.Binding
	Tab1, Tab2, Tab3 key.Binding
	Tab4, Tab5       key.Binding
	// Palette opens the command palette: every action of every pane,
	// found by typing part of its name.
	Palette key.Binding
}

// DefaultGlobal returns the shell's bindings.
func DefaultGlobal() Global {
	return Global{
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		NextTab: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Tab1:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1-5", "go to pane")),
		Tab2:    key.NewBinding(key.WithKeys("2")),
		Tab3:    key.NewBinding(key.WithKeys("3")),
		Tab4:    key.NewBinding(key.WithKeys("4")),
		Tab5:    key.NewBinding(key.WithKeys("5")),
		Palette: key.NewBinding(key.WithKeys(":", "ctrl+p", "ctrl+k"), key.WithHelp(":/ctrl+p", "command palette")),
	}
}

// Tabs returns the number bindings in pane order.
func (g Global) Tabs() []key.Binding { return []key.Binding{g.Tab1, g.Tab2, g.Tab3, g.Tab4, g.Tab5} }

// List moves through a list; vim keys and arrows both work.
type List struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open                                    key.Binding
}

// DefaultList returns the list bindings.
func DefaultList() List {
	return List{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup/ctrl+u", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn/ctrl+d", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "bottom")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
	}
}

// Recall are the Recall pane's actions.
type Recall struct {
	Search      key.Binding
	New, Edit   key.Binding
	Pin, Delete key.Binding
	Recover     key.Binding
	Deleted     key.Binding
	Copy        key.Binding
	// CopyID copies the memory's id; Undo recovers the memory last
	// deleted here; Mark marks a row for a bulk delete.
	CopyID, Undo, Mark key.Binding
	// Project switches the list between every project and the current one.
	Project key.Binding
	// Filters documents the key:value tokens of the search box; it is
	// never matched against a key press.
	Filters key.Binding
	// Entities moves into the open memory's entities; EntityMove picks
	// one, OpenEntity opens the picked one (or the entity view's row).
	Entities   key.Binding
	EntityMove key.Binding
	OpenEntity key.Binding
	// Back leaves the entity view or the picking, one step.
	Back key.Binding
}

// DefaultRecall returns the Recall pane's bindings.
func DefaultRecall() Recall {
	return Recall{
		Search:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		New:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Edit:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit")),
		Pin:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin/unpin")),
		Delete:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete")),
		Recover: key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "recover")),
		Deleted: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "show deleted")),
		Copy:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy content")),
		CopyID:  key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy id")),
		Undo:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo the last delete")),
		Mark:    key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark (d deletes the marked)")),
		Project: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "all/this project")),
		Filters: key.NewBinding(key.WithKeys("\x00filters"),
			key.WithHelp("in search", "type:T tag:A,B who:W project:P pinned:yes imp:0.7 since:7d|2026-01-31")),
		Entities:   key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "entities")),
		EntityMove: key.NewBinding(key.WithKeys("left", "right", "h", "l", "up", "down", "k", "j"), key.WithHelp("←/→", "pick entity")),
		OpenEntity: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// History are the History pane's actions.
type History struct {
	Filter key.Binding
	// Sort cycles the order: newest first, oldest first.
	Sort key.Binding
	// Filters documents the filter box's tokens.
	Filters key.Binding
}

// DefaultHistory returns the History pane's bindings.
func DefaultHistory() History {
	return History{
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:   key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort: newest/oldest first")),
		Filters: key.NewBinding(key.WithKeys("\x00filters"),
			key.WithHelp("in filter", "event:updated actor:NAME mem:ID (the short id works); other words match content, reason or actor")),
	}
}

// Form are the keys of the new/edit form and its prompts.
type Form struct {
	NextField, PrevField key.Binding
	Save, Cancel         key.Binding
	Toggle               key.Binding
	Confirm              key.Binding
}

// DefaultForm returns the form bindings.
func DefaultForm() Form {
	return Form{
		NextField: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		PrevField: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Save:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Toggle:    key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle pinned")),
		Confirm:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
	}
}

// Jobs are the Jobs pane's actions.
type Jobs struct {
	Filter, FilterBack key.Binding
	Retry              key.Binding
	RequeueAll         key.Binding
	ReleaseLeases      key.Binding
	// Connectors switches to the connectors view, Queue back; Sync
	// syncs the selected connector.
	Connectors, Queue key.Binding
	Sync              key.Binding
	// Search filters the list by text (id, type, memory, error).
	Search key.Binding
	// Sort cycles the queue's order: live first, newest, oldest.
	Sort key.Binding
}

// DefaultJobs returns the Jobs pane's bindings.
func DefaultJobs() Jobs {
	return Jobs{
		Filter:        key.NewBinding(key.WithKeys("f"), key.WithHelp("f/F", "filter by status")),
		FilterBack:    key.NewBinding(key.WithKeys("F")),
		Retry:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry/requeue job")),
		RequeueAll:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "requeue all dead")),
		ReleaseLeases: key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "release stale leases")),
		Connectors:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "connectors")),
		Queue:         key.NewBinding(key.WithKeys("c"), key.WithHelp("c/esc", "back to the queue")),
		Sync:          key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sync connector")),
		Search:        key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by text")),
		Sort:          key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort: live first/newest/oldest/type")),
	}
}

// Proposals are the Proposals pane's actions.
type Proposals struct {
	Approve, Reject, Skip key.Binding
	ApproveAll            key.Binding
	Action, Flag          key.Binding
	Decided               key.Binding
	// Undo reopens the proposals last decided here (an approved ADD's
	// memory is forgotten first).
	Undo key.Binding
	// Search filters the list by text (fact, reason, type, ids); Sort
	// cycles the order; Mark marks a row for a bulk decision (a or r
	// then decide every marked proposal).
	Search, Sort, Mark key.Binding
}

// DefaultProposals returns the Proposals pane's bindings.
func DefaultProposals() Proposals {
	return Proposals{
		Approve:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve")),
		Reject:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reject")),
		Skip:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip")),
		ApproveAll: key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "approve adds ≥ confidence")),
		Action:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter action")),
		Flag:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "filter flag")),
		Decided:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "pending/decided")),
		Undo:       key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo the last decision")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by text")),
		Sort:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort: newest/oldest/confidence/action")),
		Mark:       key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark (bulk a/r)")),
	}
}

// Confirm answers a yes/no question.
type Confirm struct {
	Yes, No key.Binding
}

// DefaultConfirm returns the yes/no bindings.
func DefaultConfirm() Confirm {
	return Confirm{
		Yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "no")),
	}
}
