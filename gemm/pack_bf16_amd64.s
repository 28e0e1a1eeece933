//go:build !purego

#include "textflag.h"

// func pairsBF16(dst, src *float32, n int)
//
// Sets dst[q] to the high halves of src[2q] (bits 0-15) and src[2q+1] (bits 16-31) for q < n, n a multiple
// of 16: two consecutive bf16-exact float32 values become one pair of bf16.
TEXT ·pairsBF16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   pairsdone

pairsloop:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z1
	VPSRLD    $16, Z0, Z0
	VPSRLD    $16, Z1, Z1
	VPMOVDW   Z0, Y0
	VPMOVDW   Z1, Y1
	VMOVDQU   Y0, (DI)
	VMOVDQU   Y1, 32(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       pairsloop

pairsdone:
	VZEROUPPER
	RET

// func interleaveBF16(dst, lo, hi *float32, n int)
//
// Sets dst[j] to the high halves of lo[j] (bits 0-15) and hi[j] (bits 16-31) for j < n, n a multiple of
// 16: two rows of bf16-exact float32 values become one row of pairs.
TEXT ·interleaveBF16(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ lo+8(FP), SI
	MOVQ hi+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $4, CX
	JZ   interdone
	MOVL $0xffff0000, AX
	VPBROADCASTD AX, Z2

interloop:
	VMOVDQU32 (SI), Z0
	VPSRLD    $16, Z0, Z0
	VPTERNLOGD $0xf8, (DX), Z2, Z0 // Z0 |= Z2 & hi
	VMOVDQU32 Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $64, DI
	DECQ      CX
	JNZ       interloop

interdone:
	VZEROUPPER
	RET
