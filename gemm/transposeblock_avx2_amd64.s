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

// SETUP turns the strides (DX, R8) into bytes for elements of 1<<shift bytes, with three of each, and
// starts at the first band; BAND points R11 and R12 at the band's first block (scale: the element size).
// The arguments are read in each function's own text, where go vet checks them.
#define SETUP(shift) \
	SHLQ $shift, DX; \
	SHLQ $shift, R8; \
	LEAQ (R8)(R8*2), R9; \
	LEAQ (DX)(DX*2), R13; \
	XORQ CX, CX

#define BAND(scale) \
	LEAQ  (SI)(CX*scale), R11; \
	MOVQ  CX, AX; \
	IMULQ DX, AX; \
	LEAQ  (DI)(AX*1), R12

// LOAD reads the block's 8 source rows into r0..r7 and moves R11 to the next block's.
#define LOAD(mov, r0, r1, r2, r3, r4, r5, r6, r7) \
	mov  (R11), r0; \
	mov  (R11)(R8*1), r1; \
	mov  (R11)(R8*2), r2; \
	mov  (R11)(R9*1), r3; \
	LEAQ (R11)(R8*4), R10; \
	mov  (R10), r4; \
	mov  (R10)(R8*1), r5; \
	mov  (R10)(R8*2), r6; \
	mov  (R10)(R9*1), r7; \
	LEAQ (R10)(R8*4), R11

// STORE writes r0..r7 as the block's 8 destination rows.
#define STORE(mov, r0, r1, r2, r3, r4, r5, r6, r7) \
	mov  r0, (R12); \
	mov  r1, (R12)(DX*1); \
	mov  r2, (R12)(DX*2); \
	mov  r3, (R12)(R13*1); \
	LEAQ (R12)(DX*4), R10; \
	mov  r4, (R10); \
	mov  r5, (R10)(DX*1); \
	mov  r6, (R10)(DX*2); \
	mov  r7, (R10)(R13*1)

// NEXT moves to the next block of the band (rowbytes: 8 elements), or to the next band.
#define NEXT(rowbytes) \
	ADDQ $rowbytes, R12; \
	SUBQ $8, BX; \
	JNZ  block; \
	ADDQ $8, CX; \
	JMP  band

// func transposeBlock16x2(dst *uint16, dstStride int, src *uint16, srcStride int, rows, cols int)
TEXT ·transposeBlock16x2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SETUP(1)

band:
	CMPQ CX, cols+40(FP)
	JGE  done
	BAND(2)
	MOVQ rows+32(FP), BX

block:
	LOAD(VMOVDQU, X0, X1, X2, X3, X4, X5, X6, X7)
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
	STORE(VMOVDQU, X8, X9, X10, X11, X12, X13, X14, X15)
	NEXT(16)

done:
	VZEROUPPER
	RET

// func transposeBlock32x2(dst *uint32, dstStride int, src *uint32, srcStride int, rows, cols int)
TEXT ·transposeBlock32x2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R8
	SETUP(2)

band:
	CMPQ CX, cols+40(FP)
	JGE  done
	BAND(4)
	MOVQ rows+32(FP), BX

block:
	LOAD(VMOVUPS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
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
	STORE(VMOVUPS, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	NEXT(32)

done:
	VZEROUPPER
	RET
