package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The log rotates by size: no file passes the limit, keep old files stay
// (oldest dropped), every line is whole and none is lost from the files
// kept.
func TestLogRotatesBySize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cairn.log")
	// An existing log is appended to and counted.
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 900)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const max, keep = 1000, 3
	w, err := openRotating(path, max, keep)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	const lines = 200
	for i := 0; i < lines; i++ {
		log.Info("request", "n", i, "pad", strings.Repeat("p", 40))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(path + "*")
	if len(names) != keep+1 {
		t.Fatalf("files %v, want cairn.log and %d old ones", names, keep)
	}
	if _, err := os.Stat(fmt.Sprintf("%s.%d", path, keep+1)); err == nil {
		t.Fatal("more old files than keep")
	}
	seen := map[string]bool{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > max {
			t.Errorf("%s is %d bytes, over %d", filepath.Base(name), len(b), max)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if strings.HasPrefix(line, "xxx") {
				continue
			}
			if !strings.HasPrefix(line, "time=") || !strings.HasSuffix(line, strings.Repeat("p", 40)) {
				t.Fatalf("%s: split line %q", filepath.Base(name), line)
			}
			seen[line[strings.Index(line, " n="):]] = true
		}
	}
	// The newest lines are all in the files kept.
	if !seen[fmt.Sprintf(" n=%d pad=%s", lines-1, strings.Repeat("p", 40))] {
		t.Fatal("the last line is missing")
	}
	// Oldest first: cairn.log.3 holds earlier lines than cairn.log.1.
	firstN := func(name string) int {
		b, _ := os.ReadFile(name)
		var n int
		line := strings.SplitN(string(b), "\n", 2)[0]
		fmt.Sscanf(line[strings.Index(line, " n=")+3:], "%d", &n)
		return n
	}
	if a, b := firstN(path+".3"), firstN(path+".1"); a >= b {
		t.Fatalf("rotation order: .3 starts at line %d, .1 at %d", a, b)
	}
	// Reopened, it goes on appending to cairn.log.
	w, err = openRotating(path, max, keep)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	fmt.Fprintln(w, "after reopen")
	w.Close()
	after, _ := os.Stat(path)
	if after.Size() <= before.Size() && after.Size() != int64(len("after reopen\n")) {
		t.Fatal("reopen did not append")
	}
}
