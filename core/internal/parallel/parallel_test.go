package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, whatever the size.
func TestRangesCoverEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 4097} {
		seen := make([]atomic.Int32, n)
		Ranges(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}
