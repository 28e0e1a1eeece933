//go:build !purego

#include "textflag.h"

// The exponential kernels in AVX2: four float32 lanes at a time, each widened to float64 (VCVTPS2PD, as
// Go's float64 conversion: exact, a signalling NaN quieted), math.Exp on amd64 where the machine has FMA
// (the avxfma path of archExp in Go's src/math/exp_amd64.s: the same operations in the same order, its
// fused multiply-adds fused, the others rounded on their own), math.Tanh's code (src/math/tanh.go, no
// fused multiply-add) or the logistic 1/(1+exp(-x)), and the result narrowed (VCVTPD2PS, as Go's float32
// conversion). Go's assembly orders the operands backwards: VSUBPD b, a, d sets d = a - b, VMINPD b, a,
// d sets d = min(a, b) (b where either is a NaN), VCMPPD $p, b, a, d compares a with b, VBLENDVPD m, b,
// a, d takes b where m's sign bit is set and a elsewhere.
//
// archExp's special cases are met by clamping the argument (NaN-preserving) to a range over which its
// main path needs no special case and gives the float32 result of the whole range beyond: for exp, below
// -200 every result narrows to +0 and above 100 to +Inf; for the logistic the argument of exp lies in
// [-200, 200], beyond which 1/(1+exp) is 1 or narrows to +0 alike; for tanh 2|x| is clamped to 90, where
// 1 - 2/(exp+1) is 1, as tanh is beyond 44.01. A NaN goes through every operation as the only NaN
// operand, so it comes out as it went in, as math gives it back. Within the range, x/ln(2) rounds
// (VCVTPD2DQ, to nearest, as CVTSD2SL) to an exponent k in [-289, 289], whose 2^k is a normal float64.

#define CONST4(name, bits) \
	DATA name<>+0(SB)/8, bits; \
	DATA name<>+8(SB)/8, bits; \
	DATA name<>+16(SB)/8, bits; \
	DATA name<>+24(SB)/8, bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

CONST4(vxOne, $1.0)
CONST4(vxTwo, $2.0)
CONST4(vxSixteenth, $0.0625)
CONST4(vxSign, $0x8000000000000000)
CONST4(vxAbs, $0x7fffffffffffffff)
CONST4(vxBias, $0x00000000000003ff)
CONST4(vxExpHi, $100.0)
CONST4(vxLogHi, $200.0)
CONST4(vxLo, $-200.0)
CONST4(vxTanhHi, $45.0)
CONST4(vxTanhSmall, $0.625)
// archExp's constants.
CONST4(vxLog2e, $1.4426950408889634073599246810018920)
CONST4(vxLn2U, $0.69314718055966295651160180568695068359375)
CONST4(vxLn2L, $0.28235290563031577122588448175013436025525412068e-12)
CONST4(vxC2, $0.5)
CONST4(vxC3, $1.6666666666666666667e-1)
CONST4(vxC4, $4.1666666666666666667e-2)
CONST4(vxC5, $8.3333333333333333333e-3)
CONST4(vxC6, $1.3888888888888888889e-3)
CONST4(vxC7, $1.9841269841269841270e-4)
CONST4(vxC8, $2.4801587301587301587e-5)
// math.Tanh's coefficients.
CONST4(vxP0, $-9.64399179425052238628e-1)
CONST4(vxP1, $-9.92877231001918586564e1)
CONST4(vxP2, $-1.61468768441708447952e3)
CONST4(vxQ0, $1.12811678491632931402e2)
CONST4(vxQ1, $2.23548839060100448583e3)
CONST4(vxQ2, $4.84406305325125486048e3)

