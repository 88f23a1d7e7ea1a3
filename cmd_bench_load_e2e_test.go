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

// TestBenchLoadThroughTheBinary runs `cairn bench load` as users run it:
// the real binary as a server, memories stored over HTTP, then recalls,
// remembers and /health from several clients, every figure reported.
func TestBenchLoadThroughTheBinary(t *testing.T) {
	data := filepath.Join(t.TempDir(), "notes.txt")
	var sb strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sb, "note %d: the atlas service deploys from branch release-%d and pages team %d\n", i, i%7, i%3)
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"load", "--data", data, "--binary", cairnBin, "--memories", "30",
		"--clients", "4", "--duration", "1s", "--set", "embedding.provider=none", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench load: %v\nstderr:\n%s", err, errb.String())
	}
	var rows []bench.LoadRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	if len(rows) != 1 || rows[0].Memories != 30 || rows[0].Clients != 4 || len(rows[0].Ops) != 3 {
		t.Fatalf("rows: %+v", rows)
	}
	for _, o := range rows[0].Ops {
		if o.Requests == 0 || o.OK == 0 || o.Errors != 0 || o.P50MS <= 0 || o.P99MS < o.P50MS {
			t.Errorf("%s: %+v", o.Op, o)
		}
	}
	if err := benchMain(context.Background(), []string{"load", "--data", data, "--mix", "recall=x"}, &out, &errb); err == nil ||
		!strings.Contains(err.Error(), "--mix") {
		t.Errorf("a bad --mix: %v", err)
	}
}
