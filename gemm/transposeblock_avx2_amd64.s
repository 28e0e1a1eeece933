//go:build !purego

#include "textflag.h"

// The block transposes in AVX2: the 8 x 8 blocks of a rows x cols region (multiples of 8), each read as 8
// rows of the source into registers, transposed there with shuffles only (the bits of every element
// move as they are: no arithmetic, so no NaN is touched) and written as 8 rows of the destination. The
// blocks of one column band of the source (8 rows of the destination) go in order along the destination's
// rows.
//
// Registers: SI, DI the matrices; R8 and DX their strides in bytes, R9 and R13 three of them; CX the
// band's first column; R11 and R12 the block's first element in the source and in the destination; BX the
// rows left in the band; R10 and AX scratch.

// func transposeBlock16x2(dst *uint16, dstStride int, src *uint16, srcStride int, rows, cols int)
TEXT ·transposeBlock16x2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	SHLQ $1, DX
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SHLQ $1, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (DX)(DX*2), R13
	XORQ CX, CX

band:
	CMPQ CX, cols+40(FP)
	JGE  done
	LEAQ (SI)(CX*2), R11
	MOVQ CX, AX
	IMULQ DX, AX
	LEAQ (DI)(AX*1), R12
	MOVQ rows+32(FP), BX

block:
	VMOVDQU (R11), X0
	VMOVDQU (R11)(R8*1), X1
	VMOVDQU (R11)(R8*2), X2
	VMOVDQU (R11)(R9*1), X3
	LEAQ (R11)(R8*4), R10
	VMOVDQU (R10), X4
	VMOVDQU (R10)(R8*1), X5
	VMOVDQU (R10)(R8*2), X6
	VMOVDQU (R10)(R9*1), X7
	LEAQ (R10)(R8*4), R11
	// Rows r0..r7 in X0..X7. Words of pairs of rows interleaved, then their doublewords, then their
	// quadwords: column j in X8+j.
	VPUNPCKLWD X1, X0, X8
	VPUNPCKHWD X1, X0, X9
	VPUNPCKLWD X3, X2, X10
	VPUNPCKHWD X3, X2, X11
	VPUNPCKLWD X5, X4, X12
	VPUNPCKHWD X5, X4, X13
	VPUNPCKLWD X7, X6, X14
	VPUNPCKHWD X7, X6, X15
	VPUNPCKLDQ X10, X8, X0
	VPUNPCKHDQ X10, X8, X1
	VPUNPCKLDQ X11, X9, X2
	VPUNPCKHDQ X11, X9, X3
	VPUNPCKLDQ X14, X12, X4
	VPUNPCKHDQ X14, X12, X5
	VPUNPCKLDQ X15, X13, X6
	VPUNPCKHDQ X15, X13, X7
	VPUNPCKLQDQ X4, X0, X8
	VPUNPCKHQDQ X4, X0, X9
	VPUNPCKLQDQ X5, X1, X10
	VPUNPCKHQDQ X5, X1, X11
	VPUNPCKLQDQ X6, X2, X12
	VPUNPCKHQDQ X6, X2, X13
	VPUNPCKLQDQ X7, X3, X14
	VPUNPCKHQDQ X7, X3, X15
	VMOVDQU X8, (R12)
	VMOVDQU X9, (R12)(DX*1)
	VMOVDQU X10, (R12)(DX*2)
	VMOVDQU X11, (R12)(R13*1)
	LEAQ (R12)(DX*4), R10
	VMOVDQU X12, (R10)
	VMOVDQU X13, (R10)(DX*1)
	VMOVDQU X14, (R10)(DX*2)
	VMOVDQU X15, (R10)(R13*1)
	ADDQ $16, R12
	SUBQ $8, BX
	JNZ  block
	ADDQ $8, CX
	JMP  band

done:
	VZEROUPPER
	RET

// func transposeBlock32x2(dst *uint32, dstStride int, src *uint32, srcStride int, rows, cols int)
TEXT ·transposeBlock32x2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	SHLQ $2, DX
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (DX)(DX*2), R13
	XORQ CX, CX

band:
	CMPQ CX, cols+40(FP)
	JGE  done
	LEAQ (SI)(CX*4), R11
	MOVQ CX, AX
	IMULQ DX, AX
	LEAQ (DI)(AX*1), R12
	MOVQ rows+32(FP), BX

block:
	VMOVUPS (R11), Y0
	VMOVUPS (R11)(R8*1), Y1
	VMOVUPS (R11)(R8*2), Y2
	VMOVUPS (R11)(R9*1), Y3
	LEAQ (R11)(R8*4), R10
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(R8*1), Y5
	VMOVUPS (R10)(R8*2), Y6
	VMOVUPS (R10)(R9*1), Y7
	LEAQ (R10)(R8*4), R11
	// Rows r0..r7 in Y0..Y7. Pairs of rows interleaved (t), then pairs of pairs (s: the columns j and j+4
	// of rows 0-3, or of rows 4-7, in the two halves), then the halves joined: column j in Y8+j.
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xee, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xee, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xee, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xee, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (R12)
	VMOVUPS Y9, (R12)(DX*1)
	VMOVUPS Y10, (R12)(DX*2)
	VMOVUPS Y11, (R12)(R13*1)
	LEAQ (R12)(DX*4), R10
	VMOVUPS Y12, (R10)
	VMOVUPS Y13, (R10)(DX*1)
	VMOVUPS Y14, (R10)(DX*2)
	VMOVUPS Y15, (R10)(R13*1)
	ADDQ $32, R12
	SUBQ $8, BX
	JNZ  block
	ADDQ $8, CX
	JMP  band

done:
	VZEROUPPER
	RET
