package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
)

// Harness is an agent harness as the hook shim serves it: the events
// `cairn hook EVENT` takes for it and how it takes back what cairn
// injects. claudecode.Harness is Claude Code's.
type Harness struct {
	// Name is who the hooks' writes are recorded as unless --harness
	// says otherwise.
	Name string
	// Events are the hook events by the name `cairn hook` takes.
	Events map[string]Event
	// Print writes inject (never blank) into the agent's context as the
	// answer to ev, in the harness's format.
	Print func(w io.Writer, ev Event, inject string) error
}

// Event is one hook event: where the shim sends it, what the harness calls
// it, what becomes of it while cairn is down, and how long the agent
// waits.
type Event struct {
	Path string // the API's endpoint, /api/hooks/PATH
	// Name is the harness's name of the event in what the shim prints;
	// empty: the event injects nothing, the shim prints nothing.
	Name string
	// Spool is the spool kind of a write kept while cairn is down (see
	// IngestSpool); empty: dropped.
	Spool   string
	Timeout time.Duration
	// Transcript: the shim reads the file transcript_path names and sends
	// its text (a session's end, a compaction).
	Transcript bool
	// Transform, when set, adjusts the harness's input before it is sent
	// (a field the harness names differently).
	Transform func(in map[string]any)
	// Skip, when set, says the input is not this event after all (Gemini
	// CLI's PreCompress before a model call that compresses nothing): the
	// shim does nothing.
	Skip func(in map[string]any) bool
}

// ParseInput reads a hook's stdin: one JSON object. Anything else is
// nil, except plain text when textOK (remember), which is the content.
func ParseInput(data []byte, textOK bool) map[string]any {
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil || in == nil {
		if textOK && len(bytes.TrimSpace(data)) > 0 && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			return map[string]any{"content": string(data)}
		}
		return nil
	}
	return in
}

// Adapt turns a harness's input for ev into cairn's (ev.Transform) and
// reports whether it is to be skipped (ev.Skip).
func Adapt(ev Event, in map[string]any) (skip bool) {
	if ev.Transform != nil {
		ev.Transform(in)
	}
	return ev.Skip != nil && ev.Skip(in)
}

// PrintHookSpecific is the answer format Claude Code, Codex and Gemini CLI
// share: {"hookSpecificOutput": {"hookEventName", "additionalContext"}} on
// one line, the context cut to maxChars characters.
func PrintHookSpecific(maxChars int) func(w io.Writer, ev Event, inject string) error {
	return func(w io.Writer, ev Event, inject string) error {
		return writeJSONLine(w, map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": ev.Name, "additionalContext": Cut(inject, maxChars)}})
	}
}

// Cut is s cut to maxChars characters, ending with a [truncated] line
// when cut.
func Cut(s string, maxChars int) string {
	const mark = "\n[truncated]"
	if r := []rune(s); len(r) > maxChars {
		return string(r[:maxChars-len(mark)]) + mark
	}
	return s
}

// writeJSONLine writes v as one line of JSON, without HTML escaping.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteJSONLine writes v as one line of JSON, without HTML escaping (a
// harness's answer).
func WriteJSONLine(w io.Writer, v any) error { return writeJSONLine(w, v) }
