package main

import "testing"

// The GC target follows the live heap: Go's default for a small heap, a
// constant headroom above 32 MiB, never under 25%.
func TestGCPercentFor(t *testing.T) {
	for live, want := range map[uint64]int{0: 100, 1 << 20: 100, 32 << 20: 100, 64 << 20: 50, 128 << 20: 25, 1 << 30: 25} {
		if got := gcPercentFor(live); got != want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", live>>20, got, want)
		}
	}
}