// EXP4 sets x to archExp's avxfma path of x on four lanes (x in the range above), t, k and xk (k's xmm
// half) scratch.
#define EXP4(x, t, k, xk) \
	VMULPD       vxLog2e<>(SB), x, t; \
	VCVTPD2DQY   t, xk; \
	VCVTDQ2PD    xk, t; \
	VFNMADD231PD vxLn2U<>(SB), t, x; \
	VFNMADD231PD vxLn2L<>(SB), t, x; \
	VMULPD       vxSixteenth<>(SB), x, x; \
	VMOVUPD      vxC8<>(SB), t; \
	VFMADD213PD  vxC7<>(SB), x, t; \
	VFMADD213PD  vxC6<>(SB), x, t; \
	VFMADD213PD  vxC5<>(SB), x, t; \
	VFMADD213PD  vxC4<>(SB), x, t; \
	VFMADD213PD  vxC3<>(SB), x, t; \
	VFMADD213PD  vxC2<>(SB), x, t; \
	VFMADD213PD  vxOne<>(SB), x, t; \
	VMULPD       t, x, x; \
	VADDPD       vxTwo<>(SB), x, t; \
	VMULPD       t, x, x; \
	VADDPD       vxTwo<>(SB), x, t; \
	VMULPD       t, x, x; \
	VADDPD       vxTwo<>(SB), x, t; \
	VMULPD       t, x, x; \
	VADDPD       vxTwo<>(SB), x, t; \
	VFMADD213PD  vxOne<>(SB), t, x; \
	VPMOVSXDQ    xk, k; \
	VPADDQ       vxBias<>(SB), k, k; \
	VPSLLQ       $52, k, k; \
	VMULPD       k, x, x

// EXP4X2 is EXP4 on two sets of four lanes, their instructions interleaved.
#define EXP4X2(x, t, k, xk, x2, t2, k2, xk2) \
	VMULPD       vxLog2e<>(SB), x, t; \
	VMULPD       vxLog2e<>(SB), x2, t2; \
	VCVTPD2DQY   t, xk; \
	VCVTPD2DQY   t2, xk2; \
	VCVTDQ2PD    xk, t; \
	VCVTDQ2PD    xk2, t2; \
	VFNMADD231PD vxLn2U<>(SB), t, x; \
	VFNMADD231PD vxLn2U<>(SB), t2, x2; \
	VFNMADD231PD vxLn2L<>(SB), t, x; \
	VFNMADD231PD vxLn2L<>(SB), t2, x2; \
	VMULPD       vxSixteenth<>(SB), x, x; \
	VMULPD       vxSixteenth<>(SB), x2, x2; \
	VMOVUPD      vxC8<>(SB), t; \
	VMOVUPD      vxC8<>(SB), t2; \
	VFMADD213PD  vxC7<>(SB), x, t; \
	VFMADD213PD  vxC7<>(SB), x2, t2; \
	VFMADD213PD  vxC6<>(SB), x, t; \
	VFMADD213PD  vxC6<>(SB), x2, t2; \
	VFMADD213PD  vxC5<>(SB), x, t; \
	VFMADD213PD  vxC5<>(SB), x2, t2; \
	VFMADD213PD  vxC4<>(SB), x, t; \
	VFMADD213PD  vxC4<>(SB), x2, t2; \
	VFMADD213PD  vxC3<>(SB), x, t; \
	VFMADD213PD  vxC3<>(SB), x2, t2; \
	VFMADD213PD  vxC2<>(SB), x, t; \
	VFMADD213PD  vxC2<>(SB), x2, t2; \
	VFMADD213PD  vxOne<>(SB), x, t; \
	VFMADD213PD  vxOne<>(SB), x2, t2; \
	VMULPD       t, x, x; \
	VMULPD       t2, x2, x2; \
	VADDPD       vxTwo<>(SB), x, t; \
	VADDPD       vxTwo<>(SB), x2, t2; \
	VMULPD       t, x, x; \
	VMULPD       t2, x2, x2; \
	VADDPD       vxTwo<>(SB), x, t; \
	VADDPD       vxTwo<>(SB), x2, t2; \
	VMULPD       t, x, x; \
	VMULPD       t2, x2, x2; \
	VADDPD       vxTwo<>(SB), x, t; \
	VADDPD       vxTwo<>(SB), x2, t2; \
	VMULPD       t, x, x; \
	VMULPD       t2, x2, x2; \
	VADDPD       vxTwo<>(SB), x, t; \
	VADDPD       vxTwo<>(SB), x2, t2; \
	VFMADD213PD  vxOne<>(SB), t, x; \
	VFMADD213PD  vxOne<>(SB), t2, x2; \
	VPMOVSXDQ    xk, k; \
	VPMOVSXDQ    xk2, k2; \
	VPADDQ       vxBias<>(SB), k, k; \
	VPADDQ       vxBias<>(SB), k2, k2; \
	VPSLLQ       $52, k, k; \
	VPSLLQ       $52, k2, k2; \
	VMULPD       k, x, x; \
	VMULPD       k2, x2, x2

