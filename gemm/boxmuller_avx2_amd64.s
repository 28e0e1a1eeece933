//go:build !purego

#include "textflag.h"

// The Box-Muller kernel in AVX2: for four lanes at a time, math.Log on amd64 (archLog in Go's
// src/math/log_amd64.s), math.Sqrt and the Cody-Waite path of math.Sincos (src/math/sincos.go), every
// operation the one the Go loop of boxmuller.go does, in its order, rounded on its own (VMULPD, VADDPD,
// VSUBPD, VDIVPD, VSQRTPD; no fused multiply-add), so that each lane gets the bits of math's own code.
// Go's assembly orders the operands backwards: VSUBPD b, a, d sets d = a - b, VCMPPD $p, b, a, d
// compares a with b, VBLENDVPD m, b, a, d takes b where m's sign bit is set and a elsewhere.

#define CONST4(name, bits) \
	DATA name<>+0(SB)/8, bits; \
	DATA name<>+8(SB)/8, bits; \
	DATA name<>+16(SB)/8, bits; \
	DATA name<>+24(SB)/8, bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

CONST4(bmOne, $0x3ff0000000000000) // 1
CONST4(bmTwo, $0x4000000000000000) // 2
CONST4(bmHalf, $0x3fe0000000000000) // 0.5
CONST4(bmMinusTwo, $0xc000000000000000) // -2
// The exponent field e of x, read as the integer bits of 2^52 + e, less 2^52 + 0x3fe: float64(e - 0x3fe).
CONST4(bmExpBias, $0x4330000000000000) // 2^52
CONST4(bmKBias, $0x43300000000003fe) // 2^52 + 0x3fe
CONST4(bmMant, $0x000fffffffffffff)
CONST4(bmSign, $0x8000000000000000)
CONST4(bmOnesD, $0x0000000100000001) // int32 ones, for the octants
CONST4(bmTwosQ, $0x0000000000000002) // int64 twos
// The constants of archLog.
CONST4(bmHSqrt2, $0x3fe6a09e667f3bcd) // sqrt(2)/2
CONST4(bmLn2Hi, $0x3fe62e42fee00000)
CONST4(bmLn2Lo, $0x3dea39ef35793c76)
CONST4(bmL1, $0x3fe5555555555593)
CONST4(bmL2, $0x3fd999999997fa04)
CONST4(bmL3, $0x3fd2492494229359)
CONST4(bmL4, $0x3fcc71c51d8e78af)
CONST4(bmL5, $0x3fc7466496cb03de)
CONST4(bmL6, $0x3fc39a09d078c69f)
CONST4(bmL7, $0x3fc2f112df3e5244)
// 2*Pi and 4/Pi as Go rounds its constant expressions, and math.Sincos's Pi/4 in three parts and
// coefficients (_sin and _cos in src/math/sin.go).
CONST4(bmTwoPi, $0x401921fb54442d18)
CONST4(bmFourOverPi, $0x3ff45f306dc9c883)
CONST4(bmPI4A, $0x3fe921fb40000000)
CONST4(bmPI4B, $0x3e64442d00000000)
CONST4(bmPI4C, $0x3ce8469898cc5170)
CONST4(bmS0, $0x3de5d8fd1fd19ccd)
CONST4(bmS1, $0xbe5ae5e5a9291f5d)
CONST4(bmS2, $0x3ec71de3567d48a1)
CONST4(bmS3, $0xbf2a01a019bfdf03)
CONST4(bmS4, $0x3f8111111110f7d0)
CONST4(bmS5, $0xbfc5555555555548)
CONST4(bmC0, $0xbda8fa49a0861a9b)
CONST4(bmC1, $0x3e21ee9d7b4e3f05)
CONST4(bmC2, $0xbe927e4f7eac4bc6)
CONST4(bmC3, $0x3efa01a019c844f5)
CONST4(bmC4, $0xbf56c16c16c14f91)
CONST4(bmC5, $0x3fa555555555554b)

