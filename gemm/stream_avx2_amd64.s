//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The AVX2 streaming kernels, as those of stream_amd64.s for CPUs without AVX-512: R1 covers 1 row of A and
// 64 columns of B (8 ymm accumulators), R4 4 rows and 16 columns, R8 8 rows and 8 columns (one decoding
// for 8 rows). For each k they decode 8 elements of B at a time into a ymm register and add its product
// with a broadcast element of A to the sums, which they load from out and store back. For f8e4m3fn the
// kernels here are the exact ones, which the faster ones of stream_avx2_fast_amd64.s leave the blocks
// of B with a NaN code to; 9 to 16 rows run the kernel of stream16_avx2_amd64.s.
//
// func stream2TYPERn(k int, a *float32, b *byte, bstride int, out *float32)
//
// Decoding (Y10, Y11 scratch; constants Y12-Y15) is that of the AVX-512 kernels: f8e4m3fn through half
// precision (each byte sign-extended to a word, shifted left by 7, the copy of the sign in bit 14 cleared
// with 0xbf80 words in Y12: an f16 worth 2^-8 times the code's value, widened by VCVTPH2PS and multiplied
// by 2^8 in Y13, no subnormal float32 on the way), the NaN code found by a compare of words with its
// magnitude 0x3f80 (Y14) and turned from +-480 into the quiet NaN of its sign, exactly as package dtype
// decodes it, by flipping the bits of Y15.

#define DEC2_F8E4M3FN(off, y, x) \
	VPMOVSXBW off(BX), x; \
	VPSLLW $7, x, x; \
	VPAND X12, x, x; \
	VPAND X14, x, X10; \
	VPCMPEQW X14, X10, X10; \
	VCVTPH2PS x, y; \
	VMULPS Y13, y, y; \
	VPMOVSXWD X10, Y10; \
	VPAND Y15, Y10, Y10; \
	VPXOR Y10, y, y

#define DEC2_F8E5M2(off, y, x) \
	VPMOVZXBW off(BX), x; \
	VPSLLW $8, x, x; \
	VCVTPH2PS x, y

#define DEC2_S8(off, y, x) \
	VPMOVSXBD off(BX), y; \
	VCVTDQ2PS y, y

#define DEC2_BF16(off, y, x) \
	VPMOVZXWD off(BX), y; \
	VPSLLD $16, y, y

// CONSTS2 loads the decoding constants.
#define CONSTS2 \
	MOVL $0xbf80bf80, R8; \
	VMOVQ R8, X12; \
	VPBROADCASTD X12, Y12; \
	MOVL $0x43800000, R8; \
	VMOVQ R8, X13; \
	VPBROADCASTD X13, Y13; \
	MOVL $0x3f803f80, R8; \
	VMOVQ R8, X14; \
	VPBROADCASTD X14, Y14; \
	MOVL $0x3c300000, R8; \
	VMOVQ R8, X15; \
	VPBROADCASTD X15, Y15

// STREAM2R1, STREAM2R4 and STREAM2R8 are the bodies of the kernels of 1, 4 and 8 rows, after their
// arguments are loaded: dec decodes 8 elements of B at a time, of size bytes each. Each loads the decoding constants (CONSTS2), whichever the
// type uses.
#define STREAM2R1(dec, size) \
	CONSTS2; \
	YSUMSIN(0); \