// The bodies of the kernels, on float64 lanes already loaded: the groups of eight lanes take Y0 and Y3
// (tanh Y0 and Y5) and leave their results there (tanh's in Y3 and Y8), a group of four takes and leaves
// Y0 (tanh's result in Y3). Each kernel below is one of them between the loads and stores of its
// element type: float32 widened (VCVTPS2PD, as Go's float64 conversion: exact, a signalling NaN
// quieted) and narrowed (VCVTPD2PS, as Go's float32 conversion), or float64 as it is. The constants
// are in Y13-Y15, set by each kernel's prologue.

// EXP8 and EXP4: the argument clamped to [Y14, Y15], then archExp.
#define EXP8 \
	VMINPD     Y0, Y15, Y0; \
	VMINPD     Y3, Y15, Y3; \
	VMAXPD     Y0, Y14, Y0; \
	VMAXPD     Y3, Y14, Y3; \
	EXP4X2(Y0, Y1, Y2, X2, Y3, Y4, Y5, X5)

#define EXP4CLAMPED \
	VMINPD     Y0, Y15, Y0; \
	VMAXPD     Y0, Y14, Y0; \
	EXP4(Y0, Y1, Y2, X2)

// LOGISTIC8 and LOGISTIC4: 1/(1+exp(-x)), -x clamped to [Y14, Y15], Y13 one.
#define LOGISTIC8 \
	VXORPD     vxSign<>(SB), Y0, Y0; \
	VXORPD     vxSign<>(SB), Y3, Y3; \
	EXP8; \
	VADDPD     Y13, Y0, Y0; \
	VADDPD     Y13, Y3, Y3; \
	VDIVPD     Y0, Y13, Y0; \
	VDIVPD     Y3, Y13, Y3

#define LOGISTIC4 \
	VXORPD     vxSign<>(SB), Y0, Y0; \
	EXP4CLAMPED; \
	VADDPD     Y13, Y0, Y0; \
	VDIVPD     Y0, Y13, Y0

