//go:build integration

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is the most a cairn package's initialisation may allocate.
// Every hook event and MCP session starts the binary, and every package
// linked into it initialises first, whatever the command: a package-level
// regexp.MustCompile or table built at start-up is paid by all of them.
// Build such values on first use (sync.OnceValue; lazyRegexp in
// core/text, core/extract, core/entities). Allocations, unlike time, do not
// depend on the machine's load. The largest today is core/text's at about
// 90 KB (its word maps); the regular expressions made it 700 KB.
const initBudget = 128 << 10

// TestStartupInit reads the runtime's init trace of `cairn version` and
// holds each cairn package's initialisation to initBudget.
func TestStartupInit(t *testing.T) {
	cmd := exec.Command(cairnBin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn version: %v\n%s", err, stderr.String())
	}
	seen, total := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/cairnmem/cairn/core/text @8.0 ms, 0.51 ms clock, 90712 bytes, 509 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		if pkg != "main" && !strings.HasPrefix(pkg, "github.com/cairnmem/cairn/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("bad init trace line %q", sc.Text())
		}
		seen++
		total += n
		if n > initBudget {
			t.Errorf("%s allocates %d KB at start-up (budget %d KB): build its package-level values on first use", pkg, n>>10, initBudget>>10)
		}
	}
	if seen == 0 {
		t.Fatalf("no cairn package in the init trace:\n%s", stderr.String())
	}
	t.Logf("%d cairn packages allocate %d KB at start-up", seen, total>>10)
}
