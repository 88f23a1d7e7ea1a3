package httpapi_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// POST /api/memories/import/signet is `cairn import --from signet` while a
// cairn holds the store: the file is opened on this machine, so a caller
// from elsewhere may not name one, and the path must be absolute.
func TestImportSignetRoute(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memories.db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE memories (id TEXT PRIMARY KEY, type TEXT NOT NULL DEFAULT 'fact', content TEXT NOT NULL,
			importance REAL DEFAULT 0.5, tags TEXT, who TEXT, project TEXT, pinned INTEGER DEFAULT 0,
			is_deleted INTEGER DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
		`INSERT INTO memories VALUES ('55555555-0000-4000-8000-000000000009', 'rule', 'the deploy freeze starts on fridays at noon',
			0.9, 'ops', 'alice', 'atlas', 0, 0, '2026-10-01T08:00:00.000Z', '2026-10-01T08:00:00.000Z')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	remote := apitest.NewStoreEnv(t) // a recorder's caller is not loopback
	if r := remote.Post(t, "/api/memories/import/signet", map[string]any{"path": path}); r.Status != 403 {
		t.Fatalf("a caller from elsewhere: %s", r)
	}
	e := apitest.NewEnv(t)
	if r := e.Post(t, "/api/memories/import/signet", map[string]any{"path": "memories.db"}); r.Status != 400 {
		t.Fatalf("a relative path: %s", r)
	}
	if r := e.Post(t, "/api/memories/import/signet", map[string]any{"path": path + ".none"}); r.Status != 400 {
		t.Fatalf("a missing file: %s", r)
	}
	r := e.Post(t, "/api/memories/import/signet", map[string]any{"path": path, "dry_run": true})
	if r.Status != 200 || r.JSON["dry_run"] != true {
		t.Fatalf("dry run: %s", r)
	}
	if g := e.Get(t, "/api/memory/55555555-0000-4000-8000-000000000009"); g.Status != 404 {
		t.Fatalf("a dry run wrote: %s", g)
	}
	r = e.Do(t, "POST", "/api/memories/import/signet", map[string]any{"path": path}, apitest.Hdr("X-Cairn-Actor", "signet-import"))
	if mem, _ := r.JSON["memories"].(map[string]any); r.Status != 200 || mem["imported"] != float64(1) {
		t.Fatalf("import: %s", r)
	}
	if g := e.Get(t, "/api/memory/55555555-0000-4000-8000-000000000009"); g.Status != 200 || g.JSON["content"] != "the deploy freeze starts on fridays at noon" {
		t.Fatalf("imported memory: %s", g)
	}
}
