//go:build !purego

#include "textflag.h"

// func decodeWords(dst *uint16, src *byte, n int, table *[256]uint16)
//
// Sets dst[i] = table[src[i]] for i < n, n a multiple of 32 (AVX-512 BW): the table lives in Z16-Z23, 64
// entries to each pair of registers; VPERMI2W looks 32 indices up in each pair (bits 0-5) and bits 6 and 7
// choose among the 4 results.
TEXT ·decodeWords(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ table+24(FP), R8
	SHRQ $5, CX
	JZ   wordsdone
	VMOVDQU16 0(R8), Z16
	VMOVDQU16 64(R8), Z17
	VMOVDQU16 128(R8), Z18
	VMOVDQU16 192(R8), Z19
	VMOVDQU16 256(R8), Z20
	VMOVDQU16 320(R8), Z21
	VMOVDQU16 384(R8), Z22
	VMOVDQU16 448(R8), Z23
	MOVL $0x00400040, AX
	VPBROADCASTD AX, Z10
	MOVL $0x00800080, AX
	VPBROADCASTD AX, Z11

wordsloop:
	VPMOVZXBW (SI), Z0
	VPTESTMW  Z10, Z0, K1
	VPTESTMW  Z11, Z0, K2
	VMOVDQA64 Z0, Z1
	VPERMI2W  Z17, Z16, Z1
	VMOVDQA64 Z0, Z2
	VPERMI2W  Z19, Z18, Z2
	VMOVDQA64 Z0, Z3
	VPERMI2W  Z21, Z20, Z3
	VMOVDQA64 Z0, Z4
	VPERMI2W  Z23, Z22, Z4
	VMOVDQU16 Z2, K1, Z1
	VMOVDQU16 Z4, K1, Z3
	VMOVDQU16 Z3, K2, Z1
	VMOVDQU16 Z1, (DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       wordsloop

wordsdone:
	VZEROUPPER
	RET

// func interleaveWords(dst *float32, lo, hi *uint16, n int)
//
// Sets dst[j] to the pair lo[j] (bits 0-15), hi[j] (bits 16-31) for j < n, n a multiple of 16.
TEXT ·interleaveWords(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ lo+8(FP), SI
	MOVQ hi+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $4, CX
	JZ   iwdone

iwloop:
	VPMOVZXWD (SI), Z0
	VPMOVZXWD (DX), Z1
	VPSLLD    $16, Z1, Z1
	VPORD     Z1, Z0, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $64, DI
	DECQ      CX
	JNZ       iwloop

iwdone:
	VZEROUPPER
	RET
