//go:build !purego

#include "textflag.h"

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
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
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
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
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
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 512(DI), Z8
	VMOVUPS 576(DI), Z9
	VMOVUPS 640(DI), Z10
	VMOVUPS 704(DI), Z11
	VMOVUPS 768(DI), Z12
	VMOVUPS 832(DI), Z13
	VMOVUPS 896(DI), Z14
	VMOVUPS 960(DI), Z15
loop:
	NANCHECK64(0)
	DEC5_F16(0, Z16, Y16)
	DEC5_F16(16, Z17, Y17)
	DEC5_F16(32, Z18, Y18)
	DEC5_F16(48, Z19, Y19)
	VBROADCASTSS 0(AX), Z20
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VBROADCASTSS 4(AX), Z21
	VFMADD231PS Z16, Z21, Z4
	VFMADD231PS Z17, Z21, Z5
	VFMADD231PS Z18, Z21, Z6
	VFMADD231PS Z19, Z21, Z7
	VBROADCASTSS 8(AX), Z20
	VFMADD231PS Z16, Z20, Z8
	VFMADD231PS Z17, Z20, Z9
	VFMADD231PS Z18, Z20, Z10
	VFMADD231PS Z19, Z20, Z11
	VBROADCASTSS 12(AX), Z21
	VFMADD231PS Z16, Z21, Z12
	VFMADD231PS Z17, Z21, Z13
	VFMADD231PS Z18, Z21, Z14
	VFMADD231PS Z19, Z21, Z15
	ADDQ $16, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VMOVUPS Z12, 768(DI)
	VMOVUPS Z13, 832(DI)
	VMOVUPS Z14, 896(DI)
	VMOVUPS Z15, 960(DI)
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
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 512(DI), Z8
	VMOVUPS 576(DI), Z9
	VMOVUPS 640(DI), Z10
	VMOVUPS 704(DI), Z11
	VMOVUPS 768(DI), Z12
	VMOVUPS 832(DI), Z13
	VMOVUPS 896(DI), Z14
	VMOVUPS 960(DI), Z15
loop:
	NANCHECK16(0)
	DEC5_F16(0, Z16, Y16)
	VFMADD231PS.BCST 0(AX), Z16, Z0
	VFMADD231PS.BCST 4(AX), Z16, Z1
	VFMADD231PS.BCST 8(AX), Z16, Z2
	VFMADD231PS.BCST 12(AX), Z16, Z3
	VFMADD231PS.BCST 16(AX), Z16, Z4
	VFMADD231PS.BCST 20(AX), Z16, Z5
	VFMADD231PS.BCST 24(AX), Z16, Z6
	VFMADD231PS.BCST 28(AX), Z16, Z7
	VFMADD231PS.BCST 32(AX), Z16, Z8
	VFMADD231PS.BCST 36(AX), Z16, Z9
	VFMADD231PS.BCST 40(AX), Z16, Z10
	VFMADD231PS.BCST 44(AX), Z16, Z11
	VFMADD231PS.BCST 48(AX), Z16, Z12
	VFMADD231PS.BCST 52(AX), Z16, Z13
	VFMADD231PS.BCST 56(AX), Z16, Z14
	VFMADD231PS.BCST 60(AX), Z16, Z15
	ADDQ $64, AX
	ADDQ DX, BX
	DECQ CX
	JNZ  loop
	NANEXIT
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 512(DI)
	VMOVUPS Z9, 576(DI)
	VMOVUPS Z10, 640(DI)
	VMOVUPS Z11, 704(DI)
	VMOVUPS Z12, 768(DI)
	VMOVUPS Z13, 832(DI)
	VMOVUPS Z14, 896(DI)
	VMOVUPS Z15, 960(DI)
	MOVB $1, ret+40(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET
