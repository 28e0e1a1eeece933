// The body shared by the two AVX-512 microkernels (kernel_avx512_amd64.s, kernel_bf16_amd64.s), included
// right after their TEXT lines have loaded the arguments: each defines STEP, one step of k (one column of
// the packed A against one row of the packed B, into the 28 accumulators Z0-Z27), and this runs a column
// of 14x32 tiles with it, starting each tile's sums from zero or from the sums so far (a block of K before
// this one left them at acc), fetching each tile of C at its start and storing it at its end.
//
// On entry: R9 kc, R12 the strip of A of the first tile, R14 the micro-panel of B, R13 the first row of C,
// SI the bytes between rows of C, R11 the rows m, K1 and K2 the masks of the columns to write (0-15,
// 16-31); in the frame, 0(SP) the first row of the sums so far (0 for none), 8(SP) the bytes between their
// rows, 16(SP) alpha and 20(SP) beta.

// LOAD reads row z0, z1 of the sums so far from (DI) under the column masks (masked-off columns read as
// zero), moves DI to the next row (R10 bytes on) and stops after the last of the tile's rows (R8 counts
// them down).
#define LOAD(z0, z1) \
	VMOVUPS.Z (DI), K1, z0; \
	VMOVUPS.Z 64(DI), K2, z1; \
	ADDQ R10, DI; \
	DECQ R8; \
	JZ loaded

// STORE writes row z0, z1 of the tile to (DI) under the column masks K1, K2 as alpha*sums (Z30 = alpha),
// moves DI to the next row and stops after the last of the m rows (R8 counts them down).
#define STORE(z0, z1) \
	VMULPS Z30, z0, z0; \
	VMULPS Z30, z1, z1; \
	VMOVUPS z0, K1, (DI); \
	VMOVUPS z1, K2, 64(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

// STOREBETA is STORE for alpha*sums + beta*C, rounded once (Z31 = beta); masked-off columns of C are not
// read.
#define STOREBETA(z0, z1) \
	VMOVUPS.Z (DI), K1, Z28; \
	VMOVUPS.Z 64(DI), K2, Z29; \
	VMULPS Z30, z0, z0; \
	VMULPS Z30, z1, z1; \
	VFMADD231PS Z31, Z28, z0; \
	VFMADD231PS Z31, Z29, z1; \
	VMOVUPS z0, K1, (DI); \
	VMOVUPS z1, K2, 64(DI); \
	ADDQ SI, DI; \
	DECQ R8; \
	JZ next

tileloop:
	MOVQ R9, CX
	MOVQ R12, AX
	MOVQ R14, BX

	// Fetch the tile of C into L1 while the products are summed.
	MOVQ R13, DI
	MOVQ R11, R10
	CMPQ R10, $14
	JLE  prefetchc
	MOVQ $14, R10
prefetchc:
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	PREFETCHT0 124(DI)
	ADDQ SI, DI
	DECQ R10
	JNZ  prefetchc

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27

	// The sums so far, if any: the tile's rows, and the next tile's fetched meanwhile.
	MOVQ 0(SP), DI
	TESTQ DI, DI
	JZ   steps
	MOVQ 8(SP), R10
	MOVQ R11, R8
	SUBQ $14, R8
	JLE  loadrows
	CMPQ R8, $14
	JLE  prefetchnext
	MOVQ $14, R8
prefetchnext:
	MOVQ R10, DX
	IMULQ $14, DX
	ADDQ DI, DX
prefetchsums:
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	PREFETCHT0 124(DX)
	ADDQ R10, DX
	DECQ R8
	JNZ  prefetchsums
loadrows:
	MOVQ R11, R8
	CMPQ R8, $14
	JLE  load
	MOVQ $14, R8
load:
	LOAD(Z0, Z1)
	LOAD(Z2, Z3)
	LOAD(Z4, Z5)
	LOAD(Z6, Z7)
	LOAD(Z8, Z9)
	LOAD(Z10, Z11)
	LOAD(Z12, Z13)
	LOAD(Z14, Z15)
	LOAD(Z16, Z17)
	LOAD(Z18, Z19)
	LOAD(Z20, Z21)
	LOAD(Z22, Z23)
	LOAD(Z24, Z25)
	LOAD(Z26, Z27)
loaded:

steps:
	SUBQ $4, CX
	JL   tail

loop4:
	STEP(0, 0)
	STEP(56, 128)
	STEP(112, 256)
	STEP(168, 384)
	ADDQ $224, AX
	ADDQ $512, BX
	SUBQ $4, CX
	JGE  loop4

tail:
	ADDQ $4, CX
	JZ   store

loop1:
	STEP(0, 0)
	ADDQ $56, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  loop1

store:
	MOVQ R13, DI
	MOVQ R11, R8
	CMPQ R8, $14
	JLE  rows
	MOVQ $14, R8
rows:
	VBROADCASTSS 16(SP), Z30
	VBROADCASTSS 20(SP), Z31
	MOVL 20(SP), DX
	SHLL $1, DX // drop the sign: -0 is zero too
	JNZ  withbeta

	STORE(Z0, Z1)
	STORE(Z2, Z3)
	STORE(Z4, Z5)
	STORE(Z6, Z7)
	STORE(Z8, Z9)
	STORE(Z10, Z11)
	STORE(Z12, Z13)
	STORE(Z14, Z15)
	STORE(Z16, Z17)
	STORE(Z18, Z19)
	STORE(Z20, Z21)
	STORE(Z22, Z23)
	STORE(Z24, Z25)
	STORE(Z26, Z27)
	JMP next

withbeta:
	STOREBETA(Z0, Z1)
	STOREBETA(Z2, Z3)
	STOREBETA(Z4, Z5)
	STOREBETA(Z6, Z7)
	STOREBETA(Z8, Z9)
	STOREBETA(Z10, Z11)
	STOREBETA(Z12, Z13)
	STOREBETA(Z14, Z15)
	STOREBETA(Z16, Z17)
	STOREBETA(Z18, Z19)
	STOREBETA(Z20, Z21)
	STOREBETA(Z22, Z23)
	STOREBETA(Z24, Z25)
	STOREBETA(Z26, Z27)

next:
	// On to the next strip of A and 14 rows down C and the sums so far, if any rows are left.
	MOVQ R9, R10
	IMULQ $56, R10
	ADDQ R10, R12
	MOVQ SI, R10
	IMULQ $14, R10
	ADDQ R10, R13
	MOVQ 0(SP), R10
	TESTQ R10, R10
	JZ   nextrows
	MOVQ 8(SP), DX
	IMULQ $14, DX
	ADDQ DX, R10
	MOVQ R10, 0(SP)
nextrows:
	SUBQ $14, R11
	JG   tileloop
	VZEROUPPER
	RET
