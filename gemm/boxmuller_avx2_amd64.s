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

// func boxMullerAVX2(dst0, dst1, u1, u2 *float64, n int)
TEXT ·boxMullerAVX2(SB), NOSPLIT, $0-40
	MOVQ dst0+0(FP), DI
	MOVQ dst1+8(FP), SI
	MOVQ u1+16(FP), AX
	MOVQ u2+24(FP), BX
	MOVQ n+32(FP), CX
	SHLQ $3, CX
	XORQ DX, DX
	VMOVUPD bmOne<>(SB), Y15

loop:
	CMPQ DX, CX
	JGE  done

	// The logarithm of x = u1 (archLog). f1, k := math.Frexp(x): f1 the fraction of x with the
	// exponent of 0.5, k its exponent.
	VMOVUPD (AX)(DX*1), Y0
	VPSRLQ  $52, Y0, Y1
	VPOR    bmExpBias<>(SB), Y1, Y1
	VSUBPD  bmKBias<>(SB), Y1, Y1 // k
	VANDPD  bmMant<>(SB), Y0, Y2
	VORPD   bmHalf<>(SB), Y2, Y2 // f1
	// if f1 <= Sqrt2/2 { k -= 1; f1 *= 2 }: k - 1 or 0, f1 * 2 or 1.
	VCMPPD  $2, bmHSqrt2<>(SB), Y2, Y3 // LE_OS: f1 <= Sqrt2/2
	VANDPD  Y15, Y3, Y3
	VSUBPD  Y3, Y1, Y1
	VADDPD  Y15, Y3, Y3
	VMULPD  Y3, Y2, Y2
	VSUBPD  Y15, Y2, Y2 // f = f1 - 1
	VADDPD  bmTwo<>(SB), Y2, Y3
	VDIVPD  Y3, Y2, Y3 // s = f / (2 + f)
	VMULPD  Y3, Y3, Y4 // s2 = s * s
	VMULPD  Y4, Y4, Y5 // s4 = s2 * s2
	// t1 := s2 * (L1 + s4*(L3+s4*(L5+s4*L7)))
	VMULPD  bmL7<>(SB), Y5, Y6
	VADDPD  bmL5<>(SB), Y6, Y6
	VMULPD  Y5, Y6, Y6
	VADDPD  bmL3<>(SB), Y6, Y6
	VMULPD  Y5, Y6, Y6
	VADDPD  bmL1<>(SB), Y6, Y6
	VMULPD  Y6, Y4, Y4 // t1
	// t2 := s4 * (L2 + s4*(L4+s4*L6))
	VMULPD  bmL6<>(SB), Y5, Y6
	VADDPD  bmL4<>(SB), Y6, Y6
	VMULPD  Y5, Y6, Y6
	VADDPD  bmL2<>(SB), Y6, Y6
	VMULPD  Y6, Y5, Y5 // t2
	VADDPD  Y5, Y4, Y4 // R = t1 + t2
	VMULPD  bmHalf<>(SB), Y2, Y6
	VMULPD  Y2, Y6, Y6 // hfsq = 0.5 * f * f
	// k*Ln2Hi - ((hfsq - (s*(hfsq+R) + k*Ln2Lo)) - f)
	VADDPD  Y6, Y4, Y4
	VMULPD  Y4, Y3, Y3
	VMULPD  bmLn2Lo<>(SB), Y1, Y4
	VADDPD  Y4, Y3, Y3
	VSUBPD  Y3, Y6, Y6
	VSUBPD  Y2, Y6, Y6
	VMULPD  bmLn2Hi<>(SB), Y1, Y1
	VSUBPD  Y6, Y1, Y1 // Log(u1)
	// r := math.Sqrt(-2 * Log(u1))
	VMULPD  bmMinusTwo<>(SB), Y1, Y1
	VSQRTPD Y1, Y1 // r

	// sin, cos := math.Sincos(x), x = 2*Pi*u2 in [0, 2*Pi). j := uint64(x * (4/Pi)); if j is odd, j++.
	VMOVUPD     (BX)(DX*1), Y0
	VMULPD      bmTwoPi<>(SB), Y0, Y0 // x
	VMULPD      bmFourOverPi<>(SB), Y0, Y2
	VCVTTPD2DQY Y2, X2
	VPAND       bmOnesD<>(SB), X2, X3
	VPADDD      X3, X2, X2 // j
	VCVTDQ2PD   X2, Y3     // y = float64(j)
	VPMOVZXDQ   X2, Y2     // j in 64-bit lanes
	// z := ((x - y*PI4A) - y*PI4B) - y*PI4C; zz := z * z
	VMULPD      bmPI4A<>(SB), Y3, Y4
	VSUBPD      Y4, Y0, Y0
	VMULPD      bmPI4B<>(SB), Y3, Y4
	VSUBPD      Y4, Y0, Y0
	VMULPD      bmPI4C<>(SB), Y3, Y4
	VSUBPD      Y4, Y0, Y0 // z
	VMULPD      Y0, Y0, Y3 // zz
	// cos = 1.0 - 0.5*zz + zz*zz*((((((_cos[0]*zz)+_cos[1])*zz+_cos[2])*zz+_cos[3])*zz+_cos[4])*zz+_cos[5])
	VMULPD      bmC0<>(SB), Y3, Y4
	VADDPD      bmC1<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmC2<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmC3<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmC4<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmC5<>(SB), Y4, Y4
	VMULPD      Y3, Y3, Y5
	VMULPD      Y4, Y5, Y5 // zz*zz*(...)
	VMULPD      bmHalf<>(SB), Y3, Y4
	VSUBPD      Y4, Y15, Y6 // 1.0 - 0.5*zz
	VADDPD      Y5, Y6, Y6 // cos
	// sin = z + z*zz*((((((_sin[0]*zz)+_sin[1])*zz+_sin[2])*zz+_sin[3])*zz+_sin[4])*zz+_sin[5])
	VMULPD      bmS0<>(SB), Y3, Y4
	VADDPD      bmS1<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmS2<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmS3<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmS4<>(SB), Y4, Y4
	VMULPD      Y3, Y4, Y4
	VADDPD      bmS5<>(SB), Y4, Y4
	VMULPD      Y3, Y0, Y5
	VMULPD      Y4, Y5, Y5 // z*zz*(...)
	VADDPD      Y5, Y0, Y0 // sin
	// j &= 7 takes j to 0, 2, 4 or 6. Octants 2 and 6 swap sin and cos (bit 1 of j, shifted to the sign);
	// 4 and 6 negate sin (bit 2), 2 and 4 negate cos (bit 2 of j + 2).
	VPSLLQ      $62, Y2, Y4
	VBLENDVPD   Y4, Y6, Y0, Y5 // sin, or cos where swapped
	VBLENDVPD   Y4, Y0, Y6, Y6 // cos, or sin where swapped
	VPSLLQ      $61, Y2, Y4
	VPAND       bmSign<>(SB), Y4, Y4
	VXORPD      Y4, Y5, Y5 // sin
	VPADDQ      bmTwosQ<>(SB), Y2, Y2
	VPSLLQ      $61, Y2, Y4
	VPAND       bmSign<>(SB), Y4, Y4
	VXORPD      Y4, Y6, Y6 // cos

	// r*cos, r*sin.
	VMULPD  Y6, Y1, Y6
	VMULPD  Y5, Y1, Y5
	VMOVUPD Y6, (DI)(DX*1)
	VMOVUPD Y5, (SI)(DX*1)
	ADDQ    $32, DX
	JMP     loop

done:
	VZEROUPPER
	RET
