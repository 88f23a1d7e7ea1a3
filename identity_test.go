package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core/project"
	"github.com/cairnmem/cairn/storage"
)

// TestLocalProject is the CLI's project rule: none given is the current
// repository; a folder is its repository; a name or alias resolves
// against the config and the projects the store knows (read without the
// lock), an ambiguous one is an error naming the candidates.
func TestLocalProject(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	repo := filepath.Join(home, "src", "atlas")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[projects.mono]\nroot = \"/srv/mono\"\naliases = [\"m\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := loadApp(&commonFlags{home: home})
	if err != nil {
		t.Fatal(err)
	}
	// No store yet: names resolve by the config only.
	if got, err := a.localProject(ctx, "zeta"); err != nil || got != "zeta" {
		t.Fatalf("a name with no store: %q, %v", got, err)
	}
	db, err := storage.Open(ctx, storage.Options{Path: a.paths.Database, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/x/zeta", "/a/api", "/b/api"} {
		if err := db.WriteTx(ctx, func(tx storage.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO sessions (key, harness, project, started_at) VALUES (?, 'h', ?, 't')`, p, p)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	wd, _ := os.Getwd()
	for _, tc := range []struct{ given, want string }{
		{"", project.ForDir(nil, wd)},
		{filepath.Join(repo, "cmd"), repo},
		{"m", "/srv/mono"},
		{"mono", "/srv/mono"},
		{"zeta", "/x/zeta"},
		{"unknown", "unknown"},
	} {
		if got, err := a.localProject(ctx, tc.given); err != nil || got != tc.want {
			t.Errorf("localProject(%q) = %q, %v; want %q", tc.given, got, err, tc.want)
		}
	}
	var amb *project.AmbiguousError
	if _, err := a.localProject(ctx, "api"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("an ambiguous name: %v", err)
	}
	if _, err := a.localProject(ctx, "bad\x00name"); err == nil {
		t.Errorf("a name with a control character was accepted")
	}
}
