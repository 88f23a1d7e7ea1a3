#include "textflag.h"

// func dotI16I8AVX2(a *int16, b *int8, n int) int32
TEXT ·dotI16I8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ $5, CX
	JZ   done

loop:
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  (SI), Y2, Y2
	VPMADDWD  32(SI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	DECQ      CX
	JNZ       loop

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET

// func dotsI16I8AVX2(a *int16, b *int8, n int, count int, out *int32)
// out[v] = Σ a[j]·b[v*n+j] for v < count: the kernel above over count
// consecutive codes of n elements each, n a multiple of 32.
TEXT ·dotsI16I8AVX2(SB), NOSPLIT, $0-40
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), R8
	MOVQ count+24(FP), R9
	MOVQ out+32(FP), R10
	SHRQ $5, R8
	TESTQ R9, R9
	JZ   dotsend
	TESTQ R8, R8
	JZ   dotsend

vec:
	MOVQ a+0(FP), SI
	MOVQ R8, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

dotsloop:
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  (SI), Y2, Y2
	VPMADDWD  32(SI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	DECQ      CX
	JNZ       dotsloop

	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R10)
	ADDQ         $4, R10
	DECQ         R9
	JNZ          vec

dotsend:
	VZEROUPPER
	RET
