package keys

import "charm.land/bubbles/v2/key"

// Diagnostics are the Diagnostics pane's keys. Repairs sit on mnemonic
// letters rather than digits: the digits switch panes.
type Diagnostics struct {
	// Repairs holds one binding per entry of core.RepairActions, in that
	// order (check-fts twice: f checks, F checks and rebuilds).
	Repairs []key.Binding
	// RepairKeys documents the repair letters in the short help; it is
	// never matched against a key press.
	RepairKeys key.Binding
	Yes, No    key.Binding
	Refresh    key.Binding
}

// DefaultDiagnostics returns the Diagnostics pane's bindings.
func DefaultDiagnostics() Diagnostics {
	repair := func(k, help string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, help)) }
	return Diagnostics{
		Repairs: []key.Binding{
			repair("r", "requeue dead jobs"),
			repair("l", "release stale leases"),
			repair("f", "check FTS index"),
			repair("F", "check + rebuild FTS"),
			repair("e", "re-embed"),
			repair("o", "clean orphan vectors"),
			repair("d", "merge exact duplicates"),
			repair("s", "retention sweep"),
		},
		RepairKeys: key.NewBinding(key.WithKeys("\x00repairs"), key.WithHelp("r l f F e o d s", "repair")),
		Yes:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "run it")),
		No:         key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "cancel")),
		Refresh:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "refresh now")),
	}
}