loop: \
	VBROADCASTSS (AX), Y8; \
	dec(0, Y9, X9); \
	VFMADD231PS Y9, Y8, Y0; \
	dec(8*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y1; \
	dec(16*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y2; \
	dec(24*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y3; \
	dec(32*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y4; \
	dec(40*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y5; \
	dec(48*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y6; \
	dec(56*size, Y9, X9); \
	VFMADD231PS Y9, Y8, Y7; \
	ADDQ $4, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	YSUMSOUT(0); \
	VZEROUPPER; \
	RET

#define STREAM2R4(dec, size) \
	CONSTS2; \
	YSUMSIN(0); \
loop: \
	dec(0, Y8, X8); \
	dec(8*size, Y9, X9); \
	VBROADCASTSS 0(AX), Y10; \
	VFMADD231PS Y8, Y10, Y0; \
	VFMADD231PS Y9, Y10, Y1; \
	VBROADCASTSS 4(AX), Y10; \
	VFMADD231PS Y8, Y10, Y2; \
	VFMADD231PS Y9, Y10, Y3; \
	VBROADCASTSS 8(AX), Y10; \
	VFMADD231PS Y8, Y10, Y4; \
	VFMADD231PS Y9, Y10, Y5; \
	VBROADCASTSS 12(AX), Y10; \
	VFMADD231PS Y8, Y10, Y6; \
	VFMADD231PS Y9, Y10, Y7; \
	ADDQ $16, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	YSUMSOUT(0); \
	VZEROUPPER; \
	RET

#define STREAM2R8(dec) \
	CONSTS2; \
	YSUMSIN(0); \
loop: \
	dec(0, Y8, X8); \
	VBROADCASTSS 0(AX), Y9; \
	VFMADD231PS Y8, Y9, Y0; \
	VBROADCASTSS 4(AX), Y9; \
	VFMADD231PS Y8, Y9, Y1; \
	VBROADCASTSS 8(AX), Y9; \
	VFMADD231PS Y8, Y9, Y2; \
	VBROADCASTSS 12(AX), Y9; \
	VFMADD231PS Y8, Y9, Y3; \
	VBROADCASTSS 16(AX), Y9; \
	VFMADD231PS Y8, Y9, Y4; \
	VBROADCASTSS 20(AX), Y9; \
	VFMADD231PS Y8, Y9, Y5; \
	VBROADCASTSS 24(AX), Y9; \
	VFMADD231PS Y8, Y9, Y6; \
	VBROADCASTSS 28(AX), Y9; \
	VFMADD231PS Y8, Y9, Y7; \
	ADDQ $32, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	YSUMSOUT(0); \
	VZEROUPPER; \
	RET

// func stream2F8E4M3FNR1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E4M3FNR1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R1(DEC2_F8E4M3FN, 1)

// func stream2F8E5M2R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E5M2R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R1(DEC2_F8E5M2, 1)

// func stream2S8R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2S8R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R1(DEC2_S8, 1)

// func stream2BF16R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2BF16R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R1(DEC2_BF16, 2)

// func stream2F8E4M3FNR4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E4M3FNR4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R4(DEC2_F8E4M3FN, 1)

// func stream2F8E5M2R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E5M2R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R4(DEC2_F8E5M2, 1)

// func stream2S8R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2S8R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R4(DEC2_S8, 1)

// func stream2BF16R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2BF16R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R4(DEC2_BF16, 2)

// func stream2F8E4M3FNR8(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E4M3FNR8(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R8(DEC2_F8E4M3FN)

// func stream2F8E5M2R8(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2F8E5M2R8(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R8(DEC2_F8E5M2)

// func stream2S8R8(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2S8R8(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R8(DEC2_S8)

// func stream2BF16R8(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·stream2BF16R8(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAM2R8(DEC2_BF16)

// The AVX2 decoders for packing, where the machine has no AVX-512: the same decoding, 8 elements at a
// time (n a multiple of 8), stored as float32.

// func decodeF8E4M3FNAVX2(dst *float32, src *byte, n int)
TEXT ·decodeF8E4M3FNAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), BX
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done
	CONSTS2

loop:
	DEC2_F8E4M3FN(0, Y0, X0)
	VMOVUPS Y0, (DI)
	ADDQ $8, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func decodeF8E5M2AVX2(dst *float32, src *byte, n int)
TEXT ·decodeF8E5M2AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), BX
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done
	MOVL $0x003fffff, R8 // the payload bits below the quiet bit
	VMOVQ R8, X13
	VPBROADCASTD X13, Y13

loop:
	DEC2_F8E5M2(0, Y0, X0)
	VCMPPS $3, Y0, Y0, Y11 // NaN lanes: canonical NaN of their sign, as package dtype decodes them
	VPAND  Y13, Y11, Y11
	VPANDN Y0, Y11, Y0
	VMOVUPS Y0, (DI)
	ADDQ $8, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func widenBF16AVX2(dst *float32, src *byte, n int)
TEXT ·widenBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), BX
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done

loop:
	DEC2_BF16(0, Y0, X0)
	VMOVUPS Y0, (DI)
	ADDQ $16, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
