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

// ourHook recognizes a command cairn installed: a cairn binary running
// `hook EVENT`, whatever folder the binary was in.
var ourHook = regexp.MustCompile(`^'?(?:[^']*/)?cairn'? hook (?:session-start|user-prompt-submit|pre-compact|post-compact|session-end)$`)

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func addClaudeHooks(top *jsonObject, bin string) error {
	removeClaudeHooks(top)
	hooks, err := top.object("hooks")
	if err != nil {
		return err
	}
	for _, h := range claudeHooks {
		var groups []json.RawMessage
		if raw, ok := hooks.get(h.event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return fmt.Errorf("hooks.%s is not an array", h.event)
			}
		}
		group, _ := json.Marshal(map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": shellQuote(bin) + " hook " + h.arg, "timeout": h.timeout}}})
		groups = append(groups, group)
		raw, _ := json.Marshal(groups)
		hooks.set(h.event, raw)
	}
	return top.setObject("hooks", hooks)
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
				if cmd, _ := h["command"].(string); h["type"] == "command" && ourHook.MatchString(cmd) {
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
	if raw, ok := servers.get("cairn"); ok && !isOurMCP(raw) {
		return errors.New(`mcpServers already has a "cairn" entry that does not run a cairn binary; remove it first`)
	}
	entry, _ := json.Marshal(map[string]any{"type": "stdio", "command": bin, "args": []string{"mcp"}, "env": map[string]string{}})
	servers.set("cairn", entry)
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

func isOurMCP(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return json.Unmarshal(raw, &e) == nil && filepath.Base(e.Command) == "cairn" && len(e.Args) == 1 && e.Args[0] == "mcp"
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
	out, err := top.marshalIndent()
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
	keys []string
	vals map[string]json.RawMessage
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
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
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

func (o *jsonObject) marshalIndent() ([]byte, error) {
	b, err := o.marshal()
	if err != nil {
		return nil, err
	}
	var compact, buf bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		return nil, err
	}
	if err := json.Indent(&buf, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
