package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

// Editing the hook files of the harnesses for `cairn install`: cairn's
// handlers added, found again by their command line and removed exactly,
// with the user's own handlers, key order and formatting left alone.

// CommandHook is one command hook an installer adds.
type CommandHook struct {
	// Event is the harness's name of the event (SessionStart,
	// BeforeAgent, sessionStart).
	Event string
	// Command is the command line the harness runs.
	Command string
	// Timeout is in the harness's unit (seconds, or milliseconds for
	// Gemini CLI); 0 leaves it out.
	Timeout int
	// Extra are more keys of the handler (Gemini CLI's name).
	Extra map[string]any
}

// handler is h as the JSON object of a handler; typed says whether it
// carries "type": "command" (the grouped shapes do, Cursor's does not).
func (h CommandHook) handler(typed bool) map[string]any {
	m := map[string]any{"command": h.Command}
	if typed {
		m["type"] = "command"
	}
	if h.Timeout > 0 {
		m["timeout"] = h.Timeout
	}
	for k, v := range h.Extra {
		m[k] = v
	}
	return m
}

// HookCommand is the command line of cairn's hook for event: `BIN hook
// EVENT`, or `BIN hook --harness NAME EVENT` for a harness other than
// Claude Code (whose command line has no --harness, as earlier installs
// wrote it).
func HookCommand(bin, harness, event string) string {
	if harness == "" {
		return ShellQuote(bin) + " hook " + event
	}
	return ShellQuote(bin) + " hook --harness " + harness + " " + event
}

// OwnCommand returns the recognizer of the command lines HookCommand
// writes for harness ("" for Claude Code's), whatever the program is
// called (cairn, cairn-dev, ./bin/x, quoted or not) and for the events
// installers add.
func OwnCommand(harness string) func(string) bool {
	flag := ""
	if harness != "" {
		flag = `--harness ` + regexp.QuoteMeta(harness) + ` `
	}
	// Compiled on first use: every harness package calls this at start-up.
	re := sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:'(?:[^']|'\\'')*'|[^\s'"]+) hook ` + flag + `(?:session-start|user-prompt-submit|pre-compact|post-compact|session-end)$`)
	})
	return func(cmd string) bool { return re().MatchString(strings.TrimSpace(cmd)) }
}

// AddGroupedHooks puts cairn's handlers into the "hooks" object of top in
// the shape Claude Code, Codex and Gemini CLI share ({"hooks": {EVENT:
// [{"matcher"?, "hooks": [HANDLER…]}]}}): where a handler of cairn's is
// already in the event (any binary), it is updated in place, keeping its
// other keys, and any duplicate dropped; else a group holding it is
// appended. Run twice, it changes nothing the second time.
func AddGroupedHooks(top *jsonedit.Object, hooks []CommandHook, ours func(string) bool) error {
	obj, err := top.Object("hooks")
	if err != nil {
		return err
	}
	for _, h := range hooks {
		groups, err := arrayOf(obj, h.Event)
		if err != nil {
			return err
		}
		want := h.handler(true)
		placed := false
		var out []json.RawMessage
		for _, graw := range groups {
			g, handlers, ok := splitGroup(graw)
			if !ok {
				out = append(out, graw)
				continue
			}
			var rest []map[string]any
			mine := false
			for _, hd := range handlers {
				if !isOurs(hd, ours) {
					rest = append(rest, hd)
					continue
				}
				mine = true
				if !placed {
					placed = true
					for k, v := range want {
						hd[k] = v
					}
					rest = append(rest, hd)
				}
			}
			switch {
			case !mine:
				out = append(out, graw)
			case len(rest) > 0:
				g["hooks"], _ = json.Marshal(rest)
				b, _ := json.Marshal(g)
				out = append(out, b)
			}
		}
		if !placed {
			group, _ := json.Marshal(map[string]any{"hooks": []any{want}})
			out = append(out, group)
		}
		raw, _ := json.Marshal(out)
		obj.Set(h.Event, raw)
	}
	return top.SetObject("hooks", obj)
}

