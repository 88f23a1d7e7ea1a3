package httpapi_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPProjectIdentity: memory_store without a project files the memory
// under the server's current project; a short name in store, search and
// list resolves to the same identity as the hooks use.
func TestMCPProjectIdentity(t *testing.T) {
	const root = "/home/dev/atlas"
	ap := mcpService(t)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := httpapi.NewMCPServerFor(ap, "test", httpapi.MCPOptions{DefaultProject: root}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	_, out := mcpOK(t, cs, "memory_store", map[string]any{"content": "staging postgres runs on port 5433"})
	m, err := ap.Service.Get(ctx, out["id"].(string), false)
	if err != nil || m.Project != root {
		t.Fatalf("memory_store without a project stored project %q (%v), want %q", m.Project, err, root)
	}
	_, out = mcpOK(t, cs, "memory_store", map[string]any{"content": "atlas deploys with make ship", "project": "atlas"})
	if m, _ := ap.Service.Get(ctx, out["id"].(string), false); m.Project != root {
		t.Fatalf("memory_store with project atlas stored %q, want %q", m.Project, root)
	}
	_, out = mcpOK(t, cs, "memory_search", map[string]any{"query": "postgres port", "project": "atlas"})
	if out["count"].(float64) != 1 {
		t.Fatalf("memory_search project=atlas: %v", out)
	}
	_, out = mcpOK(t, cs, "memory_list", map[string]any{"project": "atlas"})
	if out["count"].(float64) != 2 {
		t.Fatalf("memory_list project=atlas: %v", out)
	}
	mcpOK(t, cs, "memory_store", map[string]any{"content": "one api", "project": "/work/a/api"})
	mcpOK(t, cs, "memory_store", map[string]any{"content": "another api", "project": "/work/b/api"})
	mcpFail(t, cs, "memory_search", map[string]any{"query": "api", "project": "api"}, "ambiguous", "/work/a/api", "/work/b/api")
}
