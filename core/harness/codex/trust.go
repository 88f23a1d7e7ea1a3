package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Trust is the entry that makes Codex run one handler of a hooks.json:
// Codex discovers user hooks but runs only those with a
// [hooks.state."KEY"] table in config.toml whose trusted_hash matches.
type Trust struct {
	// Key is PATH:EVENT_IN_SNAKE_CASE:GROUP:HANDLER, PATH the hooks.json's
	// absolute path.
	Key string
	// Hash is "sha256:" and the hex SHA-256 of the handler's canonical
	// JSON.
	Hash string
	// Command is the handler's command line.
	Command string
}

// HookTrust is the trust entry of every command handler of hooksJSON, the
// content of the hooks.json at hooksPath (an absolute path), in the order
// of their keys. The hash is over the handler's canonical JSON, as Codex
// computes it: {"event_name": snake case, "hooks": [{"type": "command",
// "command", "timeout": seconds (600 when unset, at least 1), "async":
// false unless set, "statusMessage" when set}], "matcher" when the group
// has one}, keys sorted, no spaces, no HTML escaping.
func HookTrust(hooksPath string, hooksJSON []byte) ([]Trust, error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string  `json:"type"`
				Command       string  `json:"command"`
				Timeout       *int    `json:"timeout"`
				Async         bool    `json:"async"`
				StatusMessage *string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if len(bytes.TrimSpace(hooksJSON)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(hooksJSON, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	events := make([]string, 0, len(file.Hooks))
	for ev := range file.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	var out []Trust
	for _, ev := range events {
		snake := snakeCase(ev)
		for gi, g := range file.Hooks[ev] {
			for hi, h := range g.Hooks {
				if h.Type != "command" {
					continue
				}
				timeout := 600
				if h.Timeout != nil {
					timeout = max(1, *h.Timeout)
				}
				handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
				if h.StatusMessage != nil {
					handler["statusMessage"] = *h.StatusMessage
				}
				canon := map[string]any{"event_name": snake, "hooks": []any{handler}}
				if g.Matcher != nil {
					canon["matcher"] = *g.Matcher
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false) // serde_json escapes no HTML
				if err := enc.Encode(canon); err != nil {
					return nil, err
				}
				sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
				out = append(out, Trust{
					Key:     fmt.Sprintf("%s:%s:%d:%d", hooksPath, snake, gi, hi),
					Hash:    fmt.Sprintf("sha256:%x", sum),
					Command: h.Command,
				})
			}
		}
	}
	return out, nil
}

// TrustTOML renders entries as config.toml tables.
func TrustTOML(entries []Trust) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "\n[%s]\ntrusted_hash = %s\n", tomlKey([]string{"hooks", "state", e.Key}), tomlString(e.Hash))
	}
	return b.String()
}

// snakeCase is Codex's name of an event in its trust keys:
// UserPromptSubmit → user_prompt_submit.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
