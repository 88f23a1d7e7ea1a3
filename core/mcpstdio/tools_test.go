package mcpstdio_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	cairn "github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/mcpstdio"
	"github.com/cairnmem/cairn/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var updateTools = flag.Bool("update", false, "rewrite tools.json from the store's MCP server")

// What `cairn mcp` lists at once (Tools, from tools.json) is what the
// store's MCP server lists, field for field.
func TestToolsFile(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "mcp.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := httpapi.NewMCPServer(cairn.New(db, config.DefaultConfig(), cairn.Options{}), "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *updateTools {
		if err := os.WriteFile("tools.json", append(listed, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	ours, err := json.Marshal(mcpstdio.Tools())
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(listed, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ours, &got); err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 6 || !reflect.DeepEqual(got, want) {
		t.Errorf("tools.json (%d bytes) differs from the %d tools the server lists (%d bytes): run go test -run TestToolsFile ./core/mcpstdio -update",
			len(ours), len(res.Tools), len(listed))
	}
}
