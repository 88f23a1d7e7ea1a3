package themes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinsParse(t *testing.T) {
	names := BuiltinNames()
	if strings.Join(names, ",") != "dark,gruvbox,light,nord" {
		t.Fatalf("built-ins = %v", names)
	}
	for _, n := range names {
		if _, err := Builtin(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestParseErrorsNameFileAndKey(t *testing.T) {
	dark, _ := builtins.ReadFile("dark.toml")
	tests := []struct {
		name, edit, want string
	}{
		{"bad colour", strings.Replace(string(dark), `accent = "#7aa2f7"`, `accent = "blue"`, 1), `my.toml: colors.accent: "blue" is not a colour`},
		{"unknown role", string(dark) + "\nsparkle = \"#ffffff\"\n", "my.toml: unknown key colors.sparkle"},
		{"missing role", strings.Replace(string(dark), `border = "#4a4f63"`, "", 1), "my.toml: colors.border is missing"},
		{"bad toml", "name = ", "theme my.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("my.toml", []byte(tt.edit))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadPrefersUserFolder(t *testing.T) {
	dir := t.TempDir()
	light, _ := builtins.ReadFile("light.toml")
	custom := strings.Replace(string(light), `name = "light"`, `name = "mine"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "mine.toml"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	th, err := Load("mine", dir)
	if err != nil || th.Name != "mine" {
		t.Fatalf("Load(mine) = %v, %v", th, err)
	}
	if _, err := Load("nord", dir); err != nil {
		t.Fatalf("built-in through Load: %v", err)
	}
	if _, err := Load("nope", dir); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("unknown theme error = %v", err)
	}
	if _, err := Load("../etc/passwd", dir); err == nil {
		t.Fatal("path-like theme name accepted")
	}
}
