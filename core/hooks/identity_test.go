package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/project"
)

// TestHookProjectIdentity is the finding: a memory saved under the
// short name (`--project atlas`) and one saved from the repository are
// the same project, and a session whose working directory is anywhere in
// the repository gets them. The server maps what the request says by
// strings only.
func TestHookProjectIdentity(t *testing.T) {
	const root = "/home/dev/atlas"
	e := apitest.NewEnv(t)
	e.Mem(t, "atlas deploys with make ship", map[string]any{"project": root})
	// A short name, as a user types it: the one known root named atlas.
	r := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "project": "atlas",
		"content": "Staging postgres runs on port 5433", "importance": 1}).Want(t, 200)
	var got string
	if err := e.RO.QueryRow(`SELECT project FROM memories WHERE id = ?`, r.Str("id")).Scan(&got); err != nil || got != root {
		t.Fatalf("remember --project atlas stored project %q (%v), want %q", got, err, root)
	}
	e.Mem(t, "zephyr has nothing to do with atlas port 5433", map[string]any{"project": "/home/dev/zephyr"})

	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"an older shim's cwd in a subfolder", map[string]any{"cwd": root + "/src/api"}},
		{"the short name", map[string]any{"project": "atlas"}},
		{"the root, resolved by the shim", map[string]any{"project": root, "project_resolved": true}},
	} {
		body := map[string]any{"harness": "claude-code", "session_id": "s-" + strings.ReplaceAll(tc.name, " ", "-")}
		for k, v := range tc.body {
			body[k] = v
		}
		r := e.Post(t, "/api/hooks/session-start", body).Want(t, 200)
		inject := r.Str("inject")
		if r.Str("project") != root || !strings.Contains(inject, "project="+root) || !strings.Contains(inject, "port 5433") ||
			!strings.Contains(inject, "make ship") || strings.Contains(inject, "zephyr") {
			t.Errorf("%s: session start for project %q:\n%s", tc.name, r.Str("project"), inject)
		}
		body["prompt"] = "which port does staging postgres run on"
		body["session_id"] = body["session_id"].(string) + "-prompt" // session start already injected it
		p := e.Post(t, "/api/hooks/user-prompt-submit", body).Want(t, 200)
		if !strings.Contains(p.Str("inject"), "5433") {
			t.Errorf("%s: the prompt did not get the atlas memory: %s", tc.name, p)
		}
	}
	// A root the shim resolved is taken as it is: a repository nested in a
	// known folder is not folded into it by prefix.
	nested := root + "/vendor/lib"
	r = e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": nested + "/", "project_resolved": true}).Want(t, 200)
	if r.Str("project") != nested {
		t.Errorf("a resolved root became %q, want %q", r.Str("project"), nested)
	}
	// Two known roots share a name: the name is refused, naming both.
	e.Mem(t, "api one", map[string]any{"project": "/work/a/api"})
	e.Mem(t, "api two", map[string]any{"project": "/work/b/api"})
	e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "project": "api", "content": "which api?"}).
		WantInvalid(t, "project", "/work/a/api, /work/b/api")
	e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": "atl\x01as"}).
		WantInvalid(t, "project", "control characters")
}

// TestHookProjectAlias: a config alias and the table's name resolve to its
// root, whatever the folder is called.
func TestHookProjectAlias(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) {
		c.Projects = map[string]config.ProjectConfig{"atlas": {Root: "/srv/atlas-monorepo", Aliases: []string{"atlas-api"}}}
	})
	for _, name := range []string{"atlas", "atlas-api", "/srv/atlas-monorepo/services/api"} {
		r := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "project": name, "content": "alias fact " + name}).Want(t, 200)
		var got string
		if err := e.RO.QueryRow(`SELECT project FROM memories WHERE id = ?`, r.Str("id")).Scan(&got); err != nil || got != "/srv/atlas-monorepo" {
			t.Errorf("project %q stored as %q (%v)", name, got, err)
		}
	}
}

