package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness"
)

// Install writes the plugin running the binary, the files that spare
// OpenCode its npm install, and the MCP server with cairn's environment;
// a second install changes nothing; uninstall removes all of it and
// gives opencode.json back; a plugin file that is not cairn's is refused.
func TestInstallUninstall(t *testing.T) {
	home := t.TempDir()
	o := harness.InstallOptions{Home: home, Bin: `/opt/it's/cairn`, Env: []string{"CAIRN_HOME=/data/c"}}
	user := "{\n  \"model\": \"x/y\",\n  \"mcp\": {}\n}\n"
	os.MkdirAll(ConfigDir(o), 0o700)
	os.WriteFile(ConfigFile(o), []byte(user), 0o600)
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	plugin, _ := os.ReadFile(PluginFile(o))
	if !strings.HasPrefix(string(plugin), pluginMark) || !strings.Contains(string(plugin), `const CAIRN = "/opt/it's/cairn"`) {
		t.Fatalf("plugin:\n%s", plugin)
	}
	cfg, _ := os.ReadFile(ConfigFile(o))
	if !strings.Contains(string(cfg), `"command": [`) || !strings.Contains(string(cfg), `"CAIRN_HOME": "/data/c"`) {
		t.Fatalf("opencode.json:\n%s", cfg)
	}
	for _, name := range []string{"package.json", "package-lock.json", "node_modules"} {
		if _, err := os.Stat(filepath.Join(ConfigDir(o), name)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range c {
		if ch.Changed {
			t.Errorf("second install changed %s", ch.File)
		}
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(ConfigFile(o)); string(got) != "{\n  \"model\": \"x/y\"\n}\n" {
		t.Fatalf("opencode.json after uninstall:\n%s", got)
	}
	entries, _ := os.ReadDir(ConfigDir(o))
	var names []string
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".cairn-backup-") {
			names = append(names, e.Name())
		}
	}
	if strings.Join(names, ",") != "opencode.json" {
		t.Fatalf("left in the config folder: %v", names)
	}

	os.MkdirAll(filepath.Dir(PluginFile(o)), 0o700)
	os.WriteFile(PluginFile(o), []byte("export const Mine = async () => ({})\n"), 0o600)
	if _, err := Install(o); err == nil {
		t.Fatal("a plugin that is not cairn's was overwritten")
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(PluginFile(o)); !strings.Contains(string(b), "Mine") {
		t.Fatal("a plugin that is not cairn's was removed")
	}
}

// A config folder with its own package.json keeps it: OpenCode's
// install there is the user's.
func TestDependencyFilesOnlyWhenAbsent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"dependencies":{"left-pad":"1"}}`), 0o644)
	if wrote, err := SkipDependencyInstall(dir); err != nil || wrote {
		t.Fatalf("%v %v", wrote, err)
	}
	if removed, _ := removeDependencyFiles(dir); removed {
		t.Fatal("removed the user's package.json")
	}
}