// TANH8 and TANH4: both of math.Tanh's branches on z = |x|, the one for z >= 0.625 chosen, and x's sign
// set: the rational branch is odd in x as rounded (every operation's rounding is symmetric), and the
// other's result is positive before its sign is set, as is 1 for z beyond 44.01; a zero keeps its sign,
// as math.Tanh returns it. Y15 clamps z (45), Y14 is one, Y13 two.
#define TANH8 \
	VANDPD     vxAbs<>(SB), Y0, Y1; \
	VANDPD     vxAbs<>(SB), Y5, Y6; \
	VMINPD     Y1, Y15, Y2; \
	VMINPD     Y6, Y15, Y7; \
	VADDPD     Y2, Y2, Y2; \
	VADDPD     Y7, Y7, Y7; \
	EXP4X2(Y2, Y3, Y4, X4, Y7, Y8, Y9, X9); \
	VADDPD     Y14, Y2, Y2; \
	VADDPD     Y14, Y7, Y7; \
	VDIVPD     Y2, Y13, Y2; \
	VDIVPD     Y7, Y13, Y7; \
	VSUBPD     Y2, Y14, Y2; \
	VSUBPD     Y7, Y14, Y7; \
	VMULPD     Y1, Y1, Y3; \
	VMULPD     Y6, Y6, Y8; \
	VMULPD     vxP0<>(SB), Y3, Y4; \
	VMULPD     vxP0<>(SB), Y8, Y9; \
	VADDPD     vxP1<>(SB), Y4, Y4; \
	VADDPD     vxP1<>(SB), Y9, Y9; \
	VMULPD     Y3, Y4, Y4; \
	VMULPD     Y8, Y9, Y9; \
	VADDPD     vxP2<>(SB), Y4, Y4; \
	VADDPD     vxP2<>(SB), Y9, Y9; \
	VADDPD     vxQ0<>(SB), Y3, Y10; \
	VADDPD     vxQ0<>(SB), Y8, Y11; \
	VMULPD     Y3, Y10, Y10; \
	VMULPD     Y8, Y11, Y11; \
	VADDPD     vxQ1<>(SB), Y10, Y10; \
	VADDPD     vxQ1<>(SB), Y11, Y11; \
	VMULPD     Y3, Y10, Y10; \
	VMULPD     Y8, Y11, Y11; \
	VADDPD     vxQ2<>(SB), Y10, Y10; \
	VADDPD     vxQ2<>(SB), Y11, Y11; \
	VMULPD     Y3, Y1, Y3; \
	VMULPD     Y8, Y6, Y8; \
	VMULPD     Y4, Y3, Y3; \
	VMULPD     Y9, Y8, Y8; \
	VDIVPD     Y10, Y3, Y3; \
	VDIVPD     Y11, Y8, Y8; \
	VADDPD     Y3, Y1, Y3; \
	VADDPD     Y8, Y6, Y8; \
	VCMPPD     $13, vxTanhSmall<>(SB), Y1, Y4; \
	VCMPPD     $13, vxTanhSmall<>(SB), Y6, Y9; \
	VBLENDVPD  Y4, Y2, Y3, Y3; \
	VBLENDVPD  Y9, Y7, Y8, Y8; \
	VANDPD     vxSign<>(SB), Y0, Y0; \
	VANDPD     vxSign<>(SB), Y5, Y5; \
	VORPD      Y0, Y3, Y3; \
	VORPD      Y5, Y8, Y8

#define TANH4 \
	VANDPD     vxAbs<>(SB), Y0, Y1; \
	VMINPD     Y1, Y15, Y2; \
	VADDPD     Y2, Y2, Y2; \
	EXP4(Y2, Y3, Y4, X4); \
	VADDPD     Y14, Y2, Y2; \
	VDIVPD     Y2, Y13, Y2; \
	VSUBPD     Y2, Y14, Y2; \
	VMULPD     Y1, Y1, Y3; \
	VMULPD     vxP0<>(SB), Y3, Y4; \
	VADDPD     vxP1<>(SB), Y4, Y4; \
	VMULPD     Y3, Y4, Y4; \
	VADDPD     vxP2<>(SB), Y4, Y4; \
	VADDPD     vxQ0<>(SB), Y3, Y5; \
	VMULPD     Y3, Y5, Y5; \
	VADDPD     vxQ1<>(SB), Y5, Y5; \
	VMULPD     Y3, Y5, Y5; \
	VADDPD     vxQ2<>(SB), Y5, Y5; \
	VMULPD     Y3, Y1, Y3; \
	VMULPD     Y4, Y3, Y3; \
	VDIVPD     Y5, Y3, Y3; \
	VADDPD     Y3, Y1, Y3; \
	VCMPPD     $13, vxTanhSmall<>(SB), Y1, Y4; \
	VBLENDVPD  Y4, Y2, Y3, Y3; \
	VANDPD     vxSign<>(SB), Y0, Y0; \
	VORPD      Y0, Y3, Y3

// COUNTS follows each kernel's reading of its arguments, func(dst, x *T, n int), into DI, SI and CX:
// CX becomes n*4 (bytes of float32, half those of float64), DX 0, R8 CX in whole groups of eight lanes.
#define COUNTS \
	SHLQ    $2, CX; \
	XORQ    DX, DX; \
	MOVQ    CX, R8; \
	ANDQ    $~31, R8

// The loads and stores of eight lanes (a and b) and of four (a), at DX counting float32 bytes.
#define LOAD8F32(a, b) \
	VCVTPS2PD  (SI)(DX*1), a; \
	VCVTPS2PD  16(SI)(DX*1), b

#define STORE8F32(a, xa, b, xb) \
	VCVTPD2PSY a, xa; \
	VCVTPD2PSY b, xb; \
	VMOVUPS    xa, (DI)(DX*1); \
	VMOVUPS    xb, 16(DI)(DX*1)

