//go:build integration

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/bench"
)

// The measured check as a user runs it: `cairn serve` on a
// throwaway home with its default configuration (the built-in embedder,
// no model), the developer's month stated over HTTP as plain sentences
// (no keys), then each changed fact asked for in its project: the current
// value first and no superseded value in the top 3. Then `cairn export`,
// `cairn import` into a fresh home and the same check there: the round
// trip keeps what supersession did.
func TestDevelopersMonthThroughTheBinary(t *testing.T) {
	home := t.TempDir()
	srv := startServer(t, home, freeAddr(t))
	base := "http://" + srv.addr
	for _, content := range bench.MonthStatements() {
		if code, out := postJSON(t, base+"/api/memory/remember", map[string]any{"content": content, "project": bench.MonthProject}); code != 200 {
			t.Fatalf("remember %q: %d %v", content, code, out)
		}
	}
	checkMonth(t, "stated", base)
	file := filepath.Join(t.TempDir(), "month.jsonl")
	if out, err := cairnCmd(home, "export", "-o", file).CombinedOutput(); err != nil {
		t.Fatalf("export: %v %s", err, out)
	}
	srv.stop(t)
	live, superseded := countExport(t, file)
	if want := monthReplaced(); superseded != want {
		t.Fatalf("the export holds %d superseded memories, want one per replaced value (%d)", superseded, want)
	}

	fresh := t.TempDir()
	if out, err := cairnCmd(fresh, "import", file).CombinedOutput(); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	srv = startServer(t, fresh, freeAddr(t))
	defer srv.stop(t)
	base = "http://" + srv.addr
	checkMonth(t, "imported", base)
	again := filepath.Join(t.TempDir(), "again.jsonl")
	if out, err := cairnCmd(fresh, "export", "-o", again).CombinedOutput(); err != nil {
		t.Fatalf("export again: %v %s", err, out)
	}
	if l, s := countExport(t, again); l != live || s != superseded {
		t.Fatalf("after the round trip: %d live and %d superseded, want %d and %d", l, s, live, superseded)
	}
	// Every superseded memory can be restored in the imported store.
	code, out := postJSON(t, base+"/api/memory/recall", map[string]any{"query": bench.MonthFacts[0].Query, "project": bench.MonthProject, "limit": 1})
	if code != 200 {
		t.Fatalf("recall: %d %v", code, out)
	}
	cur := out["results"].([]any)[0].(map[string]any)["id"].(string)
	resp, err := http.Get(base + "/api/memory/" + cur)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	prev, _ := got["evolution"].(map[string]any)["supersedes"].([]any)
	if len(prev) == 0 {
		t.Fatalf("the imported current value lists nothing it superseded: %v", got)
	}
	if code, out := postJSON(t, base+"/api/memory/"+prev[0].(string)+"/recover", map[string]any{"reason": "restore"}); code != 200 {
		t.Fatalf("restore a superseded memory after the import: %d %v", code, out)
	}
}

// monthReplaced is how many values the month replaces.
func monthReplaced() int {
	n := 0
	for _, f := range bench.MonthFacts {
		n += len(f.Values) - 1
	}
	return n
}

// checkMonth asks for each of the month's facts over HTTP, once every
// live memory is embedded (recall is hybrid, as a user gets it), and
// requires its current value first and no superseded value in the top 3.
func checkMonth(t *testing.T, stage, base string) {
	t.Helper()
	waitEmbedded(t, base)
	first, stale := 0, 0
	for _, f := range bench.MonthFacts {
		code, out := postJSON(t, base+"/api/memory/recall", map[string]any{"query": f.Query, "project": bench.MonthProject, "limit": 10})
		if code != 200 {
			t.Fatalf("%s: recall %q: %d %v", stage, f.Query, code, out)
		}
		var contents []string
		for _, x := range out["results"].([]any) {
			contents = append(contents, x.(map[string]any)["content"].(string))
		}
		cur, old := f.Ranks(contents)
		if cur == 1 {
			first++
		}
		if old > 0 && old <= 3 {
			stale++
		}
		if cur != 1 || (old > 0 && old <= 3) {
			t.Errorf("%s: %s: current value at rank %d, a superseded one at rank %d:\n%s", stage, f.Key, cur, old, strings.Join(contents, "\n"))
		}
	}
	t.Logf("%s: current value first for %d of %d facts, a superseded value in the top 3 for %d", stage, first, len(bench.MonthFacts), stale)
}

// waitEmbedded waits until the server's vector index holds every live
// memory.
func waitEmbedded(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var st struct {
			Indexed  int            `json:"indexed"`
			Coverage map[string]any `json:"coverage"`
		}
		resp, err := http.Get(base + "/api/embeddings/status")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		total, _ := st.Coverage["total"].(float64)
		if total > 0 && float64(st.Indexed) >= total {
			t.Logf("embedded: %d of %v", st.Indexed, total)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("embeddings did not catch up: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// countExport counts an export's live and superseded memories.
func countExport(t *testing.T, file string) (live, superseded int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var m struct {
			IsDeleted bool `json:"is_deleted"`
			Evolution struct {
				SupersededBy string `json:"superseded_by"`
			} `json:"evolution"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case !m.IsDeleted:
			live++
		case m.Evolution.SupersededBy != "":
			superseded++
		}
	}
	return live, superseded
}