// RemoveGroupedHooks drops exactly cairn's handlers from the grouped
// shape, then the groups and events that only held them, and the "hooks"
// object when nothing else is left in it.
func RemoveGroupedHooks(top *jsonedit.Object, ours func(string) bool) {
	removeHooks(top, ours, func(raw json.RawMessage) (json.RawMessage, bool, bool) {
		g, handlers, ok := splitGroup(raw)
		if !ok {
			return raw, false, true
		}
		var rest []map[string]any
		for _, h := range handlers {
			if !isOurs(h, ours) {
				rest = append(rest, h)
			}
		}
		if len(rest) == len(handlers) {
			return raw, false, true
		}
		if len(rest) == 0 {
			return nil, true, false
		}
		g["hooks"], _ = json.Marshal(rest)
		b, _ := json.Marshal(g)
		return b, true, true
	})
}

// AddFlatHooks puts cairn's handlers into the "hooks" object of top in
// Cursor's flat shape ({"hooks": {EVENT: [HANDLER…]}}), as
// AddGroupedHooks does for the grouped one.
func AddFlatHooks(top *jsonedit.Object, hooks []CommandHook, ours func(string) bool) error {
	obj, err := top.Object("hooks")
	if err != nil {
		return err
	}
	for _, h := range hooks {
		handlers, err := arrayOf(obj, h.Event)
		if err != nil {
			return err
		}
		want := h.handler(false)
		placed := false
		var out []json.RawMessage
		for _, raw := range handlers {
			var hd map[string]any
			if json.Unmarshal(raw, &hd) != nil || !isOurs(hd, ours) {
				out = append(out, raw)
				continue
			}
			if placed {
				continue
			}
			placed = true
			for k, v := range want {
				hd[k] = v
			}
			b, _ := json.Marshal(hd)
			out = append(out, b)
		}
		if !placed {
			b, _ := json.Marshal(want)
			out = append(out, b)
		}
		raw, _ := json.Marshal(out)
		obj.Set(h.Event, raw)
	}
	return top.SetObject("hooks", obj)
}

// RemoveFlatHooks drops exactly cairn's handlers from Cursor's flat shape,
// then the events that only held them, and the "hooks" object when
// nothing else is left in it.
func RemoveFlatHooks(top *jsonedit.Object, ours func(string) bool) {
	removeHooks(top, ours, func(raw json.RawMessage) (json.RawMessage, bool, bool) {
		var hd map[string]any
		if json.Unmarshal(raw, &hd) != nil || !isOurs(hd, ours) {
			return raw, false, true
		}
		return nil, true, false
	})
}

// removeHooks walks each event's array of top's "hooks" through edit,
// which returns an item's new value, whether it changed and whether it
// stays.
func removeHooks(top *jsonedit.Object, ours func(string) bool, edit func(json.RawMessage) (json.RawMessage, bool, bool)) {
	if _, present := top.Get("hooks"); !present {
		return
	}
	obj, err := top.Object("hooks")
	if err != nil {
		return
	}
	touched := false
	for _, event := range append([]string(nil), obj.Keys()...) {
		raw, _ := obj.Get(event)
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		var keep []json.RawMessage
		changed := false
		for _, it := range items {
			v, ch, stays := edit(it)
			changed = changed || ch
			if stays {
				keep = append(keep, v)
			}
		}
		if !changed {
			continue
		}
		touched = true
		if len(keep) == 0 {
			obj.Del(event)
			continue
		}
		b, _ := json.Marshal(keep)
		obj.Set(event, b)
	}
	if !touched {
		return
	}
	if len(obj.Keys()) == 0 {
		top.Del("hooks")
		return
	}
	_ = top.SetObject("hooks", obj)
}

// arrayOf is the array at key of obj (none when absent or null).
func arrayOf(obj *jsonedit.Object, key string) ([]json.RawMessage, error) {
	raw, ok := obj.Get(key)
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("hooks.%s is not an array", key)
	}
	return items, nil
}

// splitGroup reads a group of the grouped shape: its keys and its
// handlers.
func splitGroup(raw json.RawMessage) (map[string]json.RawMessage, []map[string]any, bool) {
	var g map[string]json.RawMessage
	var handlers []map[string]any
	if json.Unmarshal(raw, &g) != nil || json.Unmarshal(g["hooks"], &handlers) != nil {
		return nil, nil, false
	}
	return g, handlers, true
}

