//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The streaming kernels for products with few rows (M <= 16) and a narrow B: every element of B is read
// once, decoded in registers and multiplied by a broadcast element of A; nothing of B is packed or
// written. A is packed k-major (for each k, the R elements a(0..R-1, k), R = 1, 4 or 16, zero rows past M).
// B is read from b: for each k, 64 consecutive elements (R1, R4) or 16 (R16); bstride bytes between k.
// The sums are added to out, R rows of 64 (R1, R4) or 16 (R16) float32, in order of k, so that a product
// can be streamed in blocks of k with the same result: the caller scales and stores them at the end.
//
// func streamTYPERn(k int, a *float32, b *byte, bstride int, out *float32)
//
// Decoding, 16 elements into a zmm register z (Y24 and K1 are scratch):
//   f8e4m3fn: through half precision, as the fast kernels of stream_avx512_fast_amd64.s do: each byte
//             sign-extended to a word and shifted left by 7, the copy of the sign in bit 14 cleared (Y28 =
//             0xbf80 words), is an f16 whose value is 2^-8 times the element's (subnormals included);
//             VCVTPH2PS widens it and VMULPS by 2^8 (Z29) restores the value, exactly. The NaN code
//             (magnitude 0x7f, the f16's 0x3f80, Y30) is found by a compare of words and becomes a NaN of
//             its sign (Z31 or'ed in). No step takes a subnormal float32 in or out, which Intel's cores
//             handle through a slow microcode assist.
//   f8e5m2:   the element is the high byte of a binary16: VCVTPH2PS widens it exactly, NaN and infinities
//             included.
//   s8:       VCVTDQ2PS of the sign-extended byte (exact).
//   bf16:     the high half of a float32.
// For f8e4m3fn the kernels here are the exact ones, which the faster ones of stream_avx512_fast_amd64.s
// (a shorter decoding, exact but for the NaN code) leave the blocks of B with a NaN code to.

#define DEC_F8E4M3FN(off, z, y) \
	VPMOVSXBW off(BX), y; \
	VPSLLW $7, y, y; \
	VPANDD Y28, y, y; \
	VPANDD Y30, y, Y24; \
	VPCMPEQW Y30, Y24, K1; \
	VCVTPH2PS y, z; \
	VMULPS Z29, z, z; \
	VPORD Z31, z, K1, z

#define DEC_F8E5M2(off, z, y) \
	VPMOVZXBW off(BX), y; \
	VPSLLW $8, y, y; \
	VCVTPH2PS y, z

#define DEC_S8(off, z, y) \
	VPMOVSXBD off(BX), z; \
	VCVTDQ2PS z, z

#define DEC_BF16(off, z, y) \
	VPMOVZXWD off(BX), z; \
	VPSLLD $16, z, z

// CONSTS loads the decoding constants.
#define CONSTS \
	MOVL $0xbf80bf80, R8; \
	VPBROADCASTD R8, Z28; \
	MOVL $0x43800000, R8; \
	VPBROADCASTD R8, Z29; \
	MOVL $0x3f803f80, R8; \
	VPBROADCASTD R8, Z30; \
	MOVL $0x7fc00000, R8; \
	VPBROADCASTD R8, Z31

// STREAMR1, STREAMR4 and STREAMR16 are the bodies of the kernels of 1, 4 and 16 rows, after their
// arguments are loaded: dec decodes 16 elements of B at a time, of size bytes each. Each loads the
// decoding constants (CONSTS), whichever the type uses.
#define STREAMR1(dec, size) \
	CONSTS; \
	SUMSIN4; \
loop: \
	VBROADCASTSS (AX), Z8; \
	dec(0, Z4, Y4); \
	dec(16*size, Z5, Y5); \
	dec(32*size, Z6, Y6); \
	dec(48*size, Z7, Y7); \
	VFMADD231PS Z4, Z8, Z0; \
	VFMADD231PS Z5, Z8, Z1; \
	VFMADD231PS Z6, Z8, Z2; \
	VFMADD231PS Z7, Z8, Z3; \
	ADDQ $4, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	SUMSOUT4; \
	VZEROUPPER; \
	RET

#define STREAMR4(dec, size) \
	CONSTS; \
	SUMSIN16; \
loop: \
	dec(0, Z16, Y16); \
	dec(16*size, Z17, Y17); \
	dec(32*size, Z18, Y18); \
	dec(48*size, Z19, Y19); \
	FMAR4; \
	ADDQ $16, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	SUMSOUT16; \
	VZEROUPPER; \
	RET

#define STREAMR16(dec) \
	CONSTS; \
	SUMSIN16; \
loop: \
	dec(0, Z16, Y16); \
	FMAR16; \
	ADDQ $64, AX; \
	ADDQ DX, BX; \
	DECQ CX; \
	JNZ  loop; \
	SUMSOUT16; \
	VZEROUPPER; \
	RET

// func streamF8E4M3FNR1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E4M3FNR1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR1(DEC_F8E4M3FN, 1)

// func streamF8E4M3FNR4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E4M3FNR4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR4(DEC_F8E4M3FN, 1)

// func streamF8E4M3FNR16(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E4M3FNR16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR16(DEC_F8E4M3FN)

// func streamF8E5M2R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E5M2R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR1(DEC_F8E5M2, 1)

// func streamF8E5M2R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E5M2R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR4(DEC_F8E5M2, 1)

// func streamF8E5M2R16(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamF8E5M2R16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR16(DEC_F8E5M2)

// func streamS8R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamS8R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR1(DEC_S8, 1)

// func streamS8R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamS8R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR4(DEC_S8, 1)

// func streamS8R16(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamS8R16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR16(DEC_S8)

// func streamBF16R1(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamBF16R1(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR1(DEC_BF16, 2)

// func streamBF16R4(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamBF16R4(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR4(DEC_BF16, 2)

// func streamBF16R16(k int, a *float32, b *byte, bstride int, out *float32)
TEXT ·streamBF16R16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	STREAMR16(DEC_BF16)

// The decoders of whole panels (PANELDEC) for the buffered kernels of 8 rows: ROW64 decodes the 64
// elements of a row (dec, of size bytes each); PF64 fetches a row ahead, its first and last byte (its line,
// or its two of bf16).
#define ROW64(dec, size) \
	dec(0, Z16, Y16); \
	dec(16*size, Z17, Y17); \
	dec(32*size, Z18, Y18); \
	dec(48*size, Z19, Y19)

#define PF64(size) \
	PREFETCHT0 (R9); \
	PREFETCHT0 (64*size-1)(R9)

// func decodeF8E4M3FNPanel(k int, b *byte, bstride int, dst *float32, pf *byte)
TEXT ·decodeF8E4M3FNPanel(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ pf+32(FP), R9
	PANELDEC(CONSTS, PF64(1), ROW64(DEC_F8E4M3FN, 1))

// func decodeF8E5M2Panel(k int, b *byte, bstride int, dst *float32, pf *byte)
TEXT ·decodeF8E5M2Panel(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ pf+32(FP), R9
	PANELDEC(CONSTS, PF64(1), ROW64(DEC_F8E5M2, 1))

// func decodeS8Panel(k int, b *byte, bstride int, dst *float32, pf *byte)
TEXT ·decodeS8Panel(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ pf+32(FP), R9
	PANELDEC(CONSTS, PF64(1), ROW64(DEC_S8, 1))

// func decodeBF16Panel(k int, b *byte, bstride int, dst *float32, pf *byte)
TEXT ·decodeBF16Panel(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ pf+32(FP), R9
	PANELDEC(CONSTS, PF64(2), ROW64(DEC_BF16, 2))
