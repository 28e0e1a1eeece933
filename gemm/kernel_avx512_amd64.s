//go:build !purego

#include "textflag.h"

// The AVX-512 microkernel: a 14x32 tile of C in 28 zmm accumulators (row r in Z(2r), Z(2r+1)). Each step
// of k loads one 32-wide row of the packed B panel (Z28, Z29), broadcasts the 14 elements of one column of
// the packed A panel in turn (Z30, Z31 alternately) and issues 28 independent VFMADD231PS.

// STEP performs one step of k: A column at ao(AX), B row at bo(BX).
#define STEP(ao, bo) \
	VMOVUPS bo(BX), Z28; \
	VMOVUPS bo+64(BX), Z29; \
	VBROADCASTSS ao+0(AX), Z30; \
	VFMADD231PS Z28, Z30, Z0; \
	VFMADD231PS Z29, Z30, Z1; \
	VBROADCASTSS ao+4(AX), Z31; \
	VFMADD231PS Z28, Z31, Z2; \
	VFMADD231PS Z29, Z31, Z3; \
	VBROADCASTSS ao+8(AX), Z30; \
	VFMADD231PS Z28, Z30, Z4; \
	VFMADD231PS Z29, Z30, Z5; \
	VBROADCASTSS ao+12(AX), Z31; \
	VFMADD231PS Z28, Z31, Z6; \
	VFMADD231PS Z29, Z31, Z7; \
	VBROADCASTSS ao+16(AX), Z30; \
	VFMADD231PS Z28, Z30, Z8; \
	VFMADD231PS Z29, Z30, Z9; \
	VBROADCASTSS ao+20(AX), Z31; \
	VFMADD231PS Z28, Z31, Z10; \
	VFMADD231PS Z29, Z31, Z11; \
	VBROADCASTSS ao+24(AX), Z30; \
	VFMADD231PS Z28, Z30, Z12; \
	VFMADD231PS Z29, Z30, Z13; \
	VBROADCASTSS ao+28(AX), Z31; \
	VFMADD231PS Z28, Z31, Z14; \
	VFMADD231PS Z29, Z31, Z15; \
	VBROADCASTSS ao+32(AX), Z30; \
	VFMADD231PS Z28, Z30, Z16; \
	VFMADD231PS Z29, Z30, Z17; \
	VBROADCASTSS ao+36(AX), Z31; \
	VFMADD231PS Z28, Z31, Z18; \
	VFMADD231PS Z29, Z31, Z19; \
	VBROADCASTSS ao+40(AX), Z30; \
	VFMADD231PS Z28, Z30, Z20; \
	VFMADD231PS Z29, Z30, Z21; \
	VBROADCASTSS ao+44(AX), Z31; \
	VFMADD231PS Z28, Z31, Z22; \
	VFMADD231PS Z29, Z31, Z23; \
	VBROADCASTSS ao+48(AX), Z30; \
	VFMADD231PS Z28, Z30, Z24; \
	VFMADD231PS Z29, Z30, Z25; \
	VBROADCASTSS ao+52(AX), Z31; \
	VFMADD231PS Z28, Z31, Z26; \
	VFMADD231PS Z29, Z31, Z27

// func kernelAVX512(kc int, a, b, c *float32, ldc int, acc *float32, ldacc, m int, mask uint32, alpha, beta float32)
//
// m may exceed 14: the kernel then runs down a column of tiles, strip after strip of the packed A against
// the one micro-panel of B, 14 rows of C at a time (fewer in the last), as kernelAVX2 does.
TEXT ·kernelAVX512(SB), NOSPLIT, $24-76
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
