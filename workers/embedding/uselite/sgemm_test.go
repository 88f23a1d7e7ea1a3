package uselite

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// The packed kernel must compute what gonum computes, for every row count
// (whole blocks, a partial last block, fewer rows than one block) and for
// the shapes the model uses.
func TestWeightsMulMatchesGonum(t *testing.T) {
	if !packedKernel {
		t.Log("no packed kernel on this CPU: weights stay row-major (gonum); checking that path")
	}
	r := rand.New(rand.NewPCG(3, 4))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, shape := range [][2]int{{256, 768}, {512, 512}, {512, 1536}, {1536, 512}, {3, 16}, {7, 40}} {
		k, n := shape[0], shape[1]
		raw := rnd(k * n)
		w := newWeights(append([]float32(nil), raw...), k, n)
		if packedKernel && n%panelCols == 0 && w.packed == nil {
			t.Fatalf("%dx%d not packed", k, n)
		}
		bias := rnd(n)
		var pad []float32
		for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 10, 12, 13, 16, 31} {
			a := rnd(m * k)
			got := make([]float32, m*n)
			w.mul(m, a, bias, got, &pad)
			want := make([]float32, m*n)
			for i := range m {
				copy(want[i*n:], bias)
			}
			impl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, raw, n, 1, want, n)
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*math.Sqrt(float64(k)) {
					t.Fatalf("k=%d n=%d m=%d: c[%d] = %v, want %v", k, n, m, i, got[i], want[i])
				}
			}
		}
	}
}
