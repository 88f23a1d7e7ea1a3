//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A folder listed in connectors.roots is kept in step by the running
// binary: its note is recallable without any request naming the folder.
func TestConnectorFolderThroughTheBinary(t *testing.T) {
	home := t.TempDir()
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "oncall.md"), []byte("The on-call rota hands over every Monday at 09:00 in #ops."), 0o644)
	cfg := fmt.Sprintf("[connectors]\nroots = [%q]\npoll_interval = \"1s\"\n\n[documents]\nworker_interval = \"100ms\"\n", notes)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/connectors")
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Connectors []struct {
				Files  int    `json:"files"`
				Status string `json:"status"`
			} `json:"connectors"`
		}
		json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if len(list.Connectors) == 1 && list.Connectors[0].Files == 1 {
			out, err := cairnCmd(home, "recall", "when does the on-call rota hand over").CombinedOutput()
			if err == nil && strings.Contains(string(out), "Monday at 09:00") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the folder's note never became a memory: %+v\n%s", list, srv.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
