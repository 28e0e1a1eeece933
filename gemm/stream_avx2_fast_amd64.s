//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The fast f8e4m3fn kernels: as the others, but decoding through half precision in 5 instructions (8 for
// 16 elements) instead of 10 in a longer chain: each byte is sign-extended to a word and shifted left by
// 7, so that its 4 exponent bits are the low 4 of an f16's exponent and its 3 mantissa bits the top 3 of
// the f16's mantissa; the copy of the sign in bit 14 is cleared (X14 = 0xbf80 words); VCVTPH2PS widens
// that f16, whose value is the code's times 2^-8 (the biases are 15 and 7), subnormals included,
// exactly; VMULPS by 2^8 (Y13) restores it, exactly. Only the NaN code (0x7f, 0xff) is decoded wrongly
// (to +-480), so the kernels also take the largest of every byte of B or'ed with 0x80 (Y12) in Y11, a
// byte 0xff of which means a NaN code was read: they then return false and leave out untouched, for the
// exact kernel to do the work. They return true after storing
// their sums otherwise.
//
// func stream2F8E4M3FNRnFast(k int, a *float32, b *byte, bstride int, out *float32) bool

#define DEC2_F8E4M3FN_FAST(off, y, x) \
	VPMOVSXBW off(BX), x; \
	VPSLLW $7, x, x; \
	VPAND X14, x, x; \
	VCVTPH2PS x, y; \
	VMULPS Y13, y, y

// DEC2_F8E4M3FN_FAST16 decodes 16 elements as DEC2_F8E4M3FN_FAST does 8, into y0 (the first 8) and y1,
// sign-extending and masking them in one ymm register.
#define DEC2_F8E4M3FN_FAST16(off, y0, x0, y1, x1) \
	VPMOVSXBW off(BX), y0; \
	VPSLLW $7, y0, y0; \
	VPAND Y14, y0, y0; \
	VEXTRACTI128 $1, y0, x1; \
	VCVTPH2PS x0, y0; \
	VCVTPH2PS x1, y1; \
	VMULPS Y13, y0, y0; \
	VMULPS Y13, y1, y1

// NANCHECKn folds the n bytes of B at off(BX) into Y11 (Y10 scratch).
#define NANCHECK32(off) \
	VPOR off(BX), Y12, Y10; \
	VPMAXUB Y10, Y11, Y11

#define NANCHECK16(off) \
	VPOR off(BX), X12, X10; \
	VPMAXUB X10, X11, X11

#define NANCHECK8(off) \
	VMOVQ off(BX), X10; \
	VPOR X12, X10, X10; \
	VPMAXUB X10, X11, X11

// CONSTS2FAST loads the decoding constants and clears the NaN check.
#define CONSTS2FAST \
	MOVL $0x80808080, R8; \
	VMOVQ R8, X12; \
	VPBROADCASTD X12, Y12; \
	MOVL $0x43800000, R8; \
	VMOVQ R8, X13; \
	VPBROADCASTD X13, Y13; \
	MOVL $0xbf80bf80, R8; \
	VMOVQ R8, X14; \
	VPBROADCASTD X14, Y14; \
	VPXOR Y11, Y11, Y11

// NANEXIT jumps to nan when a byte of Y11 is 0xff.
#define NANEXIT \
	VPCMPEQB Y15, Y15, Y15; \
	VPCMPEQB Y15, Y11, Y11; \
	VPMOVMSKB Y11, R8; \
	TESTL R8, R8; \
	JNZ nan

// func stream2F8E4M3FNR1Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·stream2F8E4M3FNR1Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS2FAST
	YSUMSIN(0)
loop:
	NANCHECK32(0)
	NANCHECK32(32)
	VBROADCASTSS (AX), Y8
	DEC2_F8E4M3FN_FAST16(0, Y9, X9, Y15, X15)
	VFMADD231PS Y9, Y8, Y0
	VFMADD231PS Y15, Y8, Y1
	DEC2_F8E4M3FN_FAST16(16, Y9, X9, Y15, X15)
	VFMADD231PS Y9, Y8, Y2
	VFMADD231PS Y15, Y8, Y3
	DEC2_F8E4M3FN_FAST16(32, Y9, X9, Y15, X15)
	VFMADD231PS Y9, Y8, Y4
	VFMADD231PS Y15, Y8, Y5
	DEC2_F8E4M3FN_FAST16(48, Y9, X9, Y15, X15)
	VFMADD231PS Y9, Y8, Y6
	VFMADD231PS Y15, Y8, Y7
	ADDQ $4, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	YSUMSOUT(0)
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// func stream2F8E4M3FNR4Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·stream2F8E4M3FNR4Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS2FAST
	YSUMSIN(0)
loop:
	NANCHECK16(0)
	DEC2_F8E4M3FN_FAST16(0, Y8, X8, Y9, X9)
	VBROADCASTSS 0(AX), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VBROADCASTSS 4(AX), Y10
	VFMADD231PS Y8, Y10, Y2
	VFMADD231PS Y9, Y10, Y3
	VBROADCASTSS 8(AX), Y10
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y10, Y5
	VBROADCASTSS 12(AX), Y10
	VFMADD231PS Y8, Y10, Y6
	VFMADD231PS Y9, Y10, Y7
	ADDQ $16, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	YSUMSOUT(0)
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// func stream2F8E4M3FNR8Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·stream2F8E4M3FNR8Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS2FAST
	YSUMSIN(0)
loop:
	NANCHECK8(0)
	DEC2_F8E4M3FN_FAST(0, Y8, X8)
	VBROADCASTSS 0(AX), Y9
	VFMADD231PS Y8, Y9, Y0
	VBROADCASTSS 4(AX), Y9
	VFMADD231PS Y8, Y9, Y1
	VBROADCASTSS 8(AX), Y9
	VFMADD231PS Y8, Y9, Y2
	VBROADCASTSS 12(AX), Y9
	VFMADD231PS Y8, Y9, Y3
	VBROADCASTSS 16(AX), Y9
	VFMADD231PS Y8, Y9, Y4
	VBROADCASTSS 20(AX), Y9
	VFMADD231PS Y8, Y9, Y5
	VBROADCASTSS 24(AX), Y9
	VFMADD231PS Y8, Y9, Y6
	VBROADCASTSS 28(AX), Y9
	VFMADD231PS Y8, Y9, Y7
	ADDQ $32, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	YSUMSOUT(0)
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET
