package vector

import "golang.org/x/sys/cpu"

// dotKernel reports whether dotI16I8AVX2 can run.
var dotKernel = cpu.X86.HasAVX2

// dotI16I8AVX2 returns Σ a[j]·b[j] for n elements, n a multiple of 32:
// b is sign-extended to 16 bits and multiplied pairwise (VPMADDWD).
//
//go:noescape
func dotI16I8AVX2(a *int16, b *int8, n int) int32

// dotsI16I8AVX2 sets out[v] = Σ a[j]·b[v*n+j] for v < count: the dot
// product of a with count consecutive codes of n elements (a multiple of
// 32), one call instead of one per code.
//
//go:noescape
func dotsI16I8AVX2(a *int16, b *int8, n int, count int, out *int32)
