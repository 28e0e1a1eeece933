//go:build !purego

#include "textflag.h"

// The AVX-512 BF16 microkernel: the AVX-512 kernel's 14x32 tile of C in 28 zmm accumulators (row r in
// Z(2r), Z(2r+1)), fed with pairs of bf16 values instead of float32. Each step covers two steps of k: it
// loads one row of the packed B panel (Z28, Z29: 32 columns, two bf16 of consecutive k in each dword),
// broadcasts the 14 dwords of one column of the packed A panel in turn (Z30, Z31 alternately: a(r, p) and
// a(r, p+1)) and issues 28 VDPBF16PS, each adding two products to every lane.
//
// Go's assembler does not know VDPBF16PS (EVEX.512.F3.0F38.W0 52 /r), so the DP macros below spell out
// its encoding, register to register; TestDotBF16Encoding checks them against a scalar reference.

// DP0 is VDPBF16PS Z28, Z30, Z0: Z0 += Z30 . Z28, pairwise.
#define DP0 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// DP1 is VDPBF16PS Z29, Z30, Z1: Z1 += Z30 . Z29, pairwise.
#define DP1 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcd
// DP2 is VDPBF16PS Z28, Z31, Z2: Z2 += Z31 . Z28, pairwise.
#define DP2 BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// DP3 is VDPBF16PS Z29, Z31, Z3: Z3 += Z31 . Z29, pairwise.
#define DP3 BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xdd
// DP4 is VDPBF16PS Z28, Z30, Z4: Z4 += Z30 . Z28, pairwise.
#define DP4 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe4
// DP5 is VDPBF16PS Z29, Z30, Z5: Z5 += Z30 . Z29, pairwise.
#define DP5 BYTE $0x62; BYTE $0x92; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xed
// DP6 is VDPBF16PS Z28, Z31, Z6: Z6 += Z31 . Z28, pairwise.
#define DP6 BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xf4
// DP7 is VDPBF16PS Z29, Z31, Z7: Z7 += Z31 . Z29, pairwise.
#define DP7 BYTE $0x62; BYTE $0x92; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// DP8 is VDPBF16PS Z28, Z30, Z8: Z8 += Z30 . Z28, pairwise.
#define DP8 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// DP9 is VDPBF16PS Z29, Z30, Z9: Z9 += Z30 . Z29, pairwise.
#define DP9 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcd
// DP10 is VDPBF16PS Z28, Z31, Z10: Z10 += Z31 . Z28, pairwise.
#define DP10 BYTE $0x62; BYTE $0x12; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// DP11 is VDPBF16PS Z29, Z31, Z11: Z11 += Z31 . Z29, pairwise.
#define DP11 BYTE $0x62; BYTE $0x12; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xdd
// DP12 is VDPBF16PS Z28, Z30, Z12: Z12 += Z30 . Z28, pairwise.
#define DP12 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe4
// DP13 is VDPBF16PS Z29, Z30, Z13: Z13 += Z30 . Z29, pairwise.
#define DP13 BYTE $0x62; BYTE $0x12; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xed
// DP14 is VDPBF16PS Z28, Z31, Z14: Z14 += Z31 . Z28, pairwise.
#define DP14 BYTE $0x62; BYTE $0x12; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xf4
// DP15 is VDPBF16PS Z29, Z31, Z15: Z15 += Z31 . Z29, pairwise.
#define DP15 BYTE $0x62; BYTE $0x12; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// DP16 is VDPBF16PS Z28, Z30, Z16: Z16 += Z30 . Z28, pairwise.
#define DP16 BYTE $0x62; BYTE $0x82; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// DP17 is VDPBF16PS Z29, Z30, Z17: Z17 += Z30 . Z29, pairwise.
#define DP17 BYTE $0x62; BYTE $0x82; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcd
// DP18 is VDPBF16PS Z28, Z31, Z18: Z18 += Z31 . Z28, pairwise.
#define DP18 BYTE $0x62; BYTE $0x82; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// DP19 is VDPBF16PS Z29, Z31, Z19: Z19 += Z31 . Z29, pairwise.
#define DP19 BYTE $0x62; BYTE $0x82; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xdd
// DP20 is VDPBF16PS Z28, Z30, Z20: Z20 += Z30 . Z28, pairwise.
#define DP20 BYTE $0x62; BYTE $0x82; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xe4
// DP21 is VDPBF16PS Z29, Z30, Z21: Z21 += Z30 . Z29, pairwise.
#define DP21 BYTE $0x62; BYTE $0x82; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xed
// DP22 is VDPBF16PS Z28, Z31, Z22: Z22 += Z31 . Z28, pairwise.
#define DP22 BYTE $0x62; BYTE $0x82; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xf4
// DP23 is VDPBF16PS Z29, Z31, Z23: Z23 += Z31 . Z29, pairwise.
#define DP23 BYTE $0x62; BYTE $0x82; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xfd
// DP24 is VDPBF16PS Z28, Z30, Z24: Z24 += Z30 . Z28, pairwise.
#define DP24 BYTE $0x62; BYTE $0x02; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xc4
// DP25 is VDPBF16PS Z29, Z30, Z25: Z25 += Z30 . Z29, pairwise.
#define DP25 BYTE $0x62; BYTE $0x02; BYTE $0x0e; BYTE $0x40; BYTE $0x52; BYTE $0xcd
// DP26 is VDPBF16PS Z28, Z31, Z26: Z26 += Z31 . Z28, pairwise.
#define DP26 BYTE $0x62; BYTE $0x02; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xd4
// DP27 is VDPBF16PS Z29, Z31, Z27: Z27 += Z31 . Z29, pairwise.
#define DP27 BYTE $0x62; BYTE $0x02; BYTE $0x06; BYTE $0x40; BYTE $0x52; BYTE $0xdd

