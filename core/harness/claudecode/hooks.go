package claudecode

import (
	"time"

	"github.com/cairnmem/cairn/core/harness"
)

// contextCap is Claude Code's cap on additionalContext; longer text is
// replaced by a file path and a short preview.
const contextCap = 10000

// Harness is Claude Code for the hook shim: `cairn hook EVENT` for each of
// the hooks `cairn install claude-code` adds, plus remember.
var Harness = harness.Harness{
	Name: "claude-code",
	Events: map[string]harness.Event{
		"session-start":      {Path: "session-start", Name: "SessionStart", Timeout: 2 * time.Second},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "UserPromptSubmit", Timeout: 2 * time.Second},
		"pre-compact":        {Path: "pre-compaction", Transcript: true, Timeout: 2 * time.Second},
		"post-compact": {Path: "compaction-complete", Timeout: 2 * time.Second, Spool: "", Transform: func(in map[string]any) {
			if _, ok := in["summary"]; !ok {
				in["summary"] = in["compact_summary"]
			}
		}},
		"session-end": {Path: "session-end", Spool: "session-end", Transcript: true, Timeout: time.Second},
		"remember":    {Path: "remember", Spool: "remember", Timeout: 2 * time.Second},
	},
	Print: harness.PrintHookSpecific(contextCap),
}
