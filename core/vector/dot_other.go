//go:build !amd64

package vector

const dotKernel = false

func dotI16I8AVX2(a *int16, b *int8, n int) int32 {
	panic("vector: no AVX2 kernel on this architecture")
}

func dotsI16I8AVX2(a *int16, b *int8, n int, count int, out *int32) {
	panic("vector: no AVX2 kernel on this architecture")
}
