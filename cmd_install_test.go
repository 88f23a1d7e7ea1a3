//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

func TestInstallUninstallClaudeCode(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	mcp := filepath.Join(dir, "claude.json")
	userSettings := `{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "my-linter --check", "timeout": 4}]}],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"allow": ["Bash(go test:*)"]}
}
`
	os.WriteFile(settings, []byte(userSettings), 0o644)
	os.WriteFile(mcp, []byte(`{"numStartups": 3, "mcpServers": {"github": {"type": "http", "url": "https://example.com/mcp"}}}`), 0o600)
	bin := "/opt/my tools/cairn"
	install := func(args ...string) string {
		t.Helper()
		out, err := cairnCmd(dir, append(args, "--settings", settings, "--mcp-config", mcp, "--bin", bin)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	install("install", "claude-code")
	data, _ := os.ReadFile(settings)
	var s struct {
		Model string `json:"model"`
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
		Permissions map[string][]string `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("settings: %v\n%s", err, data)
	}
	want := map[string]int{"SessionStart": 5, "UserPromptSubmit": 3, "PreCompact": 5, "PostCompact": 5, "SessionEnd": 2}
	for ev, timeout := range want {
		groups := s.Hooks[ev]
		last := groups[len(groups)-1].Hooks[0]
		if last.Type != "command" || !strings.HasPrefix(last.Command, "'/opt/my tools/cairn' hook ") || last.Timeout != timeout {
			t.Fatalf("%s: %+v", ev, last)
		}
	}
	if s.Model != "opus" || len(s.Hooks["Stop"]) != 1 || len(s.Hooks["UserPromptSubmit"]) != 2 ||
		s.Hooks["UserPromptSubmit"][0].Hooks[0].Command != "my-linter --check" || s.Permissions["allow"][0] != "Bash(go test:*)" {
		t.Fatalf("user entries changed:\n%s", data)
	}
	if strings.Index(string(data), `"model"`) > strings.Index(string(data), `"permissions"`) {
		t.Fatalf("key order changed:\n%s", data)
	}
	backups, _ := filepath.Glob(settings + ".cairn-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != userSettings {
		t.Fatal("backup does not hold the original")
	}
	var m map[string]any
	raw, _ := os.ReadFile(mcp)
	json.Unmarshal(raw, &m)
	servers := m["mcpServers"].(map[string]any)
	c := servers["cairn"].(map[string]any)
	if c["command"] != bin || c["args"].([]any)[0] != "mcp" || c["type"] != "stdio" || servers["github"] == nil || m["numStartups"].(float64) != 3 {
		t.Fatalf("mcp config: %s", raw)
	}

	// Idempotent: a second install changes nothing and writes no backup.
	if out := install("install", "claude-code"); !strings.Contains(out, "already up to date") {
		t.Fatalf("second install: %s", out)
	}
	again, _ := os.ReadFile(settings)
	if string(again) != string(data) {
		t.Fatalf("second install changed the file:\n%s", again)
	}
	if b, _ := filepath.Glob(settings + ".cairn-backup-*"); len(b) != 1 {
		t.Fatalf("backups after second install: %v", b)
	}

	// Uninstall removes exactly what install added.
	install("uninstall", "claude-code")
	data, _ = os.ReadFile(settings)
	if jsonedit.Compact(data) != jsonedit.Compact([]byte(userSettings)) {
		t.Fatalf("uninstall left:\n%s\nwant\n%s", data, userSettings)
	}
	raw, _ = os.ReadFile(mcp)
	if jsonedit.Compact(raw) != jsonedit.Compact([]byte(`{"numStartups": 3, "mcpServers": {"github": {"type": "http", "url": "https://example.com/mcp"}}}`)) {
		t.Fatalf("mcp after uninstall: %s", raw)
	}

	// A fresh file is created; uninstall of nothing is a no-op.
	fresh := filepath.Join(dir, "new", "settings.json")
	out, err := cairnCmd(dir, "install", "claude-code", "--settings", fresh, "--no-mcp", "--bin", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if b, _ := os.ReadFile(fresh); !strings.Contains(string(b), `hook session-start`) {
		t.Fatalf("fresh: %s", b)
	}
	// Not our "cairn" MCP entry: refuse to overwrite.
	os.WriteFile(mcp, []byte(`{"mcpServers": {"cairn": {"command": "npx", "args": ["other-cairn"]}}}`), 0o600)
	if out, err := cairnCmd(dir, "install", "claude-code", "--settings", settings, "--mcp-config", mcp, "--bin", bin).CombinedOutput(); err == nil {
		t.Fatalf("overwrote a foreign cairn entry: %s", out)
	}
}

// A binary not named cairn: a second install changes nothing, a move
// updates the entries in place, uninstall removes them all, and the
// user's formatting of the keys cairn does not touch is kept byte for byte.
func TestInstallAnyBinaryNameIdempotent(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	mcp := filepath.Join(dir, "claude.json")
	user := "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]\n    },\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n"
	userMCP := "{\n\t\"numStartups\": 3\n}\n"
	os.WriteFile(settings, []byte(user), 0o644)
	os.WriteFile(mcp, []byte(userMCP), 0o600)
	run := func(bin string, args ...string) string {
		t.Helper()
		out, err := cairnCmd(dir, append(args, "claude-code", "--settings", settings, "--mcp-config", mcp, "--bin", bin)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := run("/opt/tools/cairn-dev", "install")
	for _, want := range []string{"Restart Claude Code", "cairn recall", "cairn uninstall claude-code"} {
		if !strings.Contains(out, want) {
			t.Errorf("install does not say %q:\n%s", want, out)
		}
	}
	first, _ := os.ReadFile(settings)
	if n := strings.Count(string(first), "hook session-start"); n != 1 {
		t.Fatalf("%d session-start hooks:\n%s", n, first)
	}
	if !strings.Contains(string(first), "\n    \"model\": \"opus\",\n") || !strings.Contains(string(first), `"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]`) ||
		!strings.Contains(string(first), `"permissions": {"allow": ["Bash(ls)"]}`) {
		t.Fatalf("the user's formatting was not kept:\n%s", first)
	}
	if m, _ := os.ReadFile(mcp); !strings.Contains(string(m), "\n\t\"numStartups\": 3,\n\t\"mcpServers\"") {
		t.Fatalf("the indentation of the MCP config was not kept:\n%s", m)
	}

	out = run("/opt/tools/cairn-dev", "install")
	if !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: %s", out)
	}
	if again, _ := os.ReadFile(settings); string(again) != string(first) {
		t.Fatalf("second install changed the file:\n%s", again)
	}

	// Moved binary: the same entries now run it; none is duplicated.
	run("/usr/local/bin/my cairn", "install")
	moved, _ := os.ReadFile(settings)
	if strings.Count(string(moved), "hook session-start") != 1 || !strings.Contains(string(moved), `'/usr/local/bin/my cairn' hook session-start`) {
		t.Fatalf("after a move:\n%s", moved)
	}
	if m, _ := os.ReadFile(mcp); strings.Count(string(m), `"mcp"`) != 1 || !strings.Contains(string(m), "/usr/local/bin/my cairn") {
		t.Fatalf("MCP entry after a move:\n%s", m)
	}

	// Uninstall (run by any binary) removes exactly what install added.
	out = run("/elsewhere/cairn", "uninstall")
	if !strings.Contains(out, "Restart Claude Code") {
		t.Fatalf("uninstall: %s", out)
	}
	if got, _ := os.ReadFile(settings); string(got) != user {
		t.Fatalf("uninstall left:\n%s\nwant:\n%s", got, user)
	}
	if m, _ := os.ReadFile(mcp); strings.Contains(string(m), "cairn") {
		t.Fatalf("MCP entry left: %s", m)
	}
	if out := run("/elsewhere/cairn", "uninstall"); !strings.Contains(out, "nothing changed") {
		t.Fatalf("second uninstall: %s", out)
	}
}

// A binary that will be gone (go run's build cache, a temporary folder) is
// refused with the fix, and nothing is written.
func TestInstallRefusesTemporaryBinary(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	for _, bin := range []string{
		"", // this test's binary, built in a temporary folder
		filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "cairn"),
		"/home/u/.cache/go-build/ab/cairn",
	} {
		args := []string{"install", "claude-code", "--settings", settings, "--no-mcp"}
		if bin != "" {
			args = append(args, "--bin", bin)
		}
		out, err := cairnCmd(dir, args...).CombinedOutput()
		if exitStatus(err) != 1 || !strings.Contains(string(out), "go build -o ~/.local/bin/cairn . && ~/.local/bin/cairn install claude-code") ||
			!strings.Contains(string(out), "go install .") || !strings.Contains(string(out), "add --force") {
			t.Fatalf("bin %q: err=%v\n%s", bin, err, out)
		}
		if _, err := os.Stat(settings); err == nil {
			t.Fatalf("bin %q: settings written", bin)
		}
	}
	// /tmp is temporary whatever TMPDIR says; --force installs from it.
	cmd := cairnCmd(dir, "install", "claude-code", "--settings", settings, "--no-mcp", "--bin", "/tmp/checkout/cairn")
	cmd.Env = append(cmd.Env, "TMPDIR="+dir)
	if out, err := cmd.CombinedOutput(); exitStatus(err) != 1 || !strings.Contains(string(out), "add --force") {
		t.Fatalf("/tmp with TMPDIR elsewhere: %v\n%s", err, out)
	}
	out, err := cairnCmd(dir, "install", "claude-code", "--settings", settings, "--no-mcp", "--extractor", "heuristic", "--force").CombinedOutput()
	data, _ := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(data), cairnBin) || !strings.Contains(string(out), "Nothing else needs to run") {
		t.Fatalf("install --force: %v\n%s\n%s", err, out, data)
	}
}
