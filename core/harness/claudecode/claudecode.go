package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

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

// ourHook recognizes a command cairn installed by its shape: one program
// (quoted or not, whatever it is called: cairn, cairn-dev, ./bin/x) run as
// `PROGRAM hook EVENT` with one of the events cairn installs.
var ourHook = regexp.MustCompile(`^(?:'(?:[^']|'\\'')*'|[^\s'"]+) hook (?:session-start|user-prompt-submit|pre-compact|post-compact|session-end)$`)

// AddHooks puts cairn's handler in each of its events: where one is
// already there (any binary), it is updated in place and any duplicate
// dropped; else a group holding it is appended. Run twice, it changes
// nothing the second time.
func AddHooks(top *jsonedit.Object, bin string) error {
	hooks, err := top.Object("hooks")
	if err != nil {
		return err
	}
	for _, h := range claudeHooks {
		var groups []json.RawMessage
		if raw, ok := hooks.Get(h.event); ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return fmt.Errorf("hooks.%s is not an array", h.event)
			}
		}
		want := map[string]any{"type": "command", "command": harness.ShellQuote(bin) + " hook " + h.arg, "timeout": h.timeout}
		placed := false
		var out []json.RawMessage
		for _, graw := range groups {
			var g map[string]json.RawMessage
			var handlers []map[string]any
			if json.Unmarshal(graw, &g) != nil || json.Unmarshal(g["hooks"], &handlers) != nil {
				out = append(out, graw)
				continue
			}
			var rest []map[string]any
			ours := false
			for _, hd := range handlers {
				if !isOurHook(hd) {
					rest = append(rest, hd)
					continue
				}
				ours = true
				if !placed {
					placed = true
					for k, v := range want { // keep the handler's other keys
						hd[k] = v
					}
					rest = append(rest, hd)
				}
			}
			if !ours {
				out = append(out, graw)
				continue
			}
			if len(rest) == 0 {
				continue
			}
			g["hooks"], _ = json.Marshal(rest)
			b, _ := json.Marshal(g)
			out = append(out, b)
		}
		if !placed {
			group, _ := json.Marshal(map[string]any{"hooks": []any{want}})
			out = append(out, group)
		}
		raw, _ := json.Marshal(out)
		hooks.Set(h.event, raw)
	}
	return top.SetObject("hooks", hooks)
}

// isOurHook reports whether a handler is one cairn installed.
func isOurHook(h map[string]any) bool {
	cmd, _ := h["command"].(string)
	return h["type"] == "command" && ourHook.MatchString(strings.TrimSpace(cmd))
}

// RemoveHooks drops exactly the handlers cairn adds, then the groups and
// events that only held them.
func RemoveHooks(top *jsonedit.Object) {
	hooks, err := top.Object("hooks")
	if err != nil || hooks == nil {
		return
	}
	if _, present := top.Get("hooks"); !present {
		return
	}
	touched := false
	for _, event := range append([]string(nil), hooks.Keys()...) {
		raw, _ := hooks.Get(event)
		var groups []json.RawMessage
		if json.Unmarshal(raw, &groups) != nil {
			continue
		}
		var keep []json.RawMessage
		eventTouched := false
		for _, graw := range groups {
			var g map[string]json.RawMessage
			var handlers []map[string]any
			if json.Unmarshal(graw, &g) != nil || json.Unmarshal(g["hooks"], &handlers) != nil {
				keep = append(keep, graw)
				continue
			}
			var rest []map[string]any
			for _, h := range handlers {
				if isOurHook(h) {
					eventTouched = true
					continue
				}
				rest = append(rest, h)
			}
			if len(rest) == len(handlers) {
				keep = append(keep, graw)
				continue
			}
			if len(rest) > 0 {
				g["hooks"], _ = json.Marshal(rest)
				b, _ := json.Marshal(g)
				keep = append(keep, b)
			}
		}
		if !eventTouched {
			continue
		}
		touched = true
		if len(keep) == 0 {
			hooks.Del(event)
			continue
		}
		b, _ := json.Marshal(keep)
		hooks.Set(event, b)
	}
	if !touched {
		return
	}
	if len(hooks.Keys()) == 0 {
		top.Del("hooks")
		return
	}
	_ = top.SetObject("hooks", hooks)
}

// AddMCPServer adds (or updates) the "cairn" entry of mcpServers: bin run
// with the argument mcp over stdio. An entry of that name that is not
// cairn's own is refused.
func AddMCPServer(top *jsonedit.Object, bin string) error {
	servers, err := top.Object("mcpServers")
	if err != nil {
		return err
	}
	entry := jsonedit.New()
	if raw, ok := servers.Get("cairn"); ok {
		if !isOurMCP(raw) {
			return errors.New(`mcpServers already has a "cairn" entry that is not cairn's own (it does not run PROGRAM mcp); remove or rename it first`)
		}
		if entry, err = jsonedit.Parse(raw); err != nil {
			return err
		}
	}
	// The user's own keys of the entry (env, say) stay.
	set := func(k string, v any) { b, _ := json.Marshal(v); entry.Set(k, b) }
	set("type", "stdio")
	set("command", bin)
	set("args", []string{"mcp"})
	if _, ok := entry.Get("env"); !ok {
		set("env", map[string]string{})
	}
	if err := servers.SetObject("cairn", entry); err != nil {
		return err
	}
	return top.SetObject("mcpServers", servers)
}

// RemoveMCPServer removes the "cairn" entry of mcpServers when it is
// cairn's own.
func RemoveMCPServer(top *jsonedit.Object) {
	servers, err := top.Object("mcpServers")
	if err != nil {
		return
	}
	if raw, ok := servers.Get("cairn"); ok && isOurMCP(raw) {
		servers.Del("cairn")
		_ = top.SetObject("mcpServers", servers)
	}
}

// isOurMCP recognizes the entry cairn installs under the name "cairn": a
// program (whatever it is called) run with the single argument mcp.
func isOurMCP(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return json.Unmarshal(raw, &e) == nil && e.Command != "" && len(e.Args) == 1 && e.Args[0] == "mcp"
}
