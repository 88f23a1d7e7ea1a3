package uselite

import "gonum.org/v1/gonum/blas"

// A weight matrix of the model: k×n, row-major, used as the right operand
// of every dense layer. Where the CPU has a fused multiply-add kernel
// (packedKernel), the weights are kept only in panel order instead: panel
// p holds columns 16p..16p+15 as k consecutive rows of 16, so the kernel
// streams one panel from cache while it keeps a block of output rows in
// registers (the generic matrix product reloads and stores every output
// row once per input column, which bounds it by load/store bandwidth).
type weights struct {
	k, n   int
	raw    []float32 // k×n row-major; nil once packed
	packed []float32 // n/panelCols panels of k×panelCols; nil if not packed
}

const (
	panelCols = 16 // output columns per kernel call: two 8-wide registers
	blockRows = 6  // output rows per kernel call: 12 accumulators
)

// newWeights wraps a k×n matrix, packing it when the kernel is available
// and n is a multiple of the panel width.
func newWeights(raw []float32, k, n int) weights {
	w := weights{k: k, n: n, raw: raw}
	if !packedKernel || n%panelCols != 0 {
		return w
	}
	w.packed = make([]float32, len(raw))
	for p := 0; p < n/panelCols; p++ {
		dst := w.packed[p*k*panelCols : (p+1)*k*panelCols]
		for l := range k {
			copy(dst[l*panelCols:(l+1)*panelCols], raw[l*n+p*panelCols:l*n+(p+1)*panelCols])
		}
	}
	w.raw = nil
	return w
}

// mul computes c = bias (broadcast over rows) + a·w, with a m×k and c m×n.
// pad is scratch of at least blockRows×(k+n) floats for the last partial
// block of rows.
func (w *weights) mul(m int, a, bias, c []float32, pad *[]float32) {
	k, n := w.k, w.n
	a, c = a[:m*k], c[:m*n]
	for i := range m {
		copy(c[i*n:(i+1)*n], bias)
	}
	if w.packed == nil {
		impl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, w.raw, n, 1, c, n)
		return
	}
	full := m - m%blockRows
	var pa, pc []float32 // the last rows, padded to a whole block with zero rows
	if rest := m - full; rest > 0 {
		*pad = grow(*pad, blockRows*(k+n))
		pa, pc = (*pad)[:blockRows*k], (*pad)[blockRows*k:]
		clear(pa[rest*k:])
		copy(pa, a[full*k:])
		clear(pc[rest*n:])
		copy(pc, c[full*n:])
	}
	w.mulBlocks(full, a, c, pa, pc, m-full)
	if pc != nil {
		copy(c[full*n:], pc[:(m-full)*n])
	}
}

// mulBlocks adds a·w to c for the full rows of a and c (a multiple of
// blockRows) and, if pa is not nil, pa·w to the first rest rows of pc (one
// block of rows; the kernel for 2 or 4 rows when they are enough): panel
// by panel, every block of rows over one panel while it is in cache, so
// that the weights are read from memory once per product. While the
// second block of rows (or the first, when it is the only full one) runs
// over a panel, the kernel prefetches the next panel into L2: for a chunk
// of few rows (one short text) it would otherwise wait for every panel at
// its first block.
func (w *weights) mulBlocks(full int, a, c, pa, pc []float32, rest int) {
	k, n := w.k, w.n
	blocks := full / blockRows
	if pa != nil {
		_, _ = pa[blockRows*k-1], pc[blockRows*n-1]
		blocks++
	}
	if blocks == 0 {
		return
	}
	_, _ = a[:full*k], c[:full*n]
	panels := n / panelCols
	pfBlock := min(1, blocks-1)
	if pfBlock*blockRows >= full && rest <= 4 {
		pfBlock = 0 // the last rows' small kernels do not prefetch: a full block does
	}
	for p := range panels {
		panel := w.packed[p*k*panelCols : (p+1)*k*panelCols]
		next := panel // prefetching what is in cache costs next to nothing
		if p+1 < panels {
			next = w.packed[(p+1)*k*panelCols:]
		}
		for b := range blocks {
			pf := &panel[0]
			if b == pfBlock {
				pf = &next[0]
			}
			if i := b * blockRows; i < full {
				kern6x16(k, &a[i*k], k, &panel[0], &c[i*n+p*panelCols], n, pf)
			} else {
				switch {
				case rest <= 2:
					kern2x16(k, &pa[0], k, &panel[0], &pc[p*panelCols], n)
				case rest <= 4:
					kern4x16(k, &pa[0], k, &panel[0], &pc[p*panelCols], n)
				default:
					kern6x16(k, &pa[0], k, &panel[0], &pc[p*panelCols], n, pf)
				}
			}
		}
	}
}
