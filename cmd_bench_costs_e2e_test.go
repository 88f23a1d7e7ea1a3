//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/bench"
)

// `cairn bench costs` measures the default and the lean server side by
// side through the API: recalls answered, a WAL and a database measured,
// each server started again and its first answer timed.
func TestBenchCosts(t *testing.T) {
	data := filepath.Join(t.TempDir(), "notes.txt")
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "note %d: the billing job runs at %d:00 and writes to bucket b%d\n", i, i%24, i%5)
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"costs", "--data", data, "--n", "30", "--recalls", "5", "--starts", "2",
		"--binary", cairnBin, "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench costs: %v\nstderr:\n%s", err, errb.String())
	}
	var rows []bench.CostsRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if len(rows) != 2 || rows[0].Server != "default" || rows[1].Server != "lean" {
		t.Fatalf("rows %+v, want default and lean", rows)
	}
	for _, r := range rows {
		if r.Memories != 30 || r.RecallP50MS <= 0 || r.KeywordP50MS <= 0 || r.DBBytes <= 0 || r.FirstAnswerMS <= 0 || r.RSSBytes <= 0 {
			t.Errorf("%s: %+v", r.Server, r)
		}
	}
	if rows[0].RecallMethod != "hybrid" || rows[1].RecallMethod != "keyword" {
		t.Errorf("recall methods %q and %q, want hybrid and keyword", rows[0].RecallMethod, rows[1].RecallMethod)
	}
}
