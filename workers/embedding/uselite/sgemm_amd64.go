package uselite

import "golang.org/x/sys/cpu"

// packedKernel reports whether kern6x16 can run (AVX2 and FMA).
var packedKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kern6x16 adds to the 6×16 block of c (row stride ldc) the product of 6
// rows of a (row stride lda, k columns) and one k×16 panel b, and
// prefetches the k cache lines from pf on (the next panel) into L2.
//
//go:noescape
func kern6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int, pf *float32)

// kern4x16 and kern2x16 are kern6x16 for the last 4 and 2 rows of a
// product (without prefetching): a product of m rows computes m rounded up
// to an even count, not to a multiple of 6.
//
//go:noescape
func kern4x16(k int, a *float32, lda int, b *float32, c *float32, ldc int)

//go:noescape
func kern2x16(k int, a *float32, lda int, b *float32, c *float32, ldc int)
