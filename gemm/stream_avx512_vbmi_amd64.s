//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The f8e4m3fn streaming kernels of 1 and 4 rows for CPUs with AVX-512 VBMI (Ice Lake, Zen 4 and later):
// 64 elements decoded by byte lookups instead of through half precision, in half the instructions, and
// exactly, the NaN code included (so there is no fast path to leave it to).
//
// Every f8e4m3fn value is a bfloat16 (3 mantissa bits of its 7, exponents from 2^-9 to 2^8), the high
// half of its float32. VPERMI2B looks up, among 128 bytes of two zmm registers, the low and the high byte
// of that bfloat16 for the 7 low bits of each of 64 codes (a lookup ignores an index's bit 7); VPTERNLOGD
// ors the code's sign bit into the high byte. VPUNPCKLBW and VPUNPCKHBW pair the bytes into words, within
// each 128-bit lane: the bfloat16 values of a lane's bytes 0-7, and 8-15. A shift left by 16 widens the
// even words to float32 and a mask of 0xffff0000 the odd ones. So of the 16 columns 16L..16L+15 of lane L,
// the four vectors take, in their lane L, the columns 16L + {0,2,4,6}, {1,3,5,7}, {8,10,12,14} and
// {9,11,13,15}. The sums stay in that order in out, from call to call (vbmiSums says where each column's
// is), and are put in order only once stored to C.
//
// While they read the k rows of B at b they prefetch as many at pf, bstride bytes apart, into L1: the
// same steps of k of the panel multiplied next, which lies a panel away (a page of packed weights, which
// the hardware's prefetchers do not fetch before it is read).
//
// The NaN code's entry is 0x7ff0, the bits that the exact kernels of stream_amd64.s give it (480's with
// 0x7fc00000 or'ed in), so that a NaN comes out the same whichever kernel ran.
//
// func streamF8E4M3FNRnVBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte)

DATA e4m3VBMITables<>+0(SB)/8, $0x60402000c0800000
DATA e4m3VBMITables<>+8(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+16(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+24(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+32(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+40(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+48(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+56(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+64(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+72(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+80(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+88(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+96(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+104(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+112(SB)/8, $0x7060504030201000
DATA e4m3VBMITables<>+120(SB)/8, $0xf0e0d0c0b0a09080
DATA e4m3VBMITables<>+128(SB)/8, $0x3c3c3c3c3b3b3b00
DATA e4m3VBMITables<>+136(SB)/8, $0x3c3c3c3c3c3c3c3c
DATA e4m3VBMITables<>+144(SB)/8, $0x3d3d3d3d3d3d3d3d
DATA e4m3VBMITables<>+152(SB)/8, $0x3d3d3d3d3d3d3d3d
DATA e4m3VBMITables<>+160(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA e4m3VBMITables<>+168(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA e4m3VBMITables<>+176(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA e4m3VBMITables<>+184(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA e4m3VBMITables<>+192(SB)/8, $0x4040404040404040
DATA e4m3VBMITables<>+200(SB)/8, $0x4040404040404040
DATA e4m3VBMITables<>+208(SB)/8, $0x4141414141414141
DATA e4m3VBMITables<>+216(SB)/8, $0x4141414141414141
DATA e4m3VBMITables<>+224(SB)/8, $0x4242424242424242
DATA e4m3VBMITables<>+232(SB)/8, $0x4242424242424242
DATA e4m3VBMITables<>+240(SB)/8, $0x4343434343434343
DATA e4m3VBMITables<>+248(SB)/8, $0x7f43434343434343
GLOBL e4m3VBMITables<>(SB), RODATA|NOPTR, $256

// TABLES loads the lookup tables (low bytes in Z26, Z27; high bytes in Z28, Z29), the sign's mask (Z30)
// and the high words' (Z31).
#define TABLES \
	VMOVDQU64 e4m3VBMITables<>+0(SB), Z26; \
	VMOVDQU64 e4m3VBMITables<>+64(SB), Z27; \
	VMOVDQU64 e4m3VBMITables<>+128(SB), Z28; \
	VMOVDQU64 e4m3VBMITables<>+192(SB), Z29; \
	MOVL $0x80808080, R8; \
	VPBROADCASTD R8, Z30; \
	MOVL $0xffff0000, R8; \
	VPBROADCASTD R8, Z31

// DECODE64 decodes the 64 codes at (BX) into z0-z3, columns in the order above (Z22-Z25 scratch).
#define DECODE64(z0, z1, z2, z3) \
	VMOVDQU64 (BX), Z22; \
	VMOVDQU64 (BX), Z23; \
	VPERMI2B Z29, Z28, Z23; \
	VPTERNLOGD $0xf8, Z30, Z22, Z23; \
	VPERMI2B Z27, Z26, Z22; \
	VPUNPCKLBW Z23, Z22, Z24; \
	VPUNPCKHBW Z23, Z22, Z25; \
	VPSLLD $16, Z24, z0; \
	VPANDD Z31, Z24, z1; \
	VPSLLD $16, Z25, z2; \
	VPANDD Z31, Z25, z3

// func streamF8E4M3FNR1VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte)
TEXT ·streamF8E4M3FNR1VBMI(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	MOVQ pf+40(FP), R9
	SUMSIN4
	TABLES
loop1:
	PREFETCHT0 (R9)
	DECODE64(Z4, Z5, Z6, Z7)
	VBROADCASTSS (AX), Z8
	VFMADD231PS Z4, Z8, Z0
	VFMADD231PS Z5, Z8, Z1
	VFMADD231PS Z6, Z8, Z2
	VFMADD231PS Z7, Z8, Z3
	ADDQ $4, AX
	ADDQ DX, BX
	ADDQ DX, R9
	DECQ CX
	JNZ  loop1
	SUMSOUT4
	VZEROUPPER
	RET

// func streamF8E4M3FNR4VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte)
TEXT ·streamF8E4M3FNR4VBMI(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), DX
	MOVQ out+32(FP), DI
	MOVQ pf+40(FP), R9
	SUMSIN16
	TABLES
loop4:
	PREFETCHT0 (R9)
	DECODE64(Z16, Z17, Z18, Z19)
	FMAR4
	ADDQ $16, AX
	ADDQ DX, BX
	ADDQ DX, R9
	DECQ CX
	JNZ  loop4
	SUMSOUT16
	VZEROUPPER
	RET
