package claudecode

import (
	"path/filepath"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Editing Claude Code's settings for `cairn install` and `cairn uninstall`:
// the hooks and the MCP server entry cairn adds, found again and removed
// exactly, with the user's own entries and key order left alone.

// SettingsFile is the Claude Code settings file that gets the hooks, under
// the user's home folder.
func SettingsFile(home string) string { return filepath.Join(home, ".claude", "settings.json") }

// UserConfigFile is Claude Code's user config, which gets the MCP server
// (mcpServers), under the user's home folder.
func UserConfigFile(home string) string { return filepath.Join(home, ".claude.json") }

// InstallHooks adds cairn's hooks, running bin, to the settings file at
// path (AddHooks).
func InstallHooks(path, bin string) (changed bool, backup string, err error) {
	return jsonedit.EditFile(path, func(top *jsonedit.Object) error { return AddHooks(top, bin) })
}

// UninstallHooks removes cairn's hooks from the settings file at path
// (RemoveHooks).
func UninstallHooks(path string) (changed bool, backup string, err error) {
	return jsonedit.EditFile(path, func(top *jsonedit.Object) error { RemoveHooks(top); return nil })
}

// InstallMCP adds cairn's MCP server, running bin, to the user config at
// path (AddMCPServer).
func InstallMCP(path, bin string) (changed bool, backup string, err error) {
	return jsonedit.EditFile(path, func(top *jsonedit.Object) error { return AddMCPServer(top, bin) })
}

// UninstallMCP removes cairn's MCP server from the user config at path
// (RemoveMCPServer).
func UninstallMCP(path string) (changed bool, backup string, err error) {
	return jsonedit.EditFile(path, func(top *jsonedit.Object) error { RemoveMCPServer(top); return nil })
}

// claudeHooks are the hooks `cairn install claude-code` adds, with their
// timeouts in seconds (Claude Code's unit).
var claudeHooks = []struct {
	event, arg string
	timeout    int
}{
	{"SessionStart", "session-start", 5},
	{"UserPromptSubmit", "user-prompt-submit", 3},
	{"PreCompact", "pre-compact", 5},
	{"PostCompact", "post-compact", 5},
	{"SessionEnd", "session-end", 2},
}

// ours recognizes a command cairn installed by its shape: one program
// (quoted or not, whatever it is called: cairn, cairn-dev, ./bin/x) run as
// `PROGRAM hook EVENT` with one of the events cairn installs.
var ours = harness.OwnCommand("")

// AddHooks puts cairn's handler in each of its events: where one is
// already there (any binary), it is updated in place and any duplicate
// dropped; else a group holding it is appended. Run twice, it changes
// nothing the second time.
func AddHooks(top *jsonedit.Object, bin string) error {
	var hooks []harness.CommandHook
	for _, h := range claudeHooks {
		hooks = append(hooks, harness.CommandHook{Event: h.event, Command: harness.HookCommand(bin, "", h.arg), Timeout: h.timeout})
	}
	return harness.AddGroupedHooks(top, hooks, ours)
}

// RemoveHooks drops exactly the handlers cairn adds, then the groups and
// events that only held them.
func RemoveHooks(top *jsonedit.Object) { harness.RemoveGroupedHooks(top, ours) }

// AddMCPServer adds (or updates) the "cairn" entry of mcpServers: bin run
// with the argument mcp over stdio. An entry of that name that is not
// cairn's own is refused.
func AddMCPServer(top *jsonedit.Object, bin string) error {
	return harness.AddMCPEntry(top, "mcpServers", harness.MCPEntry{
		Set:     []harness.KV{{Key: "type", Value: "stdio"}, {Key: "command", Value: bin}, {Key: "args", Value: []string{"mcp"}}},
		Default: []harness.KV{{Key: "env", Value: map[string]string{}}},
	}, harness.IsOurMCPArgs)
}

// RemoveMCPServer removes the "cairn" entry of mcpServers when it is
// cairn's own.
func RemoveMCPServer(top *jsonedit.Object) {
	harness.RemoveMCPEntry(top, "mcpServers", harness.IsOurMCPArgs)
}
