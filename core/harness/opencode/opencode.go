package opencode

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Name is OpenCode's name in `cairn install`, `cairn hook --harness` and
// what its hooks record.
const Name = "opencode"

// Harness is OpenCode for the hook shim: the events its plugin sends, in
// Claude Code's input fields, answered with Claude Code's
// hookSpecificOutput (which the plugin reads). The plugin's session end
// carries the conversation itself (transcript).
var Harness = harness.Harness{
	Name: Name,
	Events: map[string]harness.Event{
		"session-start":      {Path: "session-start", Name: "SessionStart", Timeout: 2 * time.Second},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "UserPromptSubmit", Timeout: 2 * time.Second},
		"pre-compact":        {Path: "pre-compaction", Transcript: true, Timeout: 2 * time.Second},
		"session-end":        {Path: "session-end", Spool: "session-end", Transcript: true, Timeout: 2 * time.Second},
		"remember":           {Path: "remember", Spool: "remember", Timeout: 2 * time.Second},
	},
	Print: harness.PrintHookSpecific(10000),
}

//go:embed plugin.js
var pluginSource string

// pluginMark is the first line of the plugin cairn writes: a file that
// starts with it is cairn's.
const pluginMark = "// cairn for OpenCode: written by `cairn install opencode`"

// Plugin is the plugin's source for the cairn binary bin.
func Plugin(bin string) string {
	q, _ := json.Marshal(bin)
	return strings.Replace(pluginSource, "__CAIRN_BIN__", string(q), 1)
}

// ConfigDir is OpenCode's global config folder:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode.
func ConfigDir(o harness.InstallOptions) string {
	if x := o.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "opencode")
	}
	return filepath.Join(o.Home, ".config", "opencode")
}

// PluginFile and ConfigFile are where the plugin and the MCP server go.
func PluginFile(o harness.InstallOptions) string {
	return filepath.Join(ConfigDir(o), "plugins", "cairn.js")
}
func ConfigFile(o harness.InstallOptions) string { return filepath.Join(ConfigDir(o), "opencode.json") }

// Install writes cairn's plugin, adds its MCP server to opencode.json and,
// when the config folder has none of them yet, the files that spare
// OpenCode its npm install of @opencode-ai/plugin (SkipDependencyInstall).
func Install(o harness.InstallOptions) ([]harness.Change, error) {
	var changes []harness.Change
	path := PluginFile(o)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(old) > 0 && !strings.HasPrefix(string(old), pluginMark) {
		return nil, fmt.Errorf("%s is not cairn's plugin; move it away first", path)
	}
	want := Plugin(o.Bin)
	c := harness.Change{What: "plugin", File: path}
	if string(old) != want {
		if c.Backup, err = jsonedit.ReplaceFile(path, old, []byte(want)); err != nil {
			return nil, err
		}
		c.Changed = true
	}
	changes = append(changes, c)
	deps, err := SkipDependencyInstall(ConfigDir(o))
	if err != nil {
		return changes, err
	}
	if deps {
		changes = append(changes, harness.Change{What: "plugin dependencies (none needed)", File: filepath.Join(ConfigDir(o), "package.json"), Changed: true})
	}
	if o.NoMCP {
		return changes, nil
	}
	path = ConfigFile(o)
	env := map[string]string{}
	for k, v := range o.CairnEnv() {
		env[k] = v
	}
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		e := harness.MCPEntry{Set: []harness.KV{{Key: "type", Value: "local"}, {Key: "command", Value: []string{o.Bin, "mcp"}}, {Key: "enabled", Value: true}}}
		if len(env) > 0 {
			e.Set = append(e.Set, harness.KV{Key: "environment", Value: env})
		}
		return harness.AddMCPEntry(top, "mcp", e, isOurMCP)
	})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", path, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: path, Changed: changed, Backup: backup}), nil
}

// Uninstall removes exactly what Install added.
func Uninstall(o harness.InstallOptions) ([]harness.Change, error) {
	var changes []harness.Change
	path := PluginFile(o)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		changes = append(changes, harness.Change{What: "plugin", File: path})
	case err != nil:
		return nil, err
	case !strings.HasPrefix(string(old), pluginMark):
		changes = append(changes, harness.Change{What: "plugin", File: path}) // not cairn's
	default:
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		os.Remove(filepath.Dir(path)) // when empty
		changes = append(changes, harness.Change{What: "plugin", File: path, Changed: true})
	}
	if removed, err := removeDependencyFiles(ConfigDir(o)); err != nil {
		return changes, err
	} else if removed {
		changes = append(changes, harness.Change{What: "plugin dependencies", File: filepath.Join(ConfigDir(o), "package.json"), Changed: true})
	}
	if o.NoMCP {
		return changes, nil
	}
	path = ConfigFile(o)
	changed, backup, err := jsonedit.EditFile(path, func(top *jsonedit.Object) error {
		harness.RemoveMCPEntry(top, "mcp", isOurMCP)
		return nil
	})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", path, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: path, Changed: changed, Backup: backup}), nil
}

// isOurMCP recognizes the entry cairn installs under "cairn": a local
// command [PROGRAM, "mcp"].
func isOurMCP(raw json.RawMessage) bool {
	var e struct {
		Command []string `json:"command"`
	}
	return json.Unmarshal(raw, &e) == nil && len(e.Command) == 2 && e.Command[0] != "" && e.Command[1] == "mcp"
}

// The files that make OpenCode skip its dependency install: at every
// start it runs an npm install of @opencode-ai/plugin into a config
// folder that lacks node_modules, or whose package-lock.json does not
// list what its package.json (plus that package) does; through the
// registry, stalling a minute when it is unreachable. cairn's plugin
// imports nothing from it.
var (
	depsJSON = `{"@opencode-ai/plugin":"*"}`
	depFiles = map[string]string{
		"package.json":      `{"dependencies":` + depsJSON + "}\n",
		"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":` + depsJSON + "}}}\n",
	}
)

// SkipDependencyInstall writes package.json, package-lock.json and an
// empty node_modules into dir when none of them is there (a folder with
// any of them is the user's to manage); it reports whether it wrote them.
func SkipDependencyInstall(dir string) (bool, error) {
	for _, name := range []string{"package.json", "package-lock.json", "node_modules"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		return false, err
	}
	for name, data := range depFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return false, err
		}
	}
	return true, nil
}

// removeDependencyFiles removes what SkipDependencyInstall wrote, when it
// is still only that: the two files naming only @opencode-ai/plugin and
// an empty node_modules.
func removeDependencyFiles(dir string) (bool, error) {
	for name := range depFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return false, nil
		}
		var f struct {
			Dependencies map[string]string `json:"dependencies"`
			Packages     map[string]struct {
				Dependencies map[string]string `json:"dependencies"`
			} `json:"packages"`
		}
		if json.Unmarshal(data, &f) != nil {
			return false, nil
		}
		deps := f.Dependencies
		if name == "package-lock.json" {
			deps = f.Packages[""].Dependencies
		}
		if _, ok := deps["@opencode-ai/plugin"]; !ok || len(deps) != 1 {
			return false, nil
		}
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "node_modules")); err != nil || len(entries) > 0 {
		return false, nil
	}
	for name := range depFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return false, err
		}
	}
	return true, os.Remove(filepath.Join(dir, "node_modules"))
}
