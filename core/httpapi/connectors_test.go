package httpapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// The connectors API: a folder inside connectors.roots becomes a
// connector and syncs on request; any other folder is refused with 403
// whatever the request says; a connector that fails shows in diagnostics.
func TestConnectorsAPI(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "oncall.md"), []byte("The on-call rota changes every Monday at 09:00."), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	e := apitest.NewEnv(t, func(c *config.Config) { c.Connectors.Roots = []string{root} })

	for _, p := range []string{"/etc", t.TempDir(), root + "/../../etc"} {
		e.Post(t, "/api/connectors", map[string]any{"provider": "filesystem", "root": p}).WantErr(t, 403, "root_not_allowed")
	}
	e.Post(t, "/api/connectors", map[string]any{"provider": "dropbox", "root": root}).WantInvalid(t, "provider", "filesystem")

	c := e.Post(t, "/api/connectors", map[string]any{"provider": "filesystem", "display_name": "Team notes", "config": map[string]any{"root": root}}).Want(t, 201)
	id := c.Str("id")
	if c.Str("status") != "idle" || c.Str("display_name") != "Team notes" {
		t.Fatalf("created: %s", c)
	}
	e.Post(t, "/api/connectors", map[string]any{"provider": "filesystem", "root": root}).WantErr(t, 409, "duplicate_content_hash")
	sync := e.Post(t, "/api/connectors/"+id+"/sync", map[string]any{}).Want(t, 200)
	if res := sync.JSON["result"].(map[string]any); res["added"] != float64(1) {
		t.Fatalf("sync: %s", sync)
	}
	list := e.Get(t, "/api/connectors").Want(t, 200)
	if list.Num("count") != 1 {
		t.Fatalf("list: %s", list)
	}
	got := e.Get(t, "/api/connectors/"+id).Want(t, 200)
	if got.Num("files") != 1 || got.Str("last_sync_at") == "" {
		t.Fatalf("get: %s", got)
	}
	docs := e.Get(t, "/api/documents").Want(t, 200)
	if !strings.Contains(docs.String(), `"connector_id":"`+id+`"`) {
		t.Fatalf("the file is a document of the connector: %s", docs)
	}

	// The folder goes away: the sync fails, the connector says why, and
	// diagnostics shows it.
	os.RemoveAll(root)
	e.Post(t, "/api/connectors/"+id+"/sync", map[string]any{}).Want(t, 200)
	got = e.Get(t, "/api/connectors/"+id).Want(t, 200)
	if got.Str("status") != "error" || got.Str("last_error") == "" {
		t.Fatalf("after the folder went away: %s", got)
	}
	diag := e.Get(t, "/api/diagnostics/connector").Want(t, 200)
	found := false
	for _, sig := range diag.JSON["signals"].([]any) {
		s := sig.(map[string]any)
		found = found || (s["name"] == "connectors_in_error" && s["triggered"] == true && strings.Contains(s["message"].(string), "Team notes"))
	}
	if !found {
		t.Fatalf("diagnostics: %v", diag.JSON["signals"])
	}
	e.Do(t, "DELETE", "/api/connectors/"+id+"?forget=true", nil, nil).Want(t, 200)
	e.Get(t, "/api/connectors/"+id).WantErr(t, 404, "not_found")
}
