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

// `cairn bench remember --binary A,B` runs each configuration on each
// build in turn, and says which build each row measured.
func TestBenchRememberTwoBinaries(t *testing.T) {
	data := filepath.Join(t.TempDir(), "notes.txt")
	var sb strings.Builder
	for i := range 30 {
		fmt.Fprintf(&sb, "note %d: the billing job runs at %d:00 and writes to bucket b%d\n", i, i%24, i%5)
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := benchMain(context.Background(), []string{"remember", "--data", data, "--n", "20", "--clients", "1", "--ablations", "bare",
		"--binary", cairnBin + "," + cairnBin, "--set", "embedding.provider=none", "--json"}, &out, &errb)
	if err != nil {
		t.Fatalf("bench remember: %v\nstderr:\n%s", err, errb.String())
	}
	var rows []bench.RememberRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	want := []string{"default", "default", "bare", "bare"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		if r.Server != want[i] || r.Binary != cairnBin || r.Memories != 20 || r.RememberPerSec <= 0 {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if err := benchMain(context.Background(), []string{"load", "--data", data, "--health-every", "0s"}, &out, &errb); err == nil ||
		!strings.Contains(err.Error(), "--health-every") {
		t.Errorf("bench load --health-every 0s: %v", err)
	}
}
