package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

const userSettings = `{
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "hooks": {
        "BeforeAgent": [{"hooks": [{"type": "command", "name": "lint", "command": "my-linter", "timeout": 4000}]}]
    },
    "mcpServers": {"github": {"httpUrl": "https://example.com/mcp"}}
}
`

// Install adds a named handler per event (timeouts in milliseconds) and
// the trusted MCP server; a second install changes nothing; uninstall
// gives the user's settings back.
func TestInstallUninstall(t *testing.T) {
	o := harness.InstallOptions{Home: t.TempDir(), Bin: "/usr/local/bin/cairn"}
	os.MkdirAll(filepath.Dir(SettingsFile(o)), 0o700)
	os.WriteFile(SettingsFile(o), []byte(userSettings), 0o600)
	if c, err := Install(o); err != nil || !c[0].Changed || c[0].Backup == "" {
		t.Fatalf("install: %+v %v", c, err)
	}
	data, _ := os.ReadFile(SettingsFile(o))
	var s struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
		MCP map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		groups := s.Hooks[h.event]
		got := groups[len(groups)-1].Hooks[0]
		if got["command"] != "/usr/local/bin/cairn hook --harness gemini "+h.arg || got["timeout"] != float64(h.timeout) || got["name"] != "cairn-"+h.arg {
			t.Errorf("%s: %v", h.event, got)
		}
	}
	if len(s.Hooks["BeforeAgent"]) != 2 || s.MCP["cairn"]["trust"] != true || s.MCP["github"] == nil {
		t.Fatalf("settings:\n%s", data)
	}
	if c, _ := Install(o); c[0].Changed {
		t.Fatal("a second install changed the file")
	}
	if c, err := Uninstall(o); err != nil || !c[0].Changed {
		t.Fatalf("uninstall: %+v %v", c, err)
	}
	if got, _ := os.ReadFile(SettingsFile(o)); jsonedit.Compact(got) != jsonedit.Compact([]byte(userSettings)) {
		t.Fatalf("after uninstall:\n%s", got)
	}
}

func TestStripHookContext(t *testing.T) {
	for in, want := range map[string]string{
		"<hook_context>a\nb</hook_context>\n\nWhere?":                   "Where?",
		"Where? <hook_context>x</hook_context>":                         "Where?",
		"no context":                                                    "no context",
		"<hook_context>unclosed":                                        "<hook_context>unclosed",
		"<hook_context>1</hook_context><hook_context>2</hook_context>q": "q",
	} {
		if got := StripHookContext(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if strings.Contains(StripHookContext("<hook_context>hook</hook_context>x"), "hook") {
		t.Error("tag words left")
	}
}
