package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Name is Gemini CLI's name in `cairn install`, `cairn hook --harness`
// and what its hooks record.
const Name = "gemini"

// contextCap bounds what cairn's answer puts in Gemini CLI's context (it
// documents no cap; Claude Code's is used).
const contextCap = 10000

// Harness is Gemini CLI for the hook shim. Its answer is Claude Code's
// hookSpecificOutput (Gemini CLI wraps it in <hook_context>).
var Harness = harness.Harness{
	Name: Name,
	Events: map[string]harness.Event{
		"session-start": {Path: "session-start", Name: "SessionStart", Timeout: 2 * time.Second},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "BeforeAgent", Timeout: 2 * time.Second,
			Transform: func(in map[string]any) {
				if p, ok := in["prompt"].(string); ok {
					in["prompt"] = StripHookContext(p)
				}
			}},
		// PreCompress fires with trigger auto before every model call,
		// most of which compress nothing: a /compress (manual) is a
		// compaction, an auto one only when the chat file says the
		// prompt has reached Gemini CLI's threshold (compress.go).
		"pre-compact": {Path: "pre-compaction", Transcript: true, Timeout: 2 * time.Second,
			Skip: func(in map[string]any) bool {
				home, _ := os.UserHomeDir()
				return !compressing(in, home)
			}},
		"session-end": {Path: "session-end", Spool: "session-end", Transcript: true, Timeout: time.Second},
		"remember":    {Path: "remember", Spool: "remember", Timeout: 2 * time.Second},
	},
	Print: harness.PrintHookSpecific(contextCap),
}

var hookContext = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<hook_context>.*?</hook_context>\s*`) })

// StripHookContext removes the <hook_context> blocks Gemini CLI puts
// before a prompt (what SessionStart's hooks injected), so that the
// prompt hook's recall searches for what the user typed.
func StripHookContext(prompt string) string {
	if !strings.Contains(prompt, "<hook_context>") {
		return prompt
	}
	return strings.TrimSpace(hookContext().ReplaceAllString(prompt, ""))
}

// hooks are the hooks `cairn install gemini` adds, with their timeouts in
// milliseconds (Gemini CLI's unit).
var hooks = []struct {
	event, arg string
	timeout    int
}{
	{"SessionStart", "session-start", 5000},
	{"BeforeAgent", "user-prompt-submit", 3000},
	{"PreCompress", "pre-compact", 5000},
	{"SessionEnd", "session-end", 2000},
}

var ours = harness.OwnCommand(Name)

// SettingsFile is Gemini CLI's user settings, which get the hooks and the
// MCP server.
func SettingsFile(o harness.InstallOptions) string {
	return filepath.Join(o.Home, ".gemini", "settings.json")
}

// AddHooks puts cairn's handlers into the settings' hooks.
func AddHooks(top *jsonedit.Object, bin string) error {
	var hs []harness.CommandHook
	for _, h := range hooks {
		hs = append(hs, harness.CommandHook{Event: h.event, Command: harness.HookCommand(bin, Name, h.arg), Timeout: h.timeout,
			Extra: map[string]any{"name": "cairn-" + h.arg}})
	}
	return harness.AddGroupedHooks(top, hs, ours)
}

// AddMCPServer adds cairn's MCP server, trusted: in a headless run
// (gemini -p) Gemini CLI drops the tools of a server it does not trust.
func AddMCPServer(top *jsonedit.Object, bin string) error {
	return harness.AddMCPEntry(top, "mcpServers", harness.MCPEntry{
		Set: []harness.KV{{Key: "command", Value: bin}, {Key: "args", Value: []string{"mcp"}}, {Key: "trust", Value: true}},
	}, harness.IsOurMCPArgs)
}

// Install adds cairn's hooks and MCP server to Gemini CLI's settings,
// keeping a backup. Run again, it changes nothing.
func Install(o harness.InstallOptions) ([]harness.Change, error) {
	path := SettingsFile(o)
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		if err := AddHooks(top, o.Bin); err != nil {
			return err
		}
		if o.NoMCP {
			return nil
		}
		return AddMCPServer(top, o.Bin)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []harness.Change{{What: what(o), File: path, Changed: changed, Backup: backup}}, nil
}

// Uninstall removes exactly what Install added.
func Uninstall(o harness.InstallOptions) ([]harness.Change, error) {
	path := SettingsFile(o)
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		harness.RemoveGroupedHooks(top, ours)
		if !o.NoMCP {
			harness.RemoveMCPEntry(top, "mcpServers", harness.IsOurMCPArgs)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []harness.Change{{What: what(o), File: path, Changed: changed, Backup: backup}}, nil
}

func what(o harness.InstallOptions) string {
	if o.NoMCP {
		return "hooks"
	}
	return "hooks and MCP server"
}
