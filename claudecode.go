package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Editing Claude Code's settings for `cairn install` and `cairn uninstall`:
// the hooks and the MCP server entry cairn adds, found again and removed
// exactly, with the user's own entries and key order left alone.

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

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// addClaudeHooks puts cairn's handler in each of its events: where one
// is already there (any binary), it is updated in place and any duplicate
// dropped; else a group holding it is appended. Run twice, it changes
// nothing the second time.
func addClaudeHooks(top *jsonObject, bin string) error {
	hooks, err := top.object("hooks")
	if err != nil {
		return err
	}
	for _, h := range claudeHooks {
		var groups []json.RawMessage
		if raw, ok := hooks.get(h.event); ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return fmt.Errorf("hooks.%s is not an array", h.event)
			}
		}
		want := map[string]any{"type": "command", "command": shellQuote(bin) + " hook " + h.arg, "timeout": h.timeout}
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
		hooks.set(h.event, raw)
	}
	return top.setObject("hooks", hooks)
}

// isOurHook reports whether a handler is one cairn installed.
func isOurHook(h map[string]any) bool {
	cmd, _ := h["command"].(string)
	return h["type"] == "command" && ourHook.MatchString(strings.TrimSpace(cmd))
}

// removeClaudeHooks drops exactly the handlers cairn adds, then the groups
// and events that only held them.
func removeClaudeHooks(top *jsonObject) {
	hooks, err := top.object("hooks")
	if err != nil || hooks == nil {
		return
	}
	if _, present := top.get("hooks"); !present {
		return
	}
	touched := false
	for _, event := range append([]string(nil), hooks.keys...) {
		raw, _ := hooks.get(event)
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
			hooks.del(event)
			continue
		}
		b, _ := json.Marshal(keep)
		hooks.set(event, b)
	}
	if !touched {
		return
	}
	if len(hooks.keys) == 0 {
		top.del("hooks")
		return
	}
	_ = top.setObject("hooks", hooks)
}

func addMCPServer(top *jsonObject, bin string) error {
	servers, err := top.object("mcpServers")
	if err != nil {
		return err
	}
	entry := &jsonObject{vals: map[string]json.RawMessage{}}
	if raw, ok := servers.get("cairn"); ok {
		if !isOurMCP(raw) {
			return errors.New(`mcpServers already has a "cairn" entry that is not cairn's own (it does not run PROGRAM mcp); remove or rename it first`)
		}
		if entry, err = parseJSONObject(raw); err != nil {
			return err
		}
	}
	// The user's own keys of the entry (env, say) stay.
	set := func(k string, v any) { b, _ := json.Marshal(v); entry.set(k, b) }
	set("type", "stdio")
	set("command", bin)
	set("args", []string{"mcp"})
	if _, ok := entry.get("env"); !ok {
		set("env", map[string]string{})
	}
	if err := servers.setObject("cairn", entry); err != nil {
		return err
	}
	return top.setObject("mcpServers", servers)
}

func removeMCPServer(top *jsonObject) {
	servers, err := top.object("mcpServers")
	if err != nil {
		return
	}
	if raw, ok := servers.get("cairn"); ok && isOurMCP(raw) {
		servers.del("cairn")
		_ = top.setObject("mcpServers", servers)
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

// editJSONFile applies edit to the JSON object in path (missing: {}),
// keeping the order of keys, and writes it back atomically if it changed,
// after copying the old file to a timestamped backup beside it.
func editJSONFile(path string, edit func(*jsonObject) error) (changed bool, backup string, err error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, "", err
	}
	top := &jsonObject{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(old)) > 0 {
		if top, err = parseJSONObject(old); err != nil {
			return false, "", fmt.Errorf("not a JSON object (fix or move it first): %w", err)
		}
	}
	if err := edit(top); err != nil {
		return false, "", err
	}
	out, err := top.marshalKeeping(detectIndent(old))
	if err != nil {
		return false, "", err
	}
	if len(bytes.TrimSpace(old)) > 0 {
		if a, b := compactJSON(old), compactJSON(out); a != "" && a == b {
			return false, "", nil
		}
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, "", err
	}
	if len(old) > 0 {
		backup = path + ".cairn-backup-" + time.Now().UTC().Format("20060102T150405.000")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return false, "", fmt.Errorf("backup: %w", err)
		}
	}
	tmp := path + ".cairn-tmp"
	if err := os.WriteFile(tmp, out, mode); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return ""
	}
	return buf.String()
}

// jsonObject is a JSON object that keeps its keys in order and its values
// as written, so editing one key leaves the rest of a user's file alone.
type jsonObject struct {
	keys     []string
	vals     map[string]json.RawMessage
	dirty    map[string]bool        // keys set to a different value since parsing
	children map[string]*jsonObject // objects set with setObject, rendered keeping their own untouched values
}

func parseJSONObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected an object")
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	defer func() { o.dirty = nil }() // as parsed: nothing changed yet
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the object")
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	old, ok := o.vals[k]
	if !ok {
		o.keys = append(o.keys, k)
	}
	if !ok || compactJSON(old) != compactJSON(v) {
		if o.dirty == nil {
			o.dirty = map[string]bool{}
		}
		o.dirty[k] = true
	}
	o.vals[k] = v
}

func (o *jsonObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// object returns the nested object at k (an empty one when absent).
func (o *jsonObject) object(k string) (*jsonObject, error) {
	raw, ok := o.vals[k]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return &jsonObject{vals: map[string]json.RawMessage{}}, nil
	}
	sub, err := parseJSONObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not an object", k)
	}
	return sub, nil
}

func (o *jsonObject) setObject(k string, sub *jsonObject) error {
	b, err := sub.marshal()
	if err != nil {
		return err
	}
	o.set(k, b)
	if o.children == nil {
		o.children = map[string]*jsonObject{}
	}
	o.children[k] = sub
	return nil
}

func (o *jsonObject) marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshalKeeping renders the object one key per line indented by indent:
// the values of keys not changed since parsing exactly as they were
// written (their own formatting kept), changed ones indented to match.
func (o *jsonObject) marshalKeeping(indent string) ([]byte, error) {
	var buf bytes.Buffer
	if err := o.render(&buf, indent, 1); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// render writes o at nesting depth (1: the top object's keys).
func (o *jsonObject) render(buf *bytes.Buffer, indent string, depth int) error {
	pad := strings.Repeat(indent, depth)
	buf.WriteString("{")
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n" + pad)
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteString(": ")
		v := o.vals[k]
		switch {
		case !o.dirty[k]:
			buf.Write(bytes.TrimSpace(v))
		case o.children[k] != nil:
			if err := o.children[k].render(buf, indent, depth+1); err != nil {
				return err
			}
		default:
			if err := json.Indent(buf, []byte(compactJSON(v)), pad, indent); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	if len(o.keys) > 0 {
		buf.WriteString("\n" + strings.Repeat(indent, depth-1))
	}
	buf.WriteString("}")
	return nil
}

// detectIndent is the indentation of a JSON file's first indented line
// (two spaces when it has none).
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}
