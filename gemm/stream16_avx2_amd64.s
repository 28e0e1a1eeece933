//go:build !purego

#include "textflag.h"

// The AVX2 streaming kernels for 9 to 16 rows. 16 rows of sums by 8 columns would need 16 ymm
// accumulators, all there are, and groups of 8 rows would decode B twice, at one broadcast of A per
// multiply-add. Instead a block of B, k x 16, is decoded once into a float32 buffer (16 KiB for the 256
// steps of a streamBlock, which stays in L1), and stream2F32R16 multiplies it by the 16 rows of A in
// register tiles of 6x16 (rows 0-5, 6-11) and 4x16 (rows 12-15), each adding its products to out in order of
// k, as the other kernels do.
//
// func decode2TYPE16(k int, b *byte, bstride int, dst *float32, groups int)
//
// The decoders write groups (1 or 4) blocks of k x 16 columns, column block g at dst + g*streamBlock*16
// floats: a row-major B is decoded a whole panel (4 blocks) at a time, so that each of its rows, in a page
// of its own, is visited once; a packed B, contiguous, 16 columns at a time, which stay in L1.
// func stream2F32R16(k int, a *float32, b *float32, out *float32)

// DEC16_F8E4M3FN_FAST is the half-precision decoding of stream_avx2_fast_amd64.s (X14 0xbf80 words, Y13
// 2^8), exact but for the NaN code.
#define DEC16_F8E4M3FN_FAST(off, y, x) \
	VPMOVSXBW off(SI), x; \
	VPSLLW $7, x, x; \
	VPAND X14, x, x; \
	VCVTPH2PS x, y; \
	VMULPS Y13, y, y

#define DEC16_F8E5M2(off, y, x) \
	VPMOVZXBW off(SI), x; \
	VPSLLW $8, x, x; \
	VCVTPH2PS x, y

#define DEC16_S8(off, y, x) \
	VPMOVSXBD off(SI), y; \
	VCVTDQ2PS y, y

#define DEC16_BF16(off, y, x) \
	VPMOVZXWD off(SI), y; \
	VPSLLD $16, y, y

#define ARGS16 \
	MOVQ k+0(FP), CX; \
	MOVQ b+8(FP), BX; \
	MOVQ bstride+16(FP), DX; \
	MOVQ dst+24(FP), DI; \
	MOVQ groups+32(FP), R9

// ROWS6(ao, bo) adds one step of k to the 6x16 tile in Y0-Y11: B row at bo(BX), A's 6 rows from ao(AX).
#define ROWS6(ao, bo) \
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

// ROWS4(ao, bo) is ROWS6 for the 4x16 tile in Y0-Y7.
#define ROWS4(ao, bo) \
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
	VFMADD231PS Y13, Y15, Y7

#define LOAD8(o) \
	VMOVUPS o+0(DI), Y0; \
	VMOVUPS o+32(DI), Y1; \
	VMOVUPS o+64(DI), Y2; \
	VMOVUPS o+96(DI), Y3; \
	VMOVUPS o+128(DI), Y4; \
	VMOVUPS o+160(DI), Y5; \
	VMOVUPS o+192(DI), Y6; \
	VMOVUPS o+224(DI), Y7

#define STORE8(o) \
	VMOVUPS Y0, o+0(DI); \
	VMOVUPS Y1, o+32(DI); \
	VMOVUPS Y2, o+64(DI); \
	VMOVUPS Y3, o+96(DI); \
	VMOVUPS Y4, o+128(DI); \
	VMOVUPS Y5, o+160(DI); \
	VMOVUPS Y6, o+192(DI); \
	VMOVUPS Y7, o+224(DI)

#define LOAD12(o) \
	LOAD8(o); \
	VMOVUPS o+256(DI), Y8; \
	VMOVUPS o+288(DI), Y9; \
	VMOVUPS o+320(DI), Y10; \
	VMOVUPS o+352(DI), Y11

#define STORE12(o) \
	STORE8(o); \
	VMOVUPS Y8, o+256(DI); \
	VMOVUPS Y9, o+288(DI); \
	VMOVUPS Y10, o+320(DI); \
	VMOVUPS Y11, o+352(DI)

// func stream2F32R16(k int, a *float32, b *float32, out *float32)
TEXT ·stream2F32R16(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI

	// Rows 0-5.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(0)
	SHRQ $1, CX
	JZ   rows0odd
rows0:
	ROWS6(0, 0)
	ROWS6(0+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows0
rows0odd:
	TESTQ $1, R9
	JZ   rows0done
	ROWS6(0, 0)
rows0done:
	STORE12(0)

	// Rows 6-11.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(384)
	SHRQ $1, CX
	JZ   rows6odd
rows6:
	ROWS6(24, 0)
	ROWS6(24+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows6
rows6odd:
	TESTQ $1, R9
	JZ   rows6done
	ROWS6(24, 0)
rows6done:
	STORE12(384)

	// Rows 12-15.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD8(768)
	SHRQ $1, CX
	JZ   rows12odd
rows12:
	ROWS4(48, 0)
	ROWS4(48+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows12
rows12odd:
	TESTQ $1, R9
	JZ   rows12done
	ROWS4(48, 0)
rows12done:
	STORE8(768)
	VZEROUPPER
	RET

// func decode2F8E4M3FN16Fast(k int, b *byte, bstride int, dst *float32, groups int) bool
// It returns false where the block holds a NaN code (0x7f, 0xff), which it decodes wrongly; Y11 keeps the
// largest byte or'ed with 0x80 (Y12), as in stream_avx2_fast_amd64.s.
TEXT ·decode2F8E4M3FN16Fast(SB), NOSPLIT, $0-41
	ARGS16
	MOVL $0x80808080, R8
	MOVQ R8, X12
	VPBROADCASTD X12, Y12
	MOVL $0x43800000, R8
	MOVQ R8, X13
	VPBROADCASTD X13, Y13
	MOVL $0xbf80bf80, R8
	MOVQ R8, X14
	VPBROADCASTD X14, Y14
	VPXOR Y11, Y11, Y11
row:
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	VPOR (SI), X12, X10
	VPMAXUB X10, X11, X11
	DEC16_F8E4M3FN_FAST(0, Y0, X0)
	DEC16_F8E4M3FN_FAST(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $16384, R10
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VPCMPEQB X15, X15, X15
	VPCMPEQB X15, X11, X11
	VPMOVMSKB X11, R8
	TESTL R8, R8
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

// func decode2F8E5M216(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2F8E5M216(SB), NOSPLIT, $0-40
	ARGS16
row:
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_F8E5M2(0, Y0, X0)
	DEC16_F8E5M2(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $16384, R10
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// func decode2S816(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2S816(SB), NOSPLIT, $0-40
	ARGS16
row:
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_S8(0, Y0, X0)
	DEC16_S8(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $16384, R10
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// func decode2BF1616(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2BF1616(SB), NOSPLIT, $0-40
	ARGS16
row:
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_BF16(0, Y0, X0)
	DEC16_BF16(16, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $32, SI
	ADDQ $16384, R10
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET
