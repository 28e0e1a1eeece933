//go:build !purego

#include "textflag.h"

// The AVX2/FMA microkernel, for machines without AVX-512: a 6x16 tile of C in 12 ymm accumulators (row r
// in Y(2r), Y(2r+1)); Y12, Y13 hold a 16-wide row of the packed B panel and Y14, Y15 the broadcast
// elements of A. Edge columns are written with VMASKMOVPS under a lane mask.

// STEP performs one step of k: A column at ao(AX), B row at bo(BX).
#define STEP(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao+0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao+4(AX), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao+12(AX), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS ao+16(AX), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS ao+20(AX), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// STORE writes row y0, y1 of the tile to (DI) under the lane masks Y12, Y13 as alpha*sums (alpha in
// 0(SP)), moves DI to the next row and stops after the last of the m rows (R8 counts them down).
#define STORE(y0, y1) \
	VMULPS (SP), y0, y0; \
	VMULPS (SP), y1, y1; \
	VMASKMOVPS y0, Y12, (DI); \
	VMASKMOVPS y1, Y13, 32(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

// STOREBETA is STORE for alpha*sums + beta*C, rounded once (beta in 32(SP)); masked-off columns of C are
// not read.
#define STOREBETA(y0, y1) \
	VMASKMOVPS (DI), Y12, Y14; \
	VMASKMOVPS 32(DI), Y13, Y15; \
	VMULPS (SP), y0, y0; \
	VMULPS (SP), y1, y1; \
	VFMADD231PS 32(SP), Y14, y0; \
	VFMADD231PS 32(SP), Y15, y1; \
	VMASKMOVPS y0, Y12, (DI); \
	VMASKMOVPS y1, Y13, 32(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

// STOREFULL writes all 16 columns of row y0, y1 as alpha*sums (alpha in Y14).
#define STOREFULL(y0, y1) \
	VMULPS Y14, y0, y0; \
	VMULPS Y14, y1, y1; \
	VMOVUPS y0, (DI); \
	VMOVUPS y1, 32(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

// STOREFULLBETA writes all 16 columns of row y0, y1 as alpha*sums + beta*C, rounded once (beta in Y15).
#define STOREFULLBETA(y0, y1) \
	VMULPS Y14, y0, y0; \
	VMULPS Y14, y1, y1; \
	VMOVUPS (DI), Y12; \
	VMOVUPS 32(DI), Y13; \
	VFMADD231PS Y15, Y12, y0; \
	VFMADD231PS Y15, Y13, y1; \
	VMOVUPS y0, (DI); \
	VMOVUPS y1, 32(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

// LOADFULL reads all 16 columns of row y0, y1 of the sums so far from (DI), moves DI to the next row (R10
// bytes on) and stops after the last of the tile's rows (R8 counts them down).
#define LOADFULL(y0, y1) \
	VMOVUPS (DI), y0; \
	VMOVUPS 32(DI), y1; \
	ADDQ R10, DI; \
	DECQ R8; \
	JZ loaded

// LOADMASKED is LOADFULL under the lane masks Y12, Y13 (masked-off columns read as zero).
#define LOADMASKED(y0, y1) \
	VMASKMOVPS (DI), Y12, y0; \
	VMASKMOVPS 32(DI), Y13, y1; \
	ADDQ R10, DI; \
	DECQ R8; \
	JZ loaded

// func kernelAVX2(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask *int32, alpha, beta float32)
// mask points at 16 int32 lane masks (-1 for the columns to write, 0 for the others). m may exceed 6: the
// kernel then runs down a column of tiles, strip after strip of the packed A (6*kc elements each) against
// the one micro-panel of B, six rows of C at a time (fewer in the last), with no return to Go between them.
// Each tile's sums start from zero, or where acc is not nil from the sums so far at acc (ldacc elements
// between rows), which a block of K before this one left there, so that they go on as one chain.
TEXT ·kernelAVX2(SB), NOSPLIT, $80-80
	MOVQ a+8(FP), R12  // the strip of A of the next tile
	MOVQ c+24(FP), R13 // its first row of C
	MOVQ m+56(FP), R11 // the rows left
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI
	MOVQ mask+64(FP), R9
	MOVQ acc+40(FP), AX // the sums so far of the next tile, or 0
	MOVQ AX, 64(SP)
	MOVQ ldacc+48(FP), AX
	SHLQ $2, AX
	MOVQ AX, 72(SP)

tileloop:
	MOVQ kc+0(FP), CX
	MOVQ R12, AX
	MOVQ b+16(FP), BX

	// Fetch the tile of C into L1 while the products are summed: its rows are far apart and usually
	// out of every cache, and waiting for them at the store would cost a tenth of the tile's time.
	MOVQ R13, DI
	MOVQ R11, R10
	CMPQ R10, $6
	JLE  prefetchc
	MOVQ $6, R10
prefetchc:
	PREFETCHT0 (DI)
	PREFETCHT0 60(DI)
	ADDQ SI, DI
	DECQ R10
	JNZ  prefetchc

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

	// The sums so far, if any: the tile's rows, and the next tile's fetched meanwhile.
	MOVQ 64(SP), DI
	TESTQ DI, DI
	JZ   steps
	MOVQ 72(SP), R10
	MOVQ R11, R8
	SUBQ $6, R8
	JLE  loadrows
	CMPQ R8, $6
	JLE  prefetchnext
	MOVQ $6, R8
prefetchnext:
	MOVQ R10, DX
	IMULQ $6, DX
	ADDQ DI, DX
prefetchsums:
	PREFETCHT0 (DX)
	PREFETCHT0 60(DX)
	ADDQ R10, DX
	DECQ R8
	JNZ  prefetchsums
loadrows:
	MOVQ R11, R8
	CMPQ R8, $6
	JLE  load
	MOVQ $6, R8
load:
	CMPL 60(R9), $-1
	JNE  loadmasked
	LOADFULL(Y0, Y1)
	LOADFULL(Y2, Y3)
	LOADFULL(Y4, Y5)
	LOADFULL(Y6, Y7)
	LOADFULL(Y8, Y9)
	LOADFULL(Y10, Y11)
	JMP  loaded
loadmasked:
	VMOVDQU (R9), Y12
	VMOVDQU 32(R9), Y13
	LOADMASKED(Y0, Y1)
	LOADMASKED(Y2, Y3)
	LOADMASKED(Y4, Y5)
	LOADMASKED(Y6, Y7)
	LOADMASKED(Y8, Y9)
	LOADMASKED(Y10, Y11)
loaded:

steps:
	SUBQ $4, CX
	JL   tail

loop4:
	STEP(0, 0)
	STEP(24, 64)
	STEP(48, 128)
	STEP(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	SUBQ $4, CX
	JGE  loop4

tail:
	ADDQ $4, CX
	JZ   store

loop1:
	STEP(0, 0)
	ADDQ $24, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop1

store:
	MOVQ R13, DI
	MOVQ R11, R8
	CMPQ R8, $6
	JLE  rows
	MOVQ $6, R8
rows:
	VBROADCASTSS alpha+72(FP), Y14
	VBROADCASTSS beta+76(FP), Y15
	MOVL beta+76(FP), DX
	SHLL $1, DX // drop the sign: -0 is zero too
	CMPL 60(R9), $-1
	JNE  masked
	// All 16 columns: plain loads and stores (a masked store costs several times as much on AMD cores).
	TESTL DX, DX
	JNZ   fullbeta
	STOREFULL(Y0, Y1)
	STOREFULL(Y2, Y3)
	STOREFULL(Y4, Y5)
	STOREFULL(Y6, Y7)
	STOREFULL(Y8, Y9)
	STOREFULL(Y10, Y11)
	JMP next

fullbeta:
	STOREFULLBETA(Y0, Y1)
	STOREFULLBETA(Y2, Y3)
	STOREFULLBETA(Y4, Y5)
	STOREFULLBETA(Y6, Y7)
	STOREFULLBETA(Y8, Y9)
	STOREFULLBETA(Y10, Y11)
	JMP next

masked:
	VMOVDQU (R9), Y12
	VMOVDQU 32(R9), Y13
	VMOVUPS Y14, (SP)
	VMOVUPS Y15, 32(SP)
	TESTL DX, DX
	JNZ  withbeta

	STORE(Y0, Y1)
	STORE(Y2, Y3)
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	STORE(Y8, Y9)
	STORE(Y10, Y11)
	JMP next

withbeta:
	STOREBETA(Y0, Y1)
	STOREBETA(Y2, Y3)
	STOREBETA(Y4, Y5)
	STOREBETA(Y6, Y7)
	STOREBETA(Y8, Y9)
	STOREBETA(Y10, Y11)

next:
	// On to the next strip of A and six rows down C and the sums so far, if any rows are left.
	MOVQ kc+0(FP), R10
	IMULQ $24, R10
	ADDQ R10, R12
	MOVQ SI, R10
	IMULQ $6, R10
	ADDQ R10, R13
	MOVQ 64(SP), R10
	TESTQ R10, R10
	JZ   nextrows
	MOVQ 72(SP), DX
	IMULQ $6, DX
	ADDQ DX, R10
	MOVQ R10, 64(SP)
nextrows:
	SUBQ $6, R11
	JG   tileloop
	VZEROUPPER
	RET
