package cursor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core/harness"
)

// Install writes Cursor's documented flat shape (version 1, handlers
// straight under each event) and the MCP server; a second install
// changes nothing; uninstall gives the user's files back.
func TestInstallUninstall(t *testing.T) {
	o := harness.InstallOptions{Home: t.TempDir(), Bin: "/usr/local/bin/cairn"}
	user := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{\"command\": \"./format.sh\"}]\n  }\n}\n"
	os.MkdirAll(filepath.Dir(HooksFile(o)), 0o700)
	os.WriteFile(HooksFile(o), []byte(user), 0o600)
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(HooksFile(o))
	var f struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, h := range hooks {
		got := f.Hooks[h.event]
		if len(got) != 1 || got[0]["command"] != "/usr/local/bin/cairn hook --harness cursor "+h.arg || got[0]["timeout"] != float64(h.timeout) || got[0]["type"] != nil {
			t.Errorf("%s: %v", h.event, got)
		}
	}
	if len(f.Hooks["afterFileEdit"]) != 1 {
		t.Fatalf("the user's hook: %s", data)
	}
	mcp, _ := os.ReadFile(MCPFile(o))
	var m struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if json.Unmarshal(mcp, &m); m.Servers["cairn"].Command != o.Bin || m.Servers["cairn"].Args[0] != "mcp" {
		t.Fatalf("mcp.json: %s", mcp)
	}
	for _, c := range must(Install(o)) {
		if c.Changed {
			t.Errorf("second install changed %s", c.File)
		}
	}
	must(Uninstall(o))
	if got, _ := os.ReadFile(HooksFile(o)); string(got) != user {
		t.Fatalf("after uninstall:\n%s", got)
	}
	if got, _ := os.ReadFile(MCPFile(o)); string(got) != "{}\n" {
		t.Fatalf("mcp.json after uninstall: %q", got)
	}
	// A hooks.json cairn made is left with nothing in it.
	o2 := harness.InstallOptions{Home: t.TempDir(), Bin: o.Bin, NoMCP: true}
	must(Install(o2))
	must(Uninstall(o2))
	if got, _ := os.ReadFile(HooksFile(o2)); string(got) != "{}\n" {
		t.Fatalf("a hooks.json cairn made, after uninstall: %q", got)
	}
}

func must(c []harness.Change, err error) []harness.Change {
	if err != nil {
		panic(err)
	}
	return c
}
