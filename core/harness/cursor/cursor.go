package cursor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Name is Cursor's name in `cairn install`, `cairn hook --harness` and
// what its hooks record.
const Name = "cursor"

// contextCap is the inline cap of Cursor's additional_context (longer
// text is not inlined).
const contextCap = 10000

// Harness is Cursor for the hook shim.
var Harness = harness.Harness{
	Name: Name,
	Events: map[string]harness.Event{
		"session-start":      {Path: "session-start", Name: "sessionStart", Timeout: 2 * time.Second, Transform: adapt},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "beforeSubmitPrompt", Timeout: 2 * time.Second, Transform: adapt},
		"pre-compact":        {Path: "pre-compaction", Transcript: true, Timeout: 2 * time.Second, Transform: adapt},
		"session-end":        {Path: "session-end", Spool: "session-end", Transcript: true, Timeout: time.Second, Transform: adapt},
		"remember":           {Path: "remember", Spool: "remember", Timeout: 2 * time.Second, Transform: adapt},
	},
	Print: printInject,
}

// adapt maps Cursor's input onto cairn's: the session is the
// conversation (conversation_id; newer builds also send session_id), the
// working directory the first workspace root (else the project folder
// Cursor gives its hooks in CURSOR_PROJECT_DIR).
func adapt(in map[string]any) {
	if s, _ := in["session_id"].(string); s == "" {
		if c, ok := in["conversation_id"].(string); ok {
			in["session_id"] = c
		}
	}
	if cwd, _ := in["cwd"].(string); cwd != "" {
		return
	}
	if roots, ok := in["workspace_roots"].([]any); ok && len(roots) > 0 {
		if r, ok := roots[0].(string); ok && r != "" {
			in["cwd"] = r
			return
		}
	}
	if d := os.Getenv("CURSOR_PROJECT_DIR"); d != "" {
		in["cwd"] = d
	}
}

// printInject writes Cursor's answer: {"additional_context"} for
// sessionStart (documented), and with "continue": true for
// beforeSubmitPrompt (whose documented answer is continue and
// user_message; its additional_context is read by the client though not
// documented).
func printInject(w io.Writer, ev harness.Event, inject string) error {
	out := map[string]any{"additional_context": harness.Cut(inject, contextCap)}
	if ev.Name == "beforeSubmitPrompt" {
		out["continue"] = true
	}
	return harness.WriteJSONLine(w, out)
}

// hooks are the hooks `cairn install cursor` adds, with their timeouts in
// seconds.
var hooks = []struct {
	event, arg string
	timeout    int
}{
	{"sessionStart", "session-start", 5},
	{"beforeSubmitPrompt", "user-prompt-submit", 3},
	{"preCompact", "pre-compact", 5},
	{"sessionEnd", "session-end", 2},
}

var ours = harness.OwnCommand(Name)

// HooksFile and MCPFile are Cursor's user hooks and MCP configuration.
func HooksFile(o harness.InstallOptions) string {
	return filepath.Join(o.Home, ".cursor", "hooks.json")
}
func MCPFile(o harness.InstallOptions) string { return filepath.Join(o.Home, ".cursor", "mcp.json") }

// AddHooks puts cairn's handlers into a hooks.json (and its version, 1,
// when it has none).
func AddHooks(top *jsonedit.Object, bin string) error {
	if _, ok := top.Get("version"); !ok {
		top.Set("version", []byte("1"))
	}
	var hs []harness.CommandHook
	for _, h := range hooks {
		hs = append(hs, harness.CommandHook{Event: h.event, Command: harness.HookCommand(bin, Name, h.arg), Timeout: h.timeout})
	}
	return harness.AddFlatHooks(top, hs, ours)
}

// RemoveHooks takes cairn's handlers out of a hooks.json, and the version
// when nothing else is left.
func RemoveHooks(top *jsonedit.Object) {
	harness.RemoveFlatHooks(top, ours)
	if keys := top.Keys(); len(keys) == 1 && keys[0] == "version" {
		top.Del("version")
	}
}

// Install adds cairn's hooks and MCP server to Cursor's user
// configuration, keeping a backup of each file it changes.
func Install(o harness.InstallOptions) ([]harness.Change, error) {
	var changes []harness.Change
	path := HooksFile(o)
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error { return AddHooks(top, o.Bin) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	changes = append(changes, harness.Change{What: "hooks", File: path, Changed: changed, Backup: backup})
	if o.NoMCP {
		return changes, nil
	}
	path = MCPFile(o)
	changed, backup, err = jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		return harness.AddMCPEntry(top, "mcpServers", harness.MCPEntry{
			Set: []harness.KV{{Key: "command", Value: o.Bin}, {Key: "args", Value: []string{"mcp"}}},
		}, harness.IsOurMCPArgs)
	})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", path, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: path, Changed: changed, Backup: backup}), nil
}

// Uninstall removes exactly what Install added.
func Uninstall(o harness.InstallOptions) ([]harness.Change, error) {
	var changes []harness.Change
	path := HooksFile(o)
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error { RemoveHooks(top); return nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	changes = append(changes, harness.Change{What: "hooks", File: path, Changed: changed, Backup: backup})
	if o.NoMCP {
		return changes, nil
	}
	path = MCPFile(o)
	changed, backup, err = jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		harness.RemoveMCPEntry(top, "mcpServers", harness.IsOurMCPArgs)
		return nil
	})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", path, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: path, Changed: changed, Backup: backup}), nil
}
