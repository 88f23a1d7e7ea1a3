package claudecode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/claudecode"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

const userSettings = `{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "my-linter --check", "timeout": 4}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "/old/place/cairn hook session-start", "timeout": 9, "keep": "me"}]}],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
`

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
	Keep    string `json:"keep"`
}

func hooksOf(t *testing.T, top *jsonedit.Object) map[string][]struct{ Hooks []handler } {
	t.Helper()
	raw, _ := top.Get("hooks")
	var out map[string][]struct{ Hooks []handler }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("hooks: %v\n%s", err, raw)
	}
	return out
}

// AddHooks puts one handler in each event, moving an earlier install (of
// any binary) in place and keeping its other keys; a second run changes
// nothing; RemoveHooks takes out exactly what it added.
func TestAddAndRemoveHooks(t *testing.T) {
	top, err := jsonedit.Parse([]byte(userSettings))
	if err != nil {
		t.Fatal(err)
	}
	bin := "/opt/my tools/cairn"
	if err := claudecode.AddHooks(top, bin); err != nil {
		t.Fatal(err)
	}
	once, _ := top.MarshalKeeping("  ")
	hooks := hooksOf(t, top)
	for ev, timeout := range map[string]int{"SessionStart": 5, "UserPromptSubmit": 3, "PreCompact": 5, "PostCompact": 5, "SessionEnd": 2} {
		groups := hooks[ev]
		last := groups[len(groups)-1].Hooks[0]
		if last.Type != "command" || !strings.HasPrefix(last.Command, "'/opt/my tools/cairn' hook ") || last.Timeout != timeout {
			t.Errorf("%s: %+v", ev, last)
		}
	}
	if len(hooks["SessionStart"]) != 1 || hooks["SessionStart"][0].Hooks[0].Keep != "me" {
		t.Errorf("the earlier install was not updated in place: %+v", hooks["SessionStart"])
	}
	if len(hooks["UserPromptSubmit"]) != 2 || hooks["UserPromptSubmit"][0].Hooks[0].Command != "my-linter --check" || len(hooks["Stop"]) != 1 {
		t.Errorf("the user's hooks changed: %+v", hooks)
	}
	if err := claudecode.AddHooks(top, bin); err != nil {
		t.Fatal(err)
	}
	if twice, _ := top.MarshalKeeping("  "); jsonedit.Compact(twice) != jsonedit.Compact(once) {
		t.Fatalf("a second install changed\n%s\ninto\n%s", once, twice)
	}

	claudecode.RemoveHooks(top)
	hooks = hooksOf(t, top)
	if len(hooks) != 2 || len(hooks["UserPromptSubmit"]) != 1 || len(hooks["Stop"]) != 1 {
		t.Fatalf("after removal: %+v", hooks)
	}
	if got := strings.Join(top.Keys(), ","); got != "model,hooks" {
		t.Fatalf("keys %s", got)
	}
	// Nothing of cairn's: nothing changes, not even the formatting.
	before, _ := top.MarshalKeeping("  ")
	claudecode.RemoveHooks(top)
	if after, _ := top.MarshalKeeping("  "); !bytes.Equal(after, before) {
		t.Fatal("removing nothing changed the file")
	}
	empty := jsonedit.New()
	claudecode.RemoveHooks(empty)
	if len(empty.Keys()) != 0 {
		t.Fatal("removal added keys")
	}
}

