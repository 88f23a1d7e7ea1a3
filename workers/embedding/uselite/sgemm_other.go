//go:build !amd64

package uselite

// packedKernel is false: weights stay row-major and gonum multiplies them.
const packedKernel = false

func kern6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int, pf *float32) {
	panic("uselite: no packed kernel on this architecture")
}

func kern4x16(k int, a *float32, lda int, b *float32, c *float32, ldc int) {
	panic("uselite: no packed kernel on this architecture")
}

func kern2x16(k int, a *float32, lda int, b *float32, c *float32, ldc int) {
	panic("uselite: no packed kernel on this architecture")
}