// LOG4 sets r to math.Sqrt(-2 * math.Log(u1)) for the four lanes of u1 at addr, with the registers f,
// s, t1, t2 and p (archLog's X2, X3, X4, X5 and X6; r is its X1) and Y15 holding ones, in archLog's
// steps: f1 (the fraction of u1 with the exponent of 0.5) and k (the exponent), the integer bits of
// 2^52 + e less those of 2^52 + 0x3fe; where f1 <= Sqrt2/2 (LE_OS, as CMPSD's not-less-than), k - 1
// and f1 * 2, else k - 0 and f1 * 1; f = f1 - 1; s = f / (2 + f); s2 = s*s; s4 = s2*s2;
// t1 = s2*(L1 + s4*(L3 + s4*(L5 + s4*L7))); t2 = s4*(L2 + s4*(L4 + s4*L6)); R = t1 + t2;
// hfsq = 0.5*f*f; k*Ln2Hi - ((hfsq - (s*(hfsq+R) + k*Ln2Lo)) - f). Then -2 times it, and its root.
#define LOG4(addr, r, f, s, t1, t2, p) \
	VMOVUPD addr, p; \
	VPSRLQ  $52, p, r; \
	VPOR    bmExpBias<>(SB), r, r; \
	VSUBPD  bmKBias<>(SB), r, r; \
	VANDPD  bmMant<>(SB), p, f; \
	VORPD   bmHalf<>(SB), f, f; \
	VCMPPD  $2, bmHSqrt2<>(SB), f, s; \
	VANDPD  Y15, s, s; \
	VSUBPD  s, r, r; \
	VADDPD  Y15, s, s; \
	VMULPD  s, f, f; \
	VSUBPD  Y15, f, f; \
	VADDPD  bmTwo<>(SB), f, s; \
	VDIVPD  s, f, s; \
	VMULPD  s, s, t1; \
	VMULPD  t1, t1, t2; \
	VMULPD  bmL7<>(SB), t2, p; \
	VADDPD  bmL5<>(SB), p, p; \
	VMULPD  t2, p, p; \
	VADDPD  bmL3<>(SB), p, p; \
	VMULPD  t2, p, p; \
	VADDPD  bmL1<>(SB), p, p; \
	VMULPD  p, t1, t1; \
	VMULPD  bmL6<>(SB), t2, p; \
	VADDPD  bmL4<>(SB), p, p; \
	VMULPD  t2, p, p; \
	VADDPD  bmL2<>(SB), p, p; \
	VMULPD  p, t2, t2; \
	VADDPD  t2, t1, t1; \
	VMULPD  bmHalf<>(SB), f, p; \
	VMULPD  f, p, p; \
	VADDPD  p, t1, t1; \
	VMULPD  t1, s, s; \
	VMULPD  bmLn2Lo<>(SB), r, t1; \
	VADDPD  t1, s, s; \
	VSUBPD  s, p, p; \
	VSUBPD  f, p, p; \
	VMULPD  bmLn2Hi<>(SB), r, r; \
	VSUBPD  p, r, r; \
	VMULPD  bmMinusTwo<>(SB), r, r; \
	VSQRTPD r, r

