package vector

import (
	"math/rand/v2"
	"testing"
)

// The vector kernel computes the same integer dot product as the portable
// loop, for every code value (-128 included, which a damaged blob could
// hold) and for lengths it takes and lengths it leaves to the loop.
func TestCodeDotMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 31, 32, 64, 96, 384, 512, 768, 1536, 1000} {
		for trial := range 20 {
			a, b := make([]int8, n), make([]int8, n)
			for j := range a {
				a[j], b[j] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
				if trial == 0 {
					a[j], b[j] = -128, -128 // the largest products
				}
			}
			q := newQueryCode(Code{Codes: a})
			var want int32
			for j := range a {
				want += int32(a[j]) * int32(b[j])
			}
			if got := q.dot(b); got != want {
				t.Fatalf("n=%d trial %d: dot = %d, want %d (kernel %v)", n, trial, got, want, dotKernel)
			}
			if got := dotI8(a, b); got != want {
				t.Fatalf("n=%d: portable dot = %d, want %d", n, got, want)
			}
		}
	}
}
