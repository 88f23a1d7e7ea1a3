package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Name is Codex's name in `cairn install`, `cairn hook --harness` and
// what its hooks record.
const Name = "codex"

// contextCap bounds what cairn's answer puts in Codex's context (its own
// cap is not documented; Claude Code's is used).
const contextCap = 10000

// Harness is Codex for the hook shim: the events `cairn install codex`
// adds, with Claude Code's input fields and answer format. Codex's
// PostCompact carries no summary, so it is not installed: the
// SessionStart that follows a compaction (source compact) brings the
// recovery digest.
var Harness = harness.Harness{
	Name: Name,
	Events: map[string]harness.Event{
		"session-start":      {Path: "session-start", Name: "SessionStart", Timeout: 2 * time.Second},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "UserPromptSubmit", Timeout: 2 * time.Second},
		"pre-compact":        {Path: "pre-compaction", Transcript: true, Timeout: 2 * time.Second},
		"session-end":        {Path: "session-end", Spool: "session-end", Transcript: true, Timeout: time.Second},
		"remember":           {Path: "remember", Spool: "remember", Timeout: 2 * time.Second},
	},
	Print: harness.PrintHookSpecific(contextCap),
}

// hooks are the hooks `cairn install codex` adds, with their timeouts in
// seconds (Codex clamps SessionEnd's to 3).
var hooks = []struct {
	event, arg string
	timeout    int
}{
	{"SessionStart", "session-start", 5},
	{"UserPromptSubmit", "user-prompt-submit", 3},
	{"PreCompact", "pre-compact", 5},
	{"SessionEnd", "session-end", 3},
}

var ours = harness.OwnCommand(Name)

// Home is Codex's folder: CODEX_HOME, else ~/.codex.
func Home(o harness.InstallOptions) string {
	if h := o.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(o.Home, ".codex")
}

// HooksFile and ConfigFile are Codex's user hooks and config.
func HooksFile(o harness.InstallOptions) string  { return filepath.Join(Home(o), "hooks.json") }
func ConfigFile(o harness.InstallOptions) string { return filepath.Join(Home(o), "config.toml") }