// SINCOS4 sets s and c to math.Sincos(2*Pi*u2) for the four lanes of u2 at addr, with the registers j,
// zz, p and q (xj and xq their xmm registers) and Y15 holding ones, in sincos.go's steps: x = 2*Pi*u2;
// j = uint64(x * (4/Pi)), and j+1 where j is odd; y = float64(j); z = ((x - y*PI4A) - y*PI4B) - y*PI4C;
// zz = z*z; cos = (1.0 - 0.5*zz) + zz*zz*(((((C0*zz + C1)*zz + C2)*zz + C3)*zz + C4)*zz + C5);
// sin = z + z*zz*(((((S0*zz + S1)*zz + S2)*zz + S3)*zz + S4)*zz + S5). Then j & 7 is 0, 2, 4 or 6:
// octants 2 and 6 swap sin and cos (bit 1 of j, shifted to the sign bit, which VBLENDVPD reads), 4 and
// 6 negate sin (bit 2 of j), 2 and 4 negate cos (bit 2 of j + 2).
#define SINCOS4(addr, s, c, j, xj, zz, p, q, xq) \
	VMOVUPD     addr, s; \
	VMULPD      bmTwoPi<>(SB), s, s; \
	VMULPD      bmFourOverPi<>(SB), s, j; \
	VCVTTPD2DQY j, xj; \
	VPAND       bmOnesD<>(SB), xj, xq; \
	VPADDD      xq, xj, xj; \
	VCVTDQ2PD   xj, zz; \
	VPMOVZXDQ   xj, j; \
	VMULPD      bmPI4A<>(SB), zz, p; \
	VSUBPD      p, s, s; \
	VMULPD      bmPI4B<>(SB), zz, p; \
	VSUBPD      p, s, s; \
	VMULPD      bmPI4C<>(SB), zz, p; \
	VSUBPD      p, s, s; \
	VMULPD      s, s, zz; \
	VMULPD      bmC0<>(SB), zz, p; \
	VADDPD      bmC1<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmC2<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmC3<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmC4<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmC5<>(SB), p, p; \
	VMULPD      zz, zz, q; \
	VMULPD      p, q, q; \
	VMULPD      bmHalf<>(SB), zz, p; \
	VSUBPD      p, Y15, c; \
	VADDPD      q, c, c; \
	VMULPD      bmS0<>(SB), zz, p; \
	VADDPD      bmS1<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmS2<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmS3<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmS4<>(SB), p, p; \
	VMULPD      zz, p, p; \
	VADDPD      bmS5<>(SB), p, p; \
	VMULPD      zz, s, q; \
	VMULPD      p, q, q; \
	VADDPD      q, s, s; \
	VPSLLQ      $62, j, p; \
	VBLENDVPD   p, c, s, q; \
	VBLENDVPD   p, s, c, c; \
	VPSLLQ      $61, j, p; \
	VPAND       bmSign<>(SB), p, p; \
	VXORPD      p, q, s; \
	VPADDQ      bmTwosQ<>(SB), j, j; \
	VPSLLQ      $61, j, p; \
	VPAND       bmSign<>(SB), p, p; \
	VXORPD      p, c, c

// STORE4 stores r*c and r*s at the four lanes of dst0 and dst1 at off(DI)(DX*1) and off(SI)(DX*1).
#define STORE4(off, r, s, c) \
	VMULPD  c, r, c; \
	VMULPD  s, r, s; \
	VMOVUPD c, off(DI)(DX*1); \
	VMOVUPD s, off(SI)(DX*1)

// func boxMullerAVX2(dst0, dst1, u1, u2 *float64, n int)
//
// Eight lanes at a time, as two groups of four whose long chains of dependent operations (a division,
// a square root, two polynomials) overlap: group A in Y0-Y6, group B in Y7-Y13. Then four.
TEXT ·boxMullerAVX2(SB), NOSPLIT, $0-40
	MOVQ    dst0+0(FP), DI
	MOVQ    dst1+8(FP), SI
	MOVQ    u1+16(FP), AX
	MOVQ    u2+24(FP), BX
	MOVQ    n+32(FP), CX
	SHLQ    $3, CX
	XORQ    DX, DX
	VMOVUPD bmOne<>(SB), Y15
	MOVQ    CX, R8
	ANDQ    $~63, R8 // bytes in groups of eight lanes

loop8:
	CMPQ    DX, R8
	JGE     tail
	LOG4(0(AX)(DX*1), Y1, Y2, Y3, Y4, Y5, Y6)
	LOG4(32(AX)(DX*1), Y8, Y9, Y10, Y11, Y12, Y13)
	SINCOS4(0(BX)(DX*1), Y0, Y6, Y2, X2, Y3, Y4, Y5, X5)
	SINCOS4(32(BX)(DX*1), Y7, Y13, Y9, X9, Y10, Y11, Y12, X12)
	STORE4(0, Y1, Y0, Y6)
	STORE4(32, Y8, Y7, Y13)
	ADDQ    $64, DX
	JMP     loop8

tail:
	CMPQ    DX, CX
	JGE     done
	LOG4(0(AX)(DX*1), Y1, Y2, Y3, Y4, Y5, Y6)
	SINCOS4(0(BX)(DX*1), Y0, Y6, Y2, X2, Y3, Y4, Y5, X5)
	STORE4(0, Y1, Y0, Y6)

done:
	VZEROUPPER
	RET
