//go:build !purego

#include "textflag.h"

// The integer row kernels in AVX2: eight 32-bit lanes a register, each lane what Go's operator on
// uint32 (or, for the signed extrema and the arithmetic shift, int32) values gives.

// INTBINARY sets (DI)[i] = (SI)[i] op (DX)[i] for CX elements (a multiple of 8): four registers at a
// time, then one. op takes y from memory and x from a register, as Go's assembly orders the operands
// (VPSUBD y, x, d sets d = x - y; VPSLLVD y, x, d sets d = x << y).
#define INTBINARY(op) \
	MOVQ CX, BX; \
	SHRQ $5, BX; \
	JZ   one; \
four: \
	VMOVDQU (SI), Y0; \
	VMOVDQU 32(SI), Y1; \
	VMOVDQU 64(SI), Y2; \
	VMOVDQU 96(SI), Y3; \
	op      (DX), Y0, Y0; \
	op      32(DX), Y1, Y1; \
	op      64(DX), Y2, Y2; \
	op      96(DX), Y3, Y3; \
	VMOVDQU Y0, (DI); \
	VMOVDQU Y1, 32(DI); \
	VMOVDQU Y2, 64(DI); \
	VMOVDQU Y3, 96(DI); \
	ADDQ    $128, SI; \
	ADDQ    $128, DX; \
	ADDQ    $128, DI; \
	DECQ    BX; \
	JNZ     four; \
one: \
	ANDQ $31, CX; \
	SHRQ $3, CX; \
	JZ   done; \
loop: \
	VMOVDQU (SI), Y0; \
	op      (DX), Y0, Y0; \
	VMOVDQU Y0, (DI); \
	ADDQ    $32, SI; \
	ADDQ    $32, DX; \
	ADDQ    $32, DI; \
	DECQ    CX; \
	JNZ     loop; \
done: \
	VZEROUPPER

// func rowU32Add2(dst, x, y *uint32, n int)
TEXT ·rowU32Add2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPADDD)
	RET

// func rowU32Sub2(dst, x, y *uint32, n int)
TEXT ·rowU32Sub2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPSUBD)
	RET

// func rowU32Mul2(dst, x, y *uint32, n int)
TEXT ·rowU32Mul2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPMULLD)
	RET

// func rowU32And2(dst, x, y *uint32, n int)
TEXT ·rowU32And2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPAND)
	RET

// func rowU32Or2(dst, x, y *uint32, n int)
TEXT ·rowU32Or2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPOR)
	RET

// func rowU32Xor2(dst, x, y *uint32, n int)
TEXT ·rowU32Xor2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPXOR)
	RET

// func rowU32MaxS2(dst, x, y *uint32, n int)
TEXT ·rowU32MaxS2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPMAXSD)
	RET

// func rowU32MinS2(dst, x, y *uint32, n int)
TEXT ·rowU32MinS2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPMINSD)
	RET

// func rowU32MaxU2(dst, x, y *uint32, n int)
TEXT ·rowU32MaxU2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPMAXUD)
	RET

// func rowU32MinU2(dst, x, y *uint32, n int)
TEXT ·rowU32MinU2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPMINUD)
	RET

// func rowU32Shl2(dst, x, y *uint32, n int)
TEXT ·rowU32Shl2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPSLLVD)
	RET

// func rowU32ShrU2(dst, x, y *uint32, n int)
TEXT ·rowU32ShrU2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPSRLVD)
	RET

// func rowU32ShrS2(dst, x, y *uint32, n int)
TEXT ·rowU32ShrS2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	INTBINARY(VPSRAVD)
	RET
