package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigProjects reads [projects.NAME] tables, cleans their roots,
// prints them back, and refuses a relative root, a name used twice and a
// path given as an alias, naming the key.
func TestConfigProjects(t *testing.T) {
	load := func(body string) (*Config, error) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := LoadConfig(LoadOptions{Home: dir, Getenv: func(string) string { return "" }})
		return cfg, err
	}
	cfg, err := load("[projects.atlas]\nroot = \"/home/dev/atlas/\"\naliases = [\" atlas-api \", \"api\"]\n\n[projects.notes]\nroot = \"/srv/notes\"\n")
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Projects["atlas"]
	if p.Root != "/home/dev/atlas" || strings.Join(p.Aliases, ",") != "atlas-api,api" || cfg.Projects["notes"].Root != "/srv/notes" {
		t.Fatalf("projects = %+v", cfg.Projects)
	}
	if out := cfg.TOML(); !strings.Contains(out, "[projects.atlas]") || !strings.Contains(out, `root = "/home/dev/atlas"`) {
		t.Errorf("TOML() does not print the projects:\n%s", out)
	}
	for _, tc := range []struct{ body, key, reason string }{
		{"[projects.atlas]\nroot = \"atlas\"\n", "projects.atlas.root", "absolute"},
		{"[projects.atlas]\n", "projects.atlas.root", "absolute"},
		{"[projects.atlas]\nroot = \"/a\"\naliases = [\"x\"]\n[projects.x]\nroot = \"/b\"\n", "projects.x", "already used by projects.atlas"},
		{"[projects.atlas]\nroot = \"/a\"\naliases = [\"/home/dev/atlas\"]\n", "projects.atlas.aliases", "short name"},
		{"[projects.atlas]\nroot = \"/a\"\naliases = [\"\"]\n", "projects.atlas.aliases", "empty"},
		{"[projects.atlas]\nroot = \"/a\"\nalias = [\"x\"]\n", "projects.atlas.alias", "unknown key"},
	} {
		_, err := load(tc.body)
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("config %q: error %v, want one naming %s (%s)", tc.body, err, tc.key, tc.reason)
		}
	}
}
