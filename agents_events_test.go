package main

import "testing"

// Every harness's session end and compaction send the session's
// transcript: the shim reads the file the harness names (cairn never
// opens a path a request names), so an event without Transcript set
// would record the session with nothing to learn from.
func TestEveryHarnessSendsTheTranscript(t *testing.T) {
	for _, a := range agents {
		for _, name := range []string{"session-end", "pre-compact"} {
			ev, ok := a.hook.Events[name]
			if !ok {
				continue // the harness has no such event
			}
			if !ev.Transcript {
				t.Errorf("%s: the %s event does not send the transcript", a.name, name)
			}
		}
	}
}