// TestMigrateProjects: a store with both forms (absolute subfolders of a
// repository and short names) ends with one identity per project; changed
// memories get history; a duplicate the merge creates is soft-deleted, not
// refused; the folder step runs once.
func TestMigrateProjects(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "atlas")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "src", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := apitest.NewEnv(t)
	ctx := context.Background()
	// Rows as older cairns wrote them: a session's cwd in a subfolder, the
	// root itself, a short name, an unclean path, and another project.
	sub := e.Mem(t, "atlas fact from a subfolder session", map[string]any{"project": filepath.Join(root, "src", "api")})
	atRoot := e.Mem(t, "atlas fact from the root", map[string]any{"project": root})
	// (The API resolves a short name now; older cairns stored it as given.)
	byName := e.Mem(t, "Staging postgres runs on port 5433", map[string]any{"project": "old-name-1"})
	dupName := e.Mem(t, "atlas fact from the root", map[string]any{"project": "old-name-2"})
	e.Exec(t, `UPDATE memories SET project = 'atlas' WHERE project IN ('old-name-1', 'old-name-2')`)
	other := e.Mem(t, "an unrelated name", map[string]any{"project": "notes"})
	e.Exec(t, `UPDATE memories SET project = ? WHERE project = ?`, root+"/src/", filepath.Join(root, "src", "api"))
	e.Exec(t, `INSERT INTO sessions (key, harness, project, started_at) VALUES ('s1', 'claude-code', ?, '2025-01-01T00:00:00Z')`, root+"/src/api")

	n, err := e.App.Hooks.MigrateProjects(ctx, project.FindRoot)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("remapped %d projects, want 3 (the subfolder, the session's folder, the name)", n)
	}
	for id, want := range map[string]string{sub: root, atRoot: root, byName: root, dupName: root, other: "notes"} {
		var got string
		if err := e.RO.QueryRow(`SELECT project FROM memories WHERE id = ?`, id).Scan(&got); err != nil || got != want {
			t.Errorf("memory %s: project %q (%v), want %q", id, got, err, want)
		}
	}
	var deleted int
	e.RO.QueryRow(`SELECT is_deleted FROM memories WHERE id = ?`, dupName).Scan(&deleted)
	if deleted != 1 {
		t.Errorf("the duplicate the merge made is still live")
	}
	var sessProject string
	e.RO.QueryRow(`SELECT project FROM sessions WHERE key = 's1'`).Scan(&sessProject)
	if sessProject != root {
		t.Errorf("session project %q, want %q", sessProject, root)
	}
	for _, id := range []string{sub, byName, dupName} {
		var events int
		e.RO.QueryRow(`SELECT count(*) FROM memory_history WHERE memory_id = ? AND reason LIKE 'project identity:%'`, id).Scan(&events)
		if events != 1 {
			t.Errorf("memory %s has %d project history events, want 1", id, events)
		}
	}
	known := e.Count(t, `SELECT count(*) FROM projects WHERE id IN ('atlas', ?)`, root+"/src/")
	if known != 0 {
		t.Errorf("the old identities are still known projects")
	}
	// The folder step is recorded: a folder that appears later is not
	// stat-ed again; names still join their root at every open.
	sub2 := e.Mem(t, "written by an old shim after the migration", map[string]any{"project": filepath.Join(root, "src")})
	late := e.Mem(t, "a name written later", map[string]any{"project": "atlas"})
	if _, err := e.App.Hooks.MigrateProjects(ctx, func(string) string { t.Fatal("the folder step ran twice"); return "" }); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{sub2: filepath.Join(root, "src"), late: root} {
		var got string
		e.RO.QueryRow(`SELECT project FROM memories WHERE id = ?`, id).Scan(&got)
		if got != want {
			t.Errorf("memory %s: project %q, want %q", id, got, want)
		}
	}
}

// The API's own routes resolve a short name as hooks do: remember, recall,
// list and export.
func TestAPIProjectShortNames(t *testing.T) {
	const root = "/home/dev/atlas"
	e := apitest.NewEnv(t)
	e.Mem(t, "atlas deploys with make ship", map[string]any{"project": root})
	e.Mem(t, "webshop deploys with helm", map[string]any{"project": "/home/dev/webshop"})
	r := e.Post(t, "/api/memory/remember", map[string]any{"content": "atlas staging runs postgres 16", "project": "atlas"}).Want(t, 200)
	if r.Str("project") != root {
		t.Fatalf("remember with a short name stored %q", r.Str("project"))
	}
	rec := e.Post(t, "/api/memory/recall", map[string]any{"query": "deploys", "project": "atlas"}).Want(t, 200)
	if s := rec.String(); !strings.Contains(s, "make ship") || strings.Contains(s, "helm") {
		t.Fatalf("recall by short name: %s", s)
	}
	if l := e.Get(t, "/api/memories?project=atlas").Want(t, 200); l.Num("count") != 2 {
		t.Fatalf("list by short name: %s", l)
	}
	e.Post(t, "/api/memory/remember", map[string]any{"content": "x", "project": "/home/other/atlas"}).Want(t, 200)
	e.Post(t, "/api/memory/recall", map[string]any{"query": "deploys", "project": "atlas"}).WantInvalid(t, "project", "atlas")
}

// The first finding, on a fresh store: a memory saved under a
// short name before its repository was ever seen is injected into the
// first session in that repository, and joins the repository's project.
func TestShortNameBeforeItsRepository(t *testing.T) {
	const root = "/home/dev/atlas"
	e := apitest.NewEnv(t)
	id := e.Mem(t, "Staging postgres runs on port 5433", map[string]any{"project": "atlas", "pinned": true})
	r := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_id": "s1",
		"project": root, "project_resolved": true}).Want(t, 200)
	if !strings.Contains(r.Str("inject"), "5433") {
		t.Fatalf("the atlas memory is not injected into the first atlas session: %s", r.Str("inject"))
	}
	var got string
	if err := e.RO.QueryRow(`SELECT project FROM memories WHERE id = ?`, id).Scan(&got); err != nil || got != root {
		t.Fatalf("project after the session: %q %v", got, err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND reason LIKE 'project identity: atlas is %'`, id); n != 1 {
		t.Fatalf("history of the move: %d", n)
	}
	// A name another root also answers to is left alone.
	e.Mem(t, "webshop uses stripe", map[string]any{"project": "webshop"})
	e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "session_id": "s2",
		"project": "/home/dev/other", "project_resolved": true}).Want(t, 200)
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE project = 'webshop'`); n != 1 {
		t.Fatal("a name of another repository moved")
	}
}