// The MCP entry is added with the user's own keys of an earlier one kept,
// a foreign "cairn" entry is refused, and removal takes only cairn's.
func TestMCPServer(t *testing.T) {
	top, _ := jsonedit.Parse([]byte(`{"numStartups": 3, "mcpServers": {"github": {"type": "http", "url": "https://example.com/mcp"},
		"cairn": {"command": "/old/cairn", "args": ["mcp"], "env": {"CAIRN_HOME": "/data"}}}}`))
	if err := claudecode.AddMCPServer(top, "/usr/local/bin/cairn"); err != nil {
		t.Fatal(err)
	}
	raw, _ := top.Get("mcpServers")
	var servers map[string]map[string]any
	json.Unmarshal(raw, &servers)
	c := servers["cairn"]
	if c["command"] != "/usr/local/bin/cairn" || c["type"] != "stdio" || c["env"].(map[string]any)["CAIRN_HOME"] != "/data" || servers["github"] == nil {
		t.Fatalf("servers: %s", raw)
	}
	claudecode.RemoveMCPServer(top)
	raw, _ = top.Get("mcpServers")
	if jsonedit.Compact(raw) != `{"github":{"type":"http","url":"https://example.com/mcp"}}` {
		t.Fatalf("after removal: %s", raw)
	}
	foreign, _ := jsonedit.Parse([]byte(`{"mcpServers": {"cairn": {"command": "npx", "args": ["other-cairn"]}}}`))
	if err := claudecode.AddMCPServer(foreign, "/usr/local/bin/cairn"); err == nil {
		t.Fatal("a foreign cairn entry was overwritten")
	}
	claudecode.RemoveMCPServer(foreign)
	if raw, _ := foreign.Get("mcpServers"); !strings.Contains(string(raw), "other-cairn") {
		t.Fatal("a foreign cairn entry was removed")
	}
}

// Install and uninstall work on the files, with a backup of each changed
// one, and leave the user's file as it was.
func TestInstallUninstallFiles(t *testing.T) {
	dir := t.TempDir()
	settings, config := claudecode.SettingsFile(dir), claudecode.UserConfigFile(dir)
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(settings, []byte(userSettings), 0o600)
	if changed, backup, err := claudecode.InstallHooks(settings, "/usr/bin/cairn"); err != nil || !changed || backup == "" {
		t.Fatalf("install hooks: %v %q %v", changed, backup, err)
	}
	if changed, backup, err := claudecode.InstallMCP(config, "/usr/bin/cairn"); err != nil || !changed || backup != "" {
		t.Fatalf("install mcp in a new file: %v %q %v", changed, backup, err)
	}
	if changed, _, err := claudecode.InstallHooks(settings, "/usr/bin/cairn"); err != nil || changed {
		t.Fatalf("second install: %v %v", changed, err)
	}
	if changed, _, err := claudecode.UninstallMCP(config); err != nil || !changed {
		t.Fatalf("uninstall mcp: %v %v", changed, err)
	}
	if changed, _, err := claudecode.UninstallHooks(settings); err != nil || !changed {
		t.Fatalf("uninstall hooks: %v %v", changed, err)
	}
	got, _ := os.ReadFile(settings)
	want := strings.Replace(userSettings, `
    "SessionStart": [{"hooks": [{"type": "command", "command": "/old/place/cairn hook session-start", "timeout": 9, "keep": "me"}]}],`, "", 1)
	if jsonedit.Compact(got) != jsonedit.Compact([]byte(want)) {
		t.Fatalf("after uninstall:\n%s", got)
	}
}

// The shim's answer is Claude Code's hookSpecificOutput, cut to its cap.
func TestHarnessPrint(t *testing.T) {
	ev := claudecode.Harness.Events["user-prompt-submit"]
	var b bytes.Buffer
	if err := claudecode.Harness.Print(&b, ev, "<memories> & more"); err != nil {
		t.Fatal(err)
	}
	if b.String() != `{"hookSpecificOutput":{"additionalContext":"<memories> & more","hookEventName":"UserPromptSubmit"}}`+"\n" {
		t.Fatalf("output %s", b.String())
	}
	b.Reset()
	claudecode.Harness.Print(&b, ev, strings.Repeat("é", 20000))
	var out struct {
		H struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || len([]rune(out.H.Context)) != 10000 || !strings.HasSuffix(out.H.Context, "\n[truncated]") {
		t.Fatalf("cut: %d runes, %v", len([]rune(out.H.Context)), err)
	}
	for name, ev := range claudecode.Harness.Events {
		if ev.Path == "" || ev.Timeout <= 0 {
			t.Errorf("%s: %+v", name, ev)
		}
	}
}
