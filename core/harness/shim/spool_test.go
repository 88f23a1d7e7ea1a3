package shim_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/shim"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// TestIngestSpoolOnce: every spooled write is stored once, a replay of
// one stored already (a crash between storing and removing) is not
// stored again, and an entry the API would refuse is moved aside.
func TestIngestSpoolOnce(t *testing.T) {
	e := apitest.NewEnv(t)
	dir := t.TempDir()
	body, _ := json.Marshal(map[string]any{"harness": "claude-code", "content": "spooled fact about the release train", "cwd": "/work/alpha", "idempotency_key": "spool-1"})
	if _, err := shim.WriteSpool(dir, shim.SpoolEntry{Kind: "remember", Body: body}); err != nil {
		t.Fatal(err)
	}
	end, _ := json.Marshal(map[string]any{"harness": "claude-code", "session_id": "sp1", "transcript": "User: hello there"})
	shim.WriteSpool(dir, shim.SpoolEntry{Kind: "session-end", Body: end})
	bad, _ := json.Marshal(map[string]any{"content": "no harness"})
	shim.WriteSpool(dir, shim.SpoolEntry{Kind: "remember", Body: bad})
	// A crash after storing but before removing: the same entry twice.
	shim.WriteSpool(dir, shim.SpoolEntry{Kind: "remember", Body: body})

	n, err := shim.IngestSpool(context.Background(), e.App.Hooks, dir)
	if n != 3 || err == nil {
		t.Fatalf("ingested %d, err %v", n, err)
	}
	if n, err := shim.IngestSpool(context.Background(), e.App.Hooks, dir); n != 0 || err != nil {
		t.Fatalf("second ingest: %d %v", n, err)
	}
	l := e.Get(t, "/api/memories?limit=50").Want(t, 200)
	count := 0
	for _, m := range l.List(t, "memories") {
		if strings.Contains(m["content"].(string), "spooled fact") {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("spooled memory stored %d times", count)
	}
	if e.Get(t, "/api/sessions/sp1").Str("transcript") != "User: hello there" {
		t.Fatal("spooled transcript missing")
	}
	if bads, _ := filepath.Glob(filepath.Join(shim.SpoolDir(dir), "*.bad")); len(bads) != 1 {
		t.Fatalf("bad entries: %v", bads)
	}
}