// STEP performs one step (two of k): A pairs at ao(AX), B pairs at bo(BX).
#define STEP(ao, bo) \
	VMOVUPS bo(BX), Z28; \
	VMOVUPS bo+64(BX), Z29; \
	VBROADCASTSS ao+0(AX), Z30; \
	DP0; \
	DP1; \
	VBROADCASTSS ao+4(AX), Z31; \
	DP2; \
	DP3; \
	VBROADCASTSS ao+8(AX), Z30; \
	DP4; \
	DP5; \
	VBROADCASTSS ao+12(AX), Z31; \
	DP6; \
	DP7; \
	VBROADCASTSS ao+16(AX), Z30; \
	DP8; \
	DP9; \
	VBROADCASTSS ao+20(AX), Z31; \
	DP10; \
	DP11; \
	VBROADCASTSS ao+24(AX), Z30; \
	DP12; \
	DP13; \
	VBROADCASTSS ao+28(AX), Z31; \
	DP14; \
	DP15; \
	VBROADCASTSS ao+32(AX), Z30; \
	DP16; \
	DP17; \
	VBROADCASTSS ao+36(AX), Z31; \
	DP18; \
	DP19; \
	VBROADCASTSS ao+40(AX), Z30; \
	DP20; \
	DP21; \
	VBROADCASTSS ao+44(AX), Z31; \
	DP22; \
	DP23; \
	VBROADCASTSS ao+48(AX), Z30; \
	DP24; \
	DP25; \
	VBROADCASTSS ao+52(AX), Z31; \
	DP26; \
	DP27

// func kernelBF16(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask uint32, alpha, beta float32)
//
// kc counts steps of two k (the packed panels hold kc pairs per row of A and column of B).
//
// m may exceed 14: the kernel then runs down a column of tiles, strip after strip of the packed A against
// the one micro-panel of B, 14 rows of C at a time (fewer in the last), as kernelAVX2 does.
TEXT ·kernelBF16(SB), NOSPLIT, $24-76
	MOVQ kc+0(FP), R9
	MOVQ a+8(FP), R12
	MOVQ b+16(FP), R14
	MOVQ c+24(FP), R13
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI
	MOVQ acc+40(FP), AX
	MOVQ AX, 0(SP)
	MOVQ ldacc+48(FP), AX
	SHLQ $2, AX
	MOVQ AX, 8(SP)
	MOVQ m+56(FP), R11
	MOVL mask+64(FP), AX
	KMOVW AX, K1
	SHRL $16, AX
	KMOVW AX, K2
	MOVL alpha+68(FP), AX
	MOVL AX, 16(SP)
	MOVL beta+72(FP), AX
	MOVL AX, 20(SP)
#include "tile14_amd64.h"
