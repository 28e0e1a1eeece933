//go:build !purego

#include "textflag.h"

// func interleave6AVX2(dst *float32, rows *[16][]float32, n, ahead int)
// sets dst[6*p+r] = rows[r][p] for r < 6 and p < n (a multiple of 16), four steps of p at a time: two 4x4
// transposes of rows 0-3 and pairs of rows 4-5. Every 16 steps it fetches the line ahead bytes past each
// row's current one (the same columns of the rows packed next), so that they come from L1 or L2.
TEXT ·interleave6AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ ahead+24(FP), DX
	MOVQ 0(SI), R8   // rows[0].ptr (a slice header is 24 bytes)
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	XORQ AX, AX
	SHRQ $4, CX
	JZ   done

loop:
	LEAQ (AX)(DX*1), BX
	PREFETCHT0 (R8)(BX*1)
	PREFETCHT0 (R9)(BX*1)
	PREFETCHT0 (R10)(BX*1)
	PREFETCHT0 (R11)(BX*1)
	PREFETCHT0 (R12)(BX*1)
	PREFETCHT0 (R13)(BX*1)
	MOVQ $4, BX

quad:
	VMOVUPS (R8)(AX*1), X0
	VMOVUPS (R9)(AX*1), X1
	VMOVUPS (R10)(AX*1), X2
	VMOVUPS (R11)(AX*1), X3
	VMOVUPS (R12)(AX*1), X4
	VMOVUPS (R13)(AX*1), X5
	VUNPCKLPS X1, X0, X6   // r0p0 r1p0 r0p1 r1p1
	VUNPCKHPS X1, X0, X7   // r0p2 r1p2 r0p3 r1p3
	VUNPCKLPS X3, X2, X8   // r2p0 r3p0 r2p1 r3p1
	VUNPCKHPS X3, X2, X9   // r2p2 r3p2 r2p3 r3p3
	VUNPCKLPS X5, X4, X10  // r4p0 r5p0 r4p1 r5p1
	VUNPCKHPS X5, X4, X11  // r4p2 r5p2 r4p3 r5p3
	VMOVLHPS X8, X6, X0    // r0p0 r1p0 r2p0 r3p0
	VMOVHLPS X6, X8, X1    // r0p1 r1p1 r2p1 r3p1
	VMOVLHPS X9, X7, X2    // r0p2 r1p2 r2p2 r3p2
	VMOVHLPS X7, X9, X3    // r0p3 r1p3 r2p3 r3p3
	VMOVUPS X0, 0(DI)
	VMOVLPS X10, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X10, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X11, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X11, 88(DI)
	ADDQ $16, AX
	ADDQ $96, DI
	DECQ BX
	JNZ  quad
	DECQ CX
	JNZ  loop

done:
	RET

// func copyStripAVX2(dst, src *float32, stride, kc int)
// sets dst[16*p+j] = src[p*stride+j] for j < 16 and p < kc: one 16-wide strip of B from float32 rows
// stride bytes apart, fetching the row eight ahead as it goes.
TEXT ·copyStripAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ kc+24(FP), CX
	LEAQ (DX)(DX*2), BX
	SHLQ $1, BX        // 6 rows
	ADDQ DX, BX
	ADDQ DX, BX        // 8 rows
	TESTQ CX, CX
	JZ   done

loop:
	PREFETCHT0 (SI)(BX*1)
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
