package tui

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets the golden views run 4 at a time unless -parallel was
// given: each has its own store, and most of a view's time is spent
// waiting for commands that only tick (polling, spinners) to time out in
// the harness, not on the CPU.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}