// Install adds cairn's hooks to Codex's hooks.json, their trust entries
// and cairn's MCP server to its config.toml, keeping a backup of each
// file it changes. Run again, it changes nothing.
func Install(o harness.InstallOptions) ([]harness.Change, error) {
	hooksPath, configPath := HooksFile(o), ConfigFile(o)
	var changes []harness.Change
	changed, backup, err := jsonedit.EditFile(hooksPath, func(top *jsonedit.Object) error {
		var hs []harness.CommandHook
		for _, h := range hooks {
			hs = append(hs, harness.CommandHook{Event: h.event, Command: harness.HookCommand(o.Bin, Name, h.arg), Timeout: h.timeout})
		}
		return harness.AddGroupedHooks(top, hs, ours)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	changes = append(changes, harness.Change{What: "hooks", File: hooksPath, Changed: changed, Backup: backup})
	trust, err := ourTrust(hooksPath)
	if err != nil {
		return changes, err
	}
	what := "hook trust and MCP server"
	if o.NoMCP {
		what = "hook trust"
	}
	changed, backup, err = editConfig(configPath, func(d *tomlDoc, decoded map[string]any) error {
		for _, t := range trust {
			key := []string{"hooks", "state", t.Key}
			if lookup(decoded, key) != nil && d.find(key) < 0 {
				return fmt.Errorf("hooks.state.%s is set, but not as a table of its own; remove it first", tomlString(t.Key))
			}
			d.put(&tomlTable{key: key, lines: []string{"[" + tomlKey(key) + "]\n", "trusted_hash = " + tomlString(t.Hash) + "\n"}})
		}
		if o.NoMCP {
			return nil
		}
		return putMCP(d, decoded, o)
	})
	changes = append(changes, harness.Change{What: what, File: configPath, Changed: changed, Backup: backup})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", configPath, err)
	}
	return changes, nil
}

// Uninstall removes exactly what Install added.
func Uninstall(o harness.InstallOptions) ([]harness.Change, error) {
	hooksPath, configPath := HooksFile(o), ConfigFile(o)
	trust, err := ourTrust(hooksPath)
	if err != nil {
		return nil, err
	}
	var changes []harness.Change
	changed, backup, err := jsonedit.EditFile(hooksPath, func(top *jsonedit.Object) error {
		harness.RemoveGroupedHooks(top, ours)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	changes = append(changes, harness.Change{What: "hooks", File: hooksPath, Changed: changed, Backup: backup})
	keys := map[string]bool{}
	for _, t := range trust {
		keys[t.Key] = true
	}
	changed, backup, err = editConfig(configPath, func(d *tomlDoc, decoded map[string]any) error {
		removed := d.drop(func(key []string, array bool) bool {
			return !array && len(key) == 3 && key[0] == "hooks" && key[1] == "state" && keys[key[2]]
		})
		if !o.NoMCP && isOurMCP(lookup(decoded, mcpKey)) {
			removed = d.drop(func(key []string, _ bool) bool { return hasPrefix(key, mcpKey) }) || removed
		}
		if removed {
			trimEnd(d)
		}
		return nil
	})
	changes = append(changes, harness.Change{What: "hook trust and MCP server", File: configPath, Changed: changed, Backup: backup})
	if err != nil {
		return changes, fmt.Errorf("%s: %w", configPath, err)
	}
	return changes, nil
}

// ourTrust is the trust entries of cairn's handlers in the hooks.json at
// path.
func ourTrust(path string) ([]Trust, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	all, err := HookTrust(path, data)
	if err != nil {
		return nil, err
	}
	var out []Trust
	for _, t := range all {
		if ours(t.Command) {
			out = append(out, t)
		}
	}
	return out, nil
}

var mcpKey = []string{"mcp_servers", "cairn"}

// mcpKeys are the keys of cairn's MCP table that Install sets; the user's
// other keys in it stay.
var mcpKeys = []string{"command", "args", "env", "default_tools_approval_mode"}

// mcpNote is the comment Install puts at the top of its MCP table.
const mcpNote = "# cairn's memory tools: added by cairn install codex, removed by cairn uninstall codex\n"

// putMCP writes cairn's [mcp_servers.cairn] table: bin run with mcp, the
// environment that says where cairn's files are (Codex does not pass its
// own environment to MCP servers), and its tools approved (they only read
// and write cairn's store; unapproved, a headless Codex refuses them).
func putMCP(d *tomlDoc, decoded map[string]any, o harness.InstallOptions) error {
	if cur := lookup(decoded, mcpKey); cur != nil {
		if !isOurMCP(cur) {
			return errors.New(`mcp_servers already has a "cairn" entry that is not cairn's own (it does not run PROGRAM mcp); remove or rename it first`)
		}
		if d.find(mcpKey) < 0 {
			return errors.New("mcp_servers.cairn is set, but not as a [mcp_servers.cairn] table; remove it first")
		}
	}
	lines := []string{"[" + tomlKey(mcpKey) + "]\n", mcpNote,
		"command = " + tomlString(o.Bin) + "\n",
		`args = ["mcp"]` + "\n"}
	if env := o.CairnEnv(); len(env) > 0 {
		var kv []string
		for _, k := range sortedKeys(env) {
			kv = append(kv, k+" = "+tomlString(env[k]))
		}
		lines = append(lines, "env = { "+strings.Join(kv, ", ")+" }\n")
	}
	lines = append(lines, `default_tools_approval_mode = "approve"`+"\n")
	if i := d.find(mcpKey); i >= 0 {
		old := d.tables[i]
		lines[0] = old.lines[0] // the user's header, as written
		keys, groups := old.statements()
		for j, g := range groups {
			if slices.Contains(mcpKeys, keys[j]) || (keys[j] == "" && g[0] == mcpNote) {
				continue
			}
			lines = append(lines, g...)
		}
	}
	// env is written inline: a [mcp_servers.cairn.env] table would
	// define it twice.
	d.drop(func(key []string, _ bool) bool { return keyEqual(key, append(slices.Clone(mcpKey), "env")) })
	d.put(&tomlTable{key: mcpKey, lines: lines})
	return nil
}

// isOurMCP recognizes the entry cairn installs under the name cairn: a
// program (whatever it is called) run with mcp as its first argument.
func isOurMCP(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := m["command"].(string)
	args, _ := m["args"].([]any)
	return cmd != "" && len(args) >= 1 && args[0] == "mcp"
}

// lookup is the value at key in a decoded TOML document, or nil.
func lookup(doc map[string]any, key []string) any {
	var cur any = doc
	for _, k := range key {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[k]; !ok {
			return nil
		}
	}
	return cur
}

// editConfig applies edit to the TOML file at path (missing: empty) and
// writes the result, with a backup, when it changed. The file must decode
// before, and the result after, or nothing is written.
func editConfig(path string, edit func(*tomlDoc, map[string]any) error) (changed bool, backup string, err error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, "", err
	}
	decoded := map[string]any{}
	if _, err := toml.Decode(string(old), &decoded); err != nil {
		return false, "", fmt.Errorf("not valid TOML (fix it first): %w", err)
	}
	d := parseTOML(string(old))
	if err := edit(d, decoded); err != nil {
		return false, "", err
	}
	out := d.String()
	if out == string(old) {
		return false, "", nil
	}
	if _, err := toml.Decode(out, &map[string]any{}); err != nil {
		return false, "", fmt.Errorf("cairn's edit would not be valid TOML, so nothing was written (please report this): %w", err)
	}
	backup, err = jsonedit.ReplaceFile(path, old, []byte(out))
	return err == nil, backup, err
}

// trimEnd drops the blank lines at the end of the document that Install
// put before the tables it appended.
func trimEnd(d *tomlDoc) {
	for {
		var lines *[]string
		if n := len(d.tables); n > 0 {
			lines = &d.tables[n-1].lines
		} else {
			lines = &d.pre
		}
		n := len(*lines)
		if n == 0 || strings.TrimSpace((*lines)[n-1]) != "" || (len(d.tables) > 0 && n == 1) {
			return
		}
		*lines = (*lines)[:n-1]
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
