//go:build !purego

#include "textflag.h"

// The uniforms of a SplitMix64 stream in AVX2, four pairs at a time: the counters of u1 (2p) in one
// register and those of u2 (2p+1) in another, hashed side by side. AVX2 multiplies 32-bit halves only:
// a 64-bit product x*c keeps lo(x)*lo(c) + (hi(x)*lo(c) + lo(x)*hi(c))<<32, modulo 2^64. A hash h>>11
// (+1 for u1) of at most 2^53 becomes a float64 exactly as the sum of its two halves, each made by
// placing it in the fraction of 2^52 (low 32 bits) or of 2^84 (high bits) and subtracting that power.

#define CONST4(name, bits) \
	DATA name<>+0(SB)/8, bits; \
	DATA name<>+8(SB)/8, bits; \
	DATA name<>+16(SB)/8, bits; \
	DATA name<>+24(SB)/8, bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

// 0x632be59bd9b4e019 + 0x9e3779b97f4a7c15 modulo 2^64: the stream's offset and splitmix64's increment,
// added at once.
CONST4(smInc1, $0x01635f5558ff5c2e)
CONST4(smInc2, $0x9e3779b97f4a7c15)
// The multipliers' halves, each in the low doubleword of its lane.
CONST4(smM1Lo, $0x000000001ce4e5b9)
CONST4(smM1Hi, $0x00000000bf58476d)
CONST4(smM2Lo, $0x00000000133111eb)
CONST4(smM2Hi, $0x0000000094d049bb)
CONST4(smOne, $1)
CONST4(smEight, $8)
CONST4(smLow32, $0x00000000ffffffff)
CONST4(smP52, $0x4330000000000000) // 2^52
CONST4(smP84, $0x4530000000000000) // 2^84
CONST4(smUlp, $0x3ca0000000000000) // 2^-53
DATA smLanes<>+0(SB)/8, $0
DATA smLanes<>+8(SB)/8, $2
DATA smLanes<>+16(SB)/8, $4
DATA smLanes<>+24(SB)/8, $6
GLOBL smLanes<>(SB), RODATA|NOPTR, $32

// MUL64 sets x = x * c modulo 2^64 in each lane, c's halves in lo and hi; t and u scratch registers.
#define MUL64(x, lo, hi, t, u) \
	VPSRLQ   $32, x, t; \
	VPMULUDQ lo, t, t; \
	VPMULUDQ hi, x, u; \
	VPADDQ   u, t, t; \
	VPSLLQ   $32, t, t; \
	VPMULUDQ lo, x, x; \
	VPADDQ   t, x, x

// XORSHIFT sets x ^= x >> k.
#define XORSHIFT(x, k, t) \
	VPSRLQ $k, x, t; \
	VPXOR  t, x, x

// FINISH is splitmix64 after its increment: the two multiplications and three shifts.
#define FINISH(x, t, u) \
	XORSHIFT(x, 30, t); \
	MUL64(x, Y12, Y11, t, u); \
	XORSHIFT(x, 27, t); \
	MUL64(x, Y10, Y9, t, u); \
	XORSHIFT(x, 31, t)

// TOFLOAT sets x to float64(x) * 2^-53 for x <= 2^53; t a scratch register.
#define TOFLOAT(x, t) \
	VPSRLQ $32, x, t; \
	VPOR   smP84<>(SB), t, t; \
	VSUBPD smP84<>(SB), t, t; \
	VPAND  smLow32<>(SB), x, x; \
	VPOR   smP52<>(SB), x, x; \
	VSUBPD smP52<>(SB), x, x; \
	VADDPD t, x, x; \
	VMULPD smUlp<>(SB), x, x

// func splitMixUniformsAVX2(u1, u2 *float64, key, p0 uint64, n int)
//
// n a multiple of 4. Y15 holds the key, Y14 the counters of u1, Y12-Y9 the multipliers' halves.
TEXT ·splitMixUniformsAVX2(SB), NOSPLIT, $0-40
	MOVQ         u1+0(FP), DI
	MOVQ         u2+8(FP), SI
	VPBROADCASTQ key+16(FP), Y15
	MOVQ         p0+24(FP), AX
	SHLQ         $1, AX
	VMOVQ        AX, X14
	VPBROADCASTQ X14, Y14
	VPADDQ       smLanes<>(SB), Y14, Y14
	MOVQ         n+32(FP), CX
	SHLQ         $3, CX
	XORQ         DX, DX
	VMOVDQU      smM1Lo<>(SB), Y12
	VMOVDQU      smM1Hi<>(SB), Y11
	VMOVDQU      smM2Lo<>(SB), Y10
	VMOVDQU      smM2Hi<>(SB), Y9

loop:
	CMPQ    DX, CX
	JGE     done
	VPADDQ  smOne<>(SB), Y14, Y1
	VPADDQ  smInc1<>(SB), Y14, Y0
	VPADDQ  smInc1<>(SB), Y1, Y1
	FINISH(Y0, Y2, Y3)
	FINISH(Y1, Y4, Y5)
	VPXOR   Y15, Y0, Y0
	VPXOR   Y15, Y1, Y1
	VPADDQ  smInc2<>(SB), Y0, Y0
	VPADDQ  smInc2<>(SB), Y1, Y1
	FINISH(Y0, Y2, Y3)
	FINISH(Y1, Y4, Y5)
	VPSRLQ  $11, Y0, Y0
	VPADDQ  smOne<>(SB), Y0, Y0
	VPSRLQ  $11, Y1, Y1
	TOFLOAT(Y0, Y2)
	TOFLOAT(Y1, Y4)
	VMOVUPD Y0, (DI)(DX*1)
	VMOVUPD Y1, (SI)(DX*1)
	VPADDQ  smEight<>(SB), Y14, Y14
	ADDQ    $32, DX
	JMP     loop

done:
	VZEROUPPER
	RET
