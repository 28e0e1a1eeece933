//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"
#include "vbmi_amd64.h"

// The streaming kernels of 1 and 4 rows for the 8-bit types whose every value is a bfloat16 (f8e4m3fn:
// 3 mantissa bits, exponents from 2^-9 to 2^8; f8e5m2: 2 mantissa bits, from 2^-16 to 2^15, infinities
// and NaNs), for CPUs with AVX-512 VBMI (Ice Lake, Zen 4 and later): 64 elements decoded at a time by byte
// lookups, exactly, NaN codes included (so there is no fast path to fall back from).
//
// A code's value is the high half of its float32, a bfloat16. VPERMI2B looks up, among the 128 bytes of
// two zmm registers, the low and the high byte of the bfloat16 of the code's magnitude (its 7 low bits; a
// lookup ignores an index's bit 7) for 64 codes at once, in the table at tab (bf16Table: the 128 low
// bytes, then the 128 high ones); VPTERNLOGD ors the code's sign bit into the high byte. VPUNPCKLBW and
// VPUNPCKHBW pair the bytes into words within each 128-bit lane: the bfloat16 values of a lane's bytes 0-7,
// and 8-15. A shift left by 16 widens the even words to float32 and a mask of 0xffff0000 the odd ones. So
// of the 16 columns 16L..16L+15 of lane L, the four vectors take, in their lane L, the columns 16L +
// {0,2,4,6}, {1,3,5,7}, {8,10,12,14} and {9,11,13,15}. The sums stay in that order in out, from call to
// call (vbmiSums says where each column's is), and are put in order only as C is stored. 13 vector
// instructions per 64 elements with the multiply-adds, where the f8e4m3fn decoding through half
// precision takes 30 with its NaN check and the f8e5m2 one 20.
//
// While they read the k rows of B at b they prefetch as many at pf, bstride bytes apart, into L1: the
// same steps of k of the panel multiplied next, which lies a panel away (a page of packed weights, which
// the hardware's prefetchers do not fetch before it is read).
//
// func streamF8RnVBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte, tab *[256]byte)

// TABLES loads the lookup tables at R10 (low bytes in Z26, Z27; high bytes in Z28, Z29), the sign's mask
// (Z30) and the high words' (Z31).
#define TABLES \
	VMOVDQU64 0(R10), Z26; \
	VMOVDQU64 64(R10), Z27; \
	VMOVDQU64 128(R10), Z28; \
	VMOVDQU64 192(R10), Z29; \
	MOVL $0x80808080, R8; \
	VPBROADCASTD R8, Z30; \
	MOVL $0xffff0000, R8; \
	VPBROADCASTD R8, Z31

// DECODE64 decodes the 64 codes at (BX) into z0-z3 (Z22-Z25 scratch; the tables and masks of TABLES).
#define DECODE64(z0, z1, z2, z3) LOOKUP64(Z26, Z27, Z28, Z29, Z30, Z31, Z22, Z23, Z24, Z25, z0, z1, z2, z3)

// VBMISTREAM is the body of the kernels of 1 and 4 rows, after their arguments are loaded: the sums in
// and out (sumsin, sumsout) and the loop over k, each row of B decoded into Z16-Z19 and multiplied by the
// row's astep bytes of A (fma), the same rows of the panel at R9 fetched ahead.
#define VBMISTREAM(sumsin, fma, astep, sumsout) \
	sumsin; \
	TABLES; \
loop: \
	PREFETCHT0 (R9); \
	DECODE64(Z16, Z17, Z18, Z19); \
	fma; \
	ADDQ astep, AX; \
	ADDQ DX, BX; \
	ADDQ DX, R9; \
	DECQ CX; \
	JNZ  loop; \
	sumsout; \
	VZEROUPPER; \
	RET

// func streamF8R1VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte, tab *[256]byte)
TEXT ·streamF8R1VBMI(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	MOVQ pf+40(FP), R9
	MOVQ tab+48(FP), R10
	VBMISTREAM(SUMSIN4, FMAR1, $4, SUMSOUT4)

// func streamF8R4VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte, tab *[256]byte)
TEXT ·streamF8R4VBMI(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	MOVQ pf+40(FP), R9
	MOVQ tab+48(FP), R10
	VBMISTREAM(SUMSIN16, FMAR4, $16, SUMSOUT16)

// decodeF8VBMI writes the values of k rows of a panel of 64 columns (at b, bstride bytes apart) to the
// four blocks of a bufferedStream's buffer at dst (streamBlock16 rows of 16 float32 values each, 8192
// bytes apart), block g taking the columns of the lookups' register g (vbmiSums), and prefetches as many
// rows at pf.
//
// func decodeF8VBMI(k int, b *byte, bstride int, dst *float32, tab *[256]byte, pf *byte)
TEXT ·decodeF8VBMI(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ tab+32(FP), R10
	MOVQ pf+40(FP), R9
	PANELDEC(TABLES, PREFETCHT0 (R9), DECODE64(Z16, Z17, Z18, Z19))