#define LOAD4F32(a) VCVTPS2PD (SI)(DX*1), a

#define STORE4F32(a, xa) \
	VCVTPD2PSY a, xa; \
	VMOVUPS    xa, (DI)(DX*1)

#define LOAD8F64(a, b) \
	VMOVUPD    (SI)(DX*2), a; \
	VMOVUPD    32(SI)(DX*2), b

#define STORE8F64(a, xa, b, xb) \
	VMOVUPD    a, (DI)(DX*2); \
	VMOVUPD    b, 32(DI)(DX*2)

#define LOAD4F64(a) VMOVUPD (SI)(DX*2), a

#define STORE4F64(a, xa) VMOVUPD a, (DI)(DX*2)

// func expF32AVX2(dst, x *float32, n int)
TEXT ·expF32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxExpHi<>(SB), Y15
	VMOVUPD vxLo<>(SB), Y14

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F32(Y0, Y3)
	EXP8
	STORE8F32(Y0, X0, Y3, X3)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F32(Y0)
	EXP4CLAMPED
	STORE4F32(Y0, X0)

done:
	VZEROUPPER
	RET

// func logisticF32AVX2(dst, x *float32, n int)
TEXT ·logisticF32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxLogHi<>(SB), Y15
	VMOVUPD vxLo<>(SB), Y14
	VMOVUPD vxOne<>(SB), Y13

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F32(Y0, Y3)
	LOGISTIC8
	STORE8F32(Y0, X0, Y3, X3)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F32(Y0)
	LOGISTIC4
	STORE4F32(Y0, X0)

done:
	VZEROUPPER
	RET

// func tanhF32AVX2(dst, x *float32, n int)
TEXT ·tanhF32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxTanhHi<>(SB), Y15
	VMOVUPD vxOne<>(SB), Y14
	VMOVUPD vxTwo<>(SB), Y13

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F32(Y0, Y5)
	TANH8
	STORE8F32(Y3, X3, Y8, X8)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F32(Y0)
	TANH4
	STORE4F32(Y3, X3)

done:
	VZEROUPPER
	RET

// The kernels above on float64 lanes, neither widened nor narrowed (n still counts elements), for the
// tests: the float64 results before narrowing show any departure from math's arithmetic, which the
// float32 results all but hide. Their arguments must lie where the clamps change nothing: exp's in
// [-200, 100], the logistic's in [-200, 200]; tanh's anywhere.

// func expF64AVX2(dst, x *float64, n int)
TEXT ·expF64AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxExpHi<>(SB), Y15
	VMOVUPD vxLo<>(SB), Y14

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F64(Y0, Y3)
	EXP8
	STORE8F64(Y0, X0, Y3, X3)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F64(Y0)
	EXP4CLAMPED
	STORE4F64(Y0, X0)

done:
	VZEROUPPER
	RET

// func logisticF64AVX2(dst, x *float64, n int)
TEXT ·logisticF64AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxLogHi<>(SB), Y15
	VMOVUPD vxLo<>(SB), Y14
	VMOVUPD vxOne<>(SB), Y13

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F64(Y0, Y3)
	LOGISTIC8
	STORE8F64(Y0, X0, Y3, X3)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F64(Y0)
	LOGISTIC4
	STORE4F64(Y0, X0)

done:
	VZEROUPPER
	RET

// func tanhF64AVX2(dst, x *float64, n int)
TEXT ·tanhF64AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	COUNTS
	VMOVUPD vxTanhHi<>(SB), Y15
	VMOVUPD vxOne<>(SB), Y14
	VMOVUPD vxTwo<>(SB), Y13

loop8:
	CMPQ DX, R8
	JGE  tail
	LOAD8F64(Y0, Y5)
	TANH8
	STORE8F64(Y3, X3, Y8, X8)
	ADDQ $32, DX
	JMP  loop8

tail:
	CMPQ DX, CX
	JGE  done
	LOAD4F64(Y0)
	TANH4
	STORE4F64(Y3, X3)

done:
	VZEROUPPER
	RET