// isOurs reports whether a handler is one cairn installed: a command
// (typed "command", or untyped in Cursor's shape) that ours recognizes.
func isOurs(h map[string]any, ours func(string) bool) bool {
	cmd, _ := h["command"].(string)
	if t, typed := h["type"]; typed && t != "command" {
		return false
	}
	return ours(cmd)
}

// MCPEntry is the MCP server entry an installer adds under "cairn": Set
// are its keys, set every time, in this order when new; Default are keys
// set only when the entry has none of its own (env, which the user may
// have filled).
type MCPEntry struct {
	Set, Default []KV
}

// KV is one key of a JSON object and its value.
type KV struct {
	Key   string
	Value any
}

// AddMCPEntry adds (or updates) the "cairn" entry of the object at key
// (mcpServers) of top. An entry of that name that is not cairn's own
// (isOurMCP) is refused; the user's own keys of cairn's entry stay.
func AddMCPEntry(top *jsonedit.Object, key string, e MCPEntry, isOurMCP func(json.RawMessage) bool) error {
	servers, err := top.Object(key)
	if err != nil {
		return err
	}
	entry := jsonedit.New()
	if raw, ok := servers.Get("cairn"); ok {
		if !isOurMCP(raw) {
			return fmt.Errorf(`%s already has a "cairn" entry that is not cairn's own (it does not run PROGRAM mcp); remove or rename it first`, key)
		}
		if entry, err = jsonedit.Parse(raw); err != nil {
			return err
		}
	}
	set := func(k string, v any) { b, _ := json.Marshal(v); entry.Set(k, b) }
	for _, kv := range e.Set {
		set(kv.Key, kv.Value)
	}
	for _, kv := range e.Default {
		if _, ok := entry.Get(kv.Key); !ok {
			set(kv.Key, kv.Value)
		}
	}
	if err := servers.SetObject("cairn", entry); err != nil {
		return err
	}
	return top.SetObject(key, servers)
}

// RemoveMCPEntry removes the "cairn" entry of the object at key of top
// when it is cairn's own, and the object when cairn's entry was all it
// held.
func RemoveMCPEntry(top *jsonedit.Object, key string, isOurMCP func(json.RawMessage) bool) {
	servers, err := top.Object(key)
	if err != nil {
		return
	}
	if raw, ok := servers.Get("cairn"); ok && isOurMCP(raw) {
		servers.Del("cairn")
		if len(servers.Keys()) == 0 {
			top.Del(key)
			return
		}
		_ = top.SetObject(key, servers)
	}
}

// IsOurMCPArgs recognizes an MCP entry cairn installs: a program
// (whatever it is called) run with the single argument mcp, as "command"
// and "args" (Claude Code, Gemini CLI, Cursor).
func IsOurMCPArgs(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return json.Unmarshal(raw, &e) == nil && e.Command != "" && len(e.Args) == 1 && e.Args[0] == "mcp"
}

// Change is what an installer did to one file.
type Change struct {
	What    string `json:"what"`
	File    string `json:"file"`
	Changed bool   `json:"changed"`
	Backup  string `json:"backup,omitempty"`
}

// InstallOptions are what an installer needs to know.
type InstallOptions struct {
	// Home is the user's home folder.
	Home string
	// Bin is the cairn binary the hooks and the MCP server run (an
	// absolute path).
	Bin string
	// NoMCP leaves the MCP configuration alone.
	NoMCP bool
	// Env is the environment the installer runs in (KEY=VALUE), for the
	// variables that decide where a harness keeps its settings and where
	// cairn keeps its store.
	Env []string
}

// Getenv is the value of k in o.Env.
func (o InstallOptions) Getenv(k string) string {
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}

// CairnEnv is the part of o.Env that decides where cairn keeps its files
// (CAIRN_HOME and the XDG folders), for an MCP server entry of a harness
// that does not pass its environment on (Codex).
func (o InstallOptions) CairnEnv() map[string]string {
	out := map[string]string{}
	for _, k := range []string{"CAIRN_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		if v := o.Getenv(k); v != "" {
			out[k] = v
		}
	}
	return out
}
