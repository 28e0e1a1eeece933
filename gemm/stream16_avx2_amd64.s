//go:build !purego

#include "textflag.h"

// The AVX2 streaming kernels for 9 to 16 rows. 16 rows of sums by 8 columns would need 16 ymm
// accumulators, all there are, and groups of 8 rows would decode B twice, at one broadcast of A per
// multiply-add. Instead a block of B, k x 16, is decoded once into a float32 buffer (16 KiB for the 256
// steps of a streamBlock, which stays in L1), and stream2F32R16 multiplies it by the 16 rows of A in
// register tiles of 6x16 (rows 0-5, 6-11) and 4x16 (rows 12-15), each adding its products to out in order of
// k, as the other kernels do.
//
// func decode2TYPE16(k int, b *byte, bstride int, dst *float32)
// func stream2F32R16(k int, a *float32, b *float32, out *float32)

// DEC16_F8E4M3FN_FAST is the half-precision decoding of stream_avx2_fast_amd64.s (X14 0xbf80 words, Y13
// 2^8), exact but for the NaN code.
#define DEC16_F8E4M3FN_FAST(off, y, x) \
	VPMOVSXBW off(BX), x; \
	VPSLLW $7, x, x; \
	VPAND X14, x, x; \
	VCVTPH2PS x, y; \
	VMULPS Y13, y, y

#define DEC16_F8E5M2(off, y, x) \
	VPMOVZXBW off(BX), x; \
	VPSLLW $8, x, x; \
	VCVTPH2PS x, y

#define DEC16_S8(off, y, x) \
	VPMOVSXBD off(BX), y; \
	VCVTDQ2PS y, y

#define DEC16_BF16(off, y, x) \
	VPMOVZXWD off(BX), y; \
	VPSLLD $16, y, y

#define ARGS16 \
	MOVQ k+0(FP), CX; \
	MOVQ b+8(FP), BX; \
	MOVQ bstride+16(FP), DX; \
	MOVQ dst+24(FP), DI

// ROWS6(ao) adds one step of k to the 6x16 tile in Y0-Y11: B row at (BX), A's 6 rows from ao(AX).
#define ROWS6(ao) \
	VMOVUPS 0(BX), Y12; \
	VMOVUPS 32(BX), Y13; \
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

// ROWS4(ao) is ROWS6 for the 4x16 tile in Y0-Y7.
#define ROWS4(ao) \
	VMOVUPS 0(BX), Y12; \
	VMOVUPS 32(BX), Y13; \
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
rows0:
	ROWS6(0)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  rows0
	STORE12(0)

	// Rows 6-11.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(384)
rows6:
	ROWS6(24)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  rows6
	STORE12(384)

	// Rows 12-15.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD8(768)
rows12:
	ROWS4(48)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  rows12
	STORE8(768)
	VZEROUPPER
	RET

// func decode2F8E4M3FN16Fast(k int, b *byte, bstride int, dst *float32) bool
// It returns false where the block holds a NaN code (0x7f, 0xff), which it decodes wrongly; Y11 keeps the
// largest byte or'ed with 0x80 (Y12), as in stream_avx2_fast_amd64.s.
TEXT ·decode2F8E4M3FN16Fast(SB), NOSPLIT, $0-33
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
loop:
	VPOR (BX), X12, X10
	VPMAXUB X10, X11, X11
	DEC16_F8E4M3FN_FAST(0, Y0, X0)
	DEC16_F8E4M3FN_FAST(8, Y1, X1)
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VPCMPEQB X15, X15, X15
	VPCMPEQB X15, X11, X11
	VPMOVMSKB X11, R8
	TESTL R8, R8
	SETEQ ret+32(FP)
	VZEROUPPER
	RET

// func decode2F8E5M216(k int, b *byte, bstride int, dst *float32)
TEXT ·decode2F8E5M216(SB), NOSPLIT, $0-32
	ARGS16
loop:
	DEC16_F8E5M2(0, Y0, X0)
	DEC16_F8E5M2(8, Y1, X1)
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func decode2S816(k int, b *byte, bstride int, dst *float32)
TEXT ·decode2S816(SB), NOSPLIT, $0-32
	ARGS16
loop:
	DEC16_S8(0, Y0, X0)
	DEC16_S8(8, Y1, X1)
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET

// func decode2BF1616(k int, b *byte, bstride int, dst *float32)
TEXT ·decode2BF1616(SB), NOSPLIT, $0-32
	ARGS16
loop:
	DEC16_BF16(0, Y0, X0)
	DEC16_BF16(16, Y1, X1)
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER
	RET
