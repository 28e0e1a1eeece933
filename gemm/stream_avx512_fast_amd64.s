//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The fast f8e4m3fn kernels for AVX-512: as streamF8E4M3FNRn (stream_amd64.s), but decoding 16 elements
// in 5 short instructions instead of 8 in a longer chain, and leaving the NaN code to the exact kernels.
// They decode through half precision (DEC5_F16), as the AVX2 fast kernels do (stream_avx2_fast_amd64.s),
// the integer steps on ymm words, leaving the 512-bit units to the multiply-adds: VPMOVSXBW sign-extends
// each byte to a word, VPSLLW by 7 puts its 4 exponent bits in the low 4 of an f16's exponent and its 3
// mantissa bits in the top 3 of the f16's mantissa, VPANDD with 0xbf80 words (Y26) clears the copy of the
// sign in bit 14; VCVTPH2PS widens the f16, whose value is the code's times 2^-8 (the biases are 15 and
// 7), subnormals included, exactly, and VMULPS by 2^8 (Z25) restores it, exactly. No step takes a
// subnormal float32 in or out: a decoding through single precision (the bits shifted into a float32 worth
// 2^-120 times the code's value, then times 2^120) is as short, but the float32 of a subnormal code is
// subnormal, and Intel's cores multiply those through a microcode assist, a hundred cycles or more (one
// row by a 4096 x 4096 B of random codes ran at 1.4 GFLOP/s on Sapphire Rapids).
// Both decode the NaN code (0x7f, 0xff), and it alone, wrongly (to +-480), so the kernels also take the
// largest of every byte of B or'ed with 0x80 (Z31) in Z28, a byte 0xff of which means a NaN code was read:
// they then return false and leave out untouched, for the exact kernel to do the work; they return true
// after storing their sums otherwise.
//
// func streamF8E4M3FNRnFast(k int, a *float32, b *byte, bstride int, out *float32) bool

// DEC5_F16 decodes the 16 elements at off(BX) into z.
#define DEC5_F16(off, z, y) \
	VPMOVSXBW off(BX), y; \
	VPSLLW $7, y, y; \
	VPANDD Y26, y, y; \
	VCVTPH2PS y, z; \
	VMULPS Z25, z, z

// NANCHECKn folds the n bytes of B at off(BX) into Z28 (Z27 scratch).
#define NANCHECK64(off) \
	VPORD off(BX), Z31, Z27; \
	VPMAXUB Z27, Z28, Z28

#define NANCHECK16(off) \
	VPORD off(BX), X31, X27; \
	VPMAXUB X27, X28, X28

// CONSTS5FAST loads the NaN check's constant and clears the check.
#define CONSTS5FAST \
	MOVL $0x80808080, R8; \
	VPBROADCASTD R8, Z31; \
	VPXORD Z28, Z28, Z28

// SETUP5_F16 loads the constants of DEC5_F16.
#define SETUP5_F16 \
	MOVL $0x43800000, R8; \
	VPBROADCASTD R8, Z25; \
	MOVL $0xbf80bf80, R8; \
	VPBROADCASTD R8, Z26

// NANEXIT jumps to nan when a byte of Z28 is 0xff.
#define NANEXIT \
	VPTERNLOGD $0xff, Z27, Z27, Z27; \
	VPCMPEQB Z27, Z28, K1; \
	KORTESTQ K1, K1; \
	JNZ nan

// func streamF8E4M3FNR1Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·streamF8E4M3FNR1Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS5FAST
	SETUP5_F16
	SUMSIN4
loop:
	NANCHECK64(0)
	VBROADCASTSS (AX), Z8
	DEC5_F16(0, Z4, Y4)
	DEC5_F16(16, Z5, Y5)
	DEC5_F16(32, Z6, Y6)
	DEC5_F16(48, Z7, Y7)
	VFMADD231PS Z4, Z8, Z0
	VFMADD231PS Z5, Z8, Z1
	VFMADD231PS Z6, Z8, Z2
	VFMADD231PS Z7, Z8, Z3
	ADDQ $4, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	SUMSOUT4
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// func streamF8E4M3FNR4Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·streamF8E4M3FNR4Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS5FAST
	SETUP5_F16
	SUMSIN16
loop:
	NANCHECK64(0)
	DEC5_F16(0, Z16, Y16)
	DEC5_F16(16, Z17, Y17)
	DEC5_F16(32, Z18, Y18)
	DEC5_F16(48, Z19, Y19)
	FMAR4
	ADDQ $16, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	SUMSOUT16
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// func streamF8E4M3FNR16Fast(k int, a *float32, b *byte, bstride int, out *float32) bool
TEXT ·streamF8E4M3FNR16Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	CONSTS5FAST
	SETUP5_F16
	SUMSIN16
loop:
	NANCHECK16(0)
	DEC5_F16(0, Z16, Y16)
	FMAR16
	ADDQ $64, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	SUMSOUT16
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET
