//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The AVX2 kernels for block-scaled weights: those of blockscaled_avx512_amd64.s (the same layout, flags
// and results) in 8 lanes, for CPUs without AVX-512. A direct kernel takes 64 columns (of f4e2m1fn, the
// half of each row that flag 8 names, whose columns are runs of 8 columns 16 apart; see block2FP4R1),
// decoding each element in registers; a block's scales are decoded into buf first, as float32 values (the
// general way) or as the powers of two that per-block scaling multiplies the sums by (buf[0:64], 2^-e
// where a block starts; buf[64:128], 2^e where it ends; the caller has checked that e is within float32's
// normal exponents).
//
// Decoding into ymm registers:
//   f4e2m1fn, direct: 64 elements through two lookups of 16 bytes (VPSHUFB), the low and the high byte of
//             each code's value as a bfloat16 (see FP4ROW2).
//   f4e2m1fn, decoders: VPERMPS looks up the magnitude among the first 8 values of the format (Y13) by the
//             low 3 bits of each dword of the row shifted right by 4p (nibble p), and the nibble's bit 3,
//             moved to bit 31, is its sign; 8 elements at a time.
//   f8e4m3fn, f8e5m2: through binary16, as the AVX-512 kernels do, 16 at a time (8 where NaN codes are
//             checked).
// Scales, 8 at a time, into buf:
//   f8e8m0fnu: c << 23 is 2^(c-127) for codes 1 to 254; 0 gives 2^-127 (0x00400000) and 0xff a NaN, by
//             or'ing 0x00400000 in where the code is 0 or 0xff.
//   f8e4m3fn: 2^-8 times the scale through binary16, times the multiplier of the element type; NaN for
//             the NaN codes, unless flag 16 says there are none.
//
// Registers: CX steps left, R9 bk, R10 steps left in the current block, R12 steps of the segment, AX a,
// BX b, SI the current block's scales, DI out, R13 buf, R11 flags.

// The constants, each in the 8 dwords of a ymm register.
DATA block2Consts<>+0(SB)/4, $255
DATA block2Consts<>+4(SB)/4, $255
DATA block2Consts<>+8(SB)/4, $255
DATA block2Consts<>+12(SB)/4, $255
DATA block2Consts<>+16(SB)/4, $255
DATA block2Consts<>+20(SB)/4, $255
DATA block2Consts<>+24(SB)/4, $255
DATA block2Consts<>+28(SB)/4, $255
DATA block2Consts<>+32(SB)/4, $0x00400000
DATA block2Consts<>+36(SB)/4, $0x00400000
DATA block2Consts<>+40(SB)/4, $0x00400000
DATA block2Consts<>+44(SB)/4, $0x00400000
DATA block2Consts<>+48(SB)/4, $0x00400000
DATA block2Consts<>+52(SB)/4, $0x00400000
DATA block2Consts<>+56(SB)/4, $0x00400000
DATA block2Consts<>+60(SB)/4, $0x00400000
DATA block2Consts<>+64(SB)/4, $0xbf80bf80
DATA block2Consts<>+68(SB)/4, $0xbf80bf80
DATA block2Consts<>+72(SB)/4, $0xbf80bf80
DATA block2Consts<>+76(SB)/4, $0xbf80bf80
DATA block2Consts<>+80(SB)/4, $0xbf80bf80
DATA block2Consts<>+84(SB)/4, $0xbf80bf80
DATA block2Consts<>+88(SB)/4, $0xbf80bf80
DATA block2Consts<>+92(SB)/4, $0xbf80bf80
DATA block2Consts<>+96(SB)/4, $0x80008000
DATA block2Consts<>+100(SB)/4, $0x80008000
DATA block2Consts<>+104(SB)/4, $0x80008000
DATA block2Consts<>+108(SB)/4, $0x80008000
DATA block2Consts<>+112(SB)/4, $0x80008000
DATA block2Consts<>+116(SB)/4, $0x80008000
DATA block2Consts<>+120(SB)/4, $0x80008000
DATA block2Consts<>+124(SB)/4, $0x80008000
DATA block2Consts<>+128(SB)/4, $0x7fc00000
DATA block2Consts<>+132(SB)/4, $0x7fc00000
DATA block2Consts<>+136(SB)/4, $0x7fc00000
DATA block2Consts<>+140(SB)/4, $0x7fc00000
DATA block2Consts<>+144(SB)/4, $0x7fc00000
DATA block2Consts<>+148(SB)/4, $0x7fc00000
DATA block2Consts<>+152(SB)/4, $0x7fc00000
DATA block2Consts<>+156(SB)/4, $0x7fc00000
DATA block2Consts<>+160(SB)/4, $0x80000000
DATA block2Consts<>+164(SB)/4, $0x80000000
DATA block2Consts<>+168(SB)/4, $0x80000000
DATA block2Consts<>+172(SB)/4, $0x80000000
DATA block2Consts<>+176(SB)/4, $0x80000000
DATA block2Consts<>+180(SB)/4, $0x80000000
DATA block2Consts<>+184(SB)/4, $0x80000000
DATA block2Consts<>+188(SB)/4, $0x80000000
DATA block2Consts<>+192(SB)/4, $0x3f800000
DATA block2Consts<>+196(SB)/4, $0x3f800000
DATA block2Consts<>+200(SB)/4, $0x3f800000
DATA block2Consts<>+204(SB)/4, $0x3f800000
DATA block2Consts<>+208(SB)/4, $0x3f800000
DATA block2Consts<>+212(SB)/4, $0x3f800000
DATA block2Consts<>+216(SB)/4, $0x3f800000
DATA block2Consts<>+220(SB)/4, $0x3f800000
DATA block2Consts<>+224(SB)/4, $0x43800000
DATA block2Consts<>+228(SB)/4, $0x43800000
DATA block2Consts<>+232(SB)/4, $0x43800000
DATA block2Consts<>+236(SB)/4, $0x43800000
DATA block2Consts<>+240(SB)/4, $0x43800000
DATA block2Consts<>+244(SB)/4, $0x43800000
DATA block2Consts<>+248(SB)/4, $0x43800000
DATA block2Consts<>+252(SB)/4, $0x43800000
DATA block2Consts<>+256(SB)/4, $0x47800000
DATA block2Consts<>+260(SB)/4, $0x47800000
DATA block2Consts<>+264(SB)/4, $0x47800000
DATA block2Consts<>+268(SB)/4, $0x47800000
DATA block2Consts<>+272(SB)/4, $0x47800000
DATA block2Consts<>+276(SB)/4, $0x47800000
DATA block2Consts<>+280(SB)/4, $0x47800000
DATA block2Consts<>+284(SB)/4, $0x47800000
DATA block2Consts<>+288(SB)/4, $127
DATA block2Consts<>+292(SB)/4, $127
DATA block2Consts<>+296(SB)/4, $127
DATA block2Consts<>+300(SB)/4, $127
DATA block2Consts<>+304(SB)/4, $127
DATA block2Consts<>+308(SB)/4, $127
DATA block2Consts<>+312(SB)/4, $127
DATA block2Consts<>+316(SB)/4, $127
DATA block2Consts<>+320(SB)/4, $119
DATA block2Consts<>+324(SB)/4, $119
DATA block2Consts<>+328(SB)/4, $119
DATA block2Consts<>+332(SB)/4, $119
DATA block2Consts<>+336(SB)/4, $119
DATA block2Consts<>+340(SB)/4, $119
DATA block2Consts<>+344(SB)/4, $119
DATA block2Consts<>+348(SB)/4, $119
DATA block2Consts<>+352(SB)/4, $8
DATA block2Consts<>+356(SB)/4, $8
DATA block2Consts<>+360(SB)/4, $8
DATA block2Consts<>+364(SB)/4, $8
DATA block2Consts<>+368(SB)/4, $8
DATA block2Consts<>+372(SB)/4, $8
DATA block2Consts<>+376(SB)/4, $8
DATA block2Consts<>+380(SB)/4, $8
GLOBL block2Consts<>(SB), RODATA|NOPTR, $384

#define C255 block2Consts<>+0(SB)
#define CSUB block2Consts<>+32(SB)
#define CBF80 block2Consts<>+64(SB)
#define C8000 block2Consts<>+96(SB)
#define CNAN block2Consts<>+128(SB)
#define CSIGN block2Consts<>+160(SB)
#define C1 block2Consts<>+192(SB)
#define C2P8 block2Consts<>+224(SB)
#define C2P16 block2Consts<>+256(SB)
#define C127 block2Consts<>+288(SB)
#define C119 block2Consts<>+320(SB)
#define C8 block2Consts<>+352(SB)

// The constants of block2FP4R1: the low bytes of the bfloat16 values of the 16 f4e2m1fn codes (TLO), their
// high bytes (THI1), and those of the values times 2^8 (THI256; the low bytes are the same), each in both
// 128-bit lanes; the order of the bytes of a lane for the unpacking (CPERM: byte 8w+2l+o of the result is
// byte 4l+2w+o); the low nibbles' mask (C0F); the high words' (CHI16).
DATA block2FP4Consts<>+0(SB)/8, $0xc0804000c0800000
DATA block2FP4Consts<>+8(SB)/8, $0xc0804000c0800000
DATA block2FP4Consts<>+16(SB)/8, $0xc0804000c0800000
DATA block2FP4Consts<>+24(SB)/8, $0xc0804000c0800000
DATA block2FP4Consts<>+32(SB)/8, $0x404040403f3f3f00
DATA block2FP4Consts<>+40(SB)/8, $0xc0c0c0c0bfbfbf80
DATA block2FP4Consts<>+48(SB)/8, $0x404040403f3f3f00
DATA block2FP4Consts<>+56(SB)/8, $0xc0c0c0c0bfbfbf80
DATA block2FP4Consts<>+64(SB)/8, $0x4444444443434300
DATA block2FP4Consts<>+72(SB)/8, $0xc4c4c4c4c3c3c380
DATA block2FP4Consts<>+80(SB)/8, $0x4444444443434300
DATA block2FP4Consts<>+88(SB)/8, $0xc4c4c4c4c3c3c380
DATA block2FP4Consts<>+96(SB)/8, $0x0d0c090805040100
DATA block2FP4Consts<>+104(SB)/8, $0x0f0e0b0a07060302
DATA block2FP4Consts<>+112(SB)/8, $0x0d0c090805040100
DATA block2FP4Consts<>+120(SB)/8, $0x0f0e0b0a07060302
DATA block2FP4Consts<>+128(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA block2FP4Consts<>+136(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA block2FP4Consts<>+144(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA block2FP4Consts<>+152(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA block2FP4Consts<>+160(SB)/8, $0xffff0000ffff0000
DATA block2FP4Consts<>+168(SB)/8, $0xffff0000ffff0000
DATA block2FP4Consts<>+176(SB)/8, $0xffff0000ffff0000
DATA block2FP4Consts<>+184(SB)/8, $0xffff0000ffff0000
GLOBL block2FP4Consts<>(SB), RODATA|NOPTR, $192

#define TLO block2FP4Consts<>+0(SB)
#define THI1 block2FP4Consts<>+32(SB)
#define THI256 block2FP4Consts<>+64(SB)
#define CPERM block2FP4Consts<>+96(SB)
#define C0F block2FP4Consts<>+128(SB)
#define CHI16 block2FP4Consts<>+160(SB)

// SEGMENT sets R12 to the steps of the next segment: the rest of the block, or of k.
#define SEGMENT \
	MOVQ R10, R12; \
	CMPQ R12, CX; \
	JLE  2(PC); \
	MOVQ CX, R12

// NEXTBLOCK ends a segment: it jumps to done where it was the last, else moves SI to the next block's
// scales (step bytes on) and falls through.
#define NEXTBLOCK(step, done) \
	MOVQ R10, R12; \
	CMPQ R12, CX; \
	JGE  done; \
	SUBQ R10, CX; \
	ADDQ step, SI; \
	MOVQ R9, R10

// E8M0F writes the values of the 8 E8M0 scales at src(SI) to dst*4(R13) (Y8, Y9, Y11, Y12 scratch).
#define E8M0F(src, dst) \
	VPMOVZXBD src(SI), Y11; \
	VPXOR Y9, Y9, Y9; \
	VPCMPEQD Y9, Y11, Y12; \
	VPCMPEQD C255, Y11, Y8; \
	VPOR Y8, Y12, Y12; \
	VPBROADCASTD CSUB, Y8; \
	VPAND Y8, Y12, Y12; \
	VPSLLD $23, Y11, Y11; \
	VPOR Y12, Y11, Y11; \
	VMOVUPS Y11, (dst*4)(R13)

// E8M0F8 writes 2^8 times the values of the 8 E8M0 scales at src(SI), none above 246, to dst*4(R13)
// (Y8, Y11 scratch): 2^(c-119), for f8e4m3fn elements decoded as 2^-8 times their values.
#define E8M0F8(src, dst) \
	VPMOVZXBD src(SI), Y11; \
	VPBROADCASTD C8, Y8; \
	VPADDD Y8, Y11, Y11; \
	VPSLLD $23, Y11, Y11; \
	VMOVUPS Y11, (dst*4)(R13)

// E8M0POW writes 2^(bias-c) and 2^(c-bias) for the 8 E8M0 scales c at src(SI) to dst*4(R13) and
// (dst+64)*4(R13) (Y8, Y11, Y12 scratch).
#define E8M0POW(src, dst, bias) \
	VPMOVZXBD src(SI), Y11; \
	VPBROADCASTD bias, Y8; \
	VPSUBD Y11, Y8, Y12; \
	VPSUBD Y8, Y11, Y11; \
	VPBROADCASTD C127, Y8; \
	VPADDD Y8, Y12, Y12; \
	VPADDD Y8, Y11, Y11; \
	VPSLLD $23, Y12, Y12; \
	VPSLLD $23, Y11, Y11; \
	VMOVUPS Y12, (dst*4)(R13); \
	VMOVUPS Y11, (dst*4+256)(R13)

// E4M3X decodes the 8 f8e4m3fn codes at off(reg) into y, 2^-8 times their values, wrong for the NaN code
// (X11 scratch). E4M3NX also sets the dwords of my (mx its low half) to all ones for the NaN codes, for
// ORNAN.
#define E4M3X(reg, off, y) \
	VPMOVSXBW off(reg), X11; \
	VPSLLW $7, X11, X11; \
	VPAND CBF80, X11, X11; \
	VCVTPH2PS X11, y

#define E4M3NX(reg, off, y, mx, my) \
	VPMOVSXBW off(reg), X11; \
	VPSLLW $7, X11, X11; \
	VPAND CBF80, X11, X11; \
	VPOR C8000, X11, mx; \
	VPCMPEQW CBF80, mx, mx; \
	VPMOVSXWD mx, my; \
	VCVTPH2PS X11, y

// ORNAN makes y NaN where m is all ones (m scratch).
#define ORNAN(m, y) \
	VPBROADCASTD CNAN, Y11; \
	VPAND Y11, m, m; \
	VPOR m, y, y

// E4M3F writes the 8 f8e4m3fn scales at src(SI), 2^-8 times their values times mult, NaN for the NaN
// codes, to dst*4(R13) (Y8, Y11, Y12 scratch).
#define E4M3F(src, dst, mult) \
	E4M3NX(SI, src, Y12, X8, Y8); \
	VBROADCASTSS mult, Y11; \
	VMULPS Y11, Y12, Y12; \
	ORNAN(Y8, Y12); \
	VMOVUPS Y12, (dst*4)(R13)

// E4M3FF writes the 8 f8e4m3fn scales at src(SI), none of them NaN, 2^-8 times their values times mult, to
// dst*4(R13); E4M3F1 where mult is 1 (Y11, Y12 scratch).
#define E4M3FF(src, dst, mult) \
	E4M3X(SI, src, Y12); \
	VBROADCASTSS mult, Y11; \
	VMULPS Y11, Y12, Y12; \
	VMOVUPS Y12, (dst*4)(R13)

#define E4M3F1(src, dst) \
	E4M3X(SI, src, Y12); \
	VMOVUPS Y12, (dst*4)(R13)

// SCALES writes the scales of the block at SI to buf as the general way uses them: E8M0 values (e8), or
// f8e4m3fn ones (e4, or e4f where flag 16 says that none is NaN); e4m3, e4m3f and scaled are labels of
// its own.
#define SCALES(e8, e4, e4f, e4m3, e4m3f, scaled) \
	TESTQ $1, R11; \
	JNZ   e4m3; \
	e8; \
	JMP   scaled; \
e4m3: \
	TESTQ $16, R11; \
	JNZ   e4m3f; \
	e4; \
	JMP   scaled; \
e4m3f: \
	e4f; \
scaled:

// The scales of 64 consecutive columns (...ALL), or of the 8 runs of 8 columns 16 apart that a direct
// kernel of f4e2m1fn takes (...ALL16), to the 64 floats of buf in order.
#define E8M0ALL \
	E8M0F(0, 0); \
	E8M0F(8, 8); \
	E8M0F(16, 16); \
	E8M0F(24, 24); \
	E8M0F(32, 32); \
	E8M0F(40, 40); \
	E8M0F(48, 48); \
	E8M0F(56, 56)

#define E8M0ALL16 \
	E8M0F(0, 0); \
	E8M0F(16, 8); \
	E8M0F(32, 16); \
	E8M0F(48, 24); \
	E8M0F(64, 32); \
	E8M0F(80, 40); \
	E8M0F(96, 48); \
	E8M0F(112, 56)

#define E4M3ALL(mult) \
	E4M3F(0, 0, mult); \
	E4M3F(8, 8, mult); \
	E4M3F(16, 16, mult); \
	E4M3F(24, 24, mult); \
	E4M3F(32, 32, mult); \
	E4M3F(40, 40, mult); \
	E4M3F(48, 48, mult); \
	E4M3F(56, 56, mult)

#define E4M3ALL16(mult) \
	E4M3F(0, 0, mult); \
	E4M3F(16, 8, mult); \
	E4M3F(32, 16, mult); \
	E4M3F(48, 24, mult); \
	E4M3F(64, 32, mult); \
	E4M3F(80, 40, mult); \
	E4M3F(96, 48, mult); \
	E4M3F(112, 56, mult)

#define E4M3ALLF(mult) \
	E4M3FF(0, 0, mult); \
	E4M3FF(8, 8, mult); \
	E4M3FF(16, 16, mult); \
	E4M3FF(24, 24, mult); \
	E4M3FF(32, 32, mult); \
	E4M3FF(40, 40, mult); \
	E4M3FF(48, 48, mult); \
	E4M3FF(56, 56, mult)

#define E4M3ALLF16 \
	E4M3F1(0, 0); \
	E4M3F1(16, 8); \
	E4M3F1(32, 16); \
	E4M3F1(48, 24); \
	E4M3F1(64, 32); \
	E4M3F1(80, 40); \
	E4M3F1(96, 48); \
	E4M3F1(112, 56)

#define E8M0ALL8 \
	E8M0F8(0, 0); \
	E8M0F8(8, 8); \
	E8M0F8(16, 16); \
	E8M0F8(24, 24); \
	E8M0F8(32, 32); \
	E8M0F8(40, 40); \
	E8M0F8(48, 48); \
	E8M0F8(56, 56)

#define POWALL(bias) \
	E8M0POW(0, 0, bias); \
	E8M0POW(8, 8, bias); \
	E8M0POW(16, 16, bias); \
	E8M0POW(24, 24, bias); \
	E8M0POW(32, 32, bias); \
	E8M0POW(40, 40, bias); \
	E8M0POW(48, 48, bias); \
	E8M0POW(56, 56, bias)

#define POWALL16(bias) \
	E8M0POW(0, 0, bias); \
	E8M0POW(16, 8, bias); \
	E8M0POW(32, 16, bias); \
	E8M0POW(48, 24, bias); \
	E8M0POW(64, 32, bias); \
	E8M0POW(80, 40, bias); \
	E8M0POW(96, 48, bias); \
	E8M0POW(112, 56, bias)

// SUMS8(off) multiplies the sums Y0-Y7 by the 64 values at off(R13).
#define SUMS8(off) \
	VMULPS (off+0)(R13), Y0, Y0; \
	VMULPS (off+32)(R13), Y1, Y1; \
	VMULPS (off+64)(R13), Y2, Y2; \
	VMULPS (off+96)(R13), Y3, Y3; \
	VMULPS (off+128)(R13), Y4, Y4; \
	VMULPS (off+160)(R13), Y5, Y5; \
	VMULPS (off+192)(R13), Y6, Y6; \
	VMULPS (off+224)(R13), Y7, Y7

// The f4e2m1fn decoding: FP4LOAD loads a row (the two halves of its dwords into Y9 and Y10, shifted
// right by the count in X15); FP4V(L, shift, y) decodes nibble shift/4 of the dwords in L into y (Y11
// scratch; the magnitudes in Y13, the sign bit in Y14).
#define FP4LOAD \
	VMOVDQU 0(BX), Y9; \
	VMOVDQU 32(BX), Y10; \
	VPSRLD X15, Y9, Y9; \
	VPSRLD X15, Y10, Y10

#define FP4V(L, shift, y) \
	VPSRLD $shift, L, Y11; \
	VPERMPS Y13, Y11, y; \
	VPSLLD $28, Y11, Y11; \
	VPAND Y14, Y11, Y11; \
	VPOR Y11, y, y

// VSCALE multiplies y by the 8 values at off(R13); NOSCALE does not.
#define VSCALE(off, y) \
	VMULPS off(R13), y, y

#define NOSCALE(off, y)

// The f4e2m1fn decoding of a direct kernel, 64 elements at a time through byte lookups: FP4ROW2 loads the
// 32 bytes of the half-row at BX (dword i' of them holds nibbles p of columns 16p+i', p = 0 to 7, as
// blockScaledRow lays them out, the columns' offset 8*half aside) and reorders the bytes within each
// 128-bit lane (VPSHUFB by CPERM) so that the unpacking below yields the columns in order; then for the low
// nibbles of the bytes and for the high ones (masked by C0F in Y15), FP4HALF looks up the low and the high
// byte of the bfloat16 value of each code (Y13, Y14: the tables of the low and of the high bytes),
// interleaves them into words (VPUNPCKLBW, VPUNPCKHBW: the words of each lane's bytes 0-7, and 8-15), and
// widens the even words (shifted left by 16) and the odd ones (masked by 0xffff0000) to the float32
// values of 8 columns each. A bfloat16 holds every f4e2m1fn value, and times 2^8, exactly. Rows of
// columns 16p+i' (i' = 0 to 7) go to Y0 to Y7 in order of p: the low nibbles give p = 0, 2, 4, 6 and the
// high ones p = 1, 3, 5, 7; buf's scales for run p are at 32p(R13).
#define FP4ROW2(scale) \
	VMOVDQU 0(BX), Y9; \
	VPSHUFB CPERM, Y9, Y9; \
	VPSRLW $4, Y9, Y10; \
	VPAND Y15, Y9, Y9; \
	VPAND Y15, Y10, Y10; \
	FP4HALF(Y9, Y0, Y2, Y4, Y6, 0, 64, 128, 192, scale); \
	FP4HALF(Y10, Y1, Y3, Y5, Y7, 32, 96, 160, 224, scale)

#define FP4HALF(L, y0, y1, y2, y3, o0, o1, o2, o3, scale) \
	VPSHUFB L, Y13, Y11; \
	VPSHUFB L, Y14, Y12; \
	VPUNPCKHBW Y12, Y11, L; \
	VPUNPCKLBW Y12, Y11, Y11; \
	VPSLLD $16, Y11, Y12; \
	scale(o0, Y12); \
	VFMADD231PS Y12, Y8, y0; \
	VPAND CHI16, Y11, Y11; \
	scale(o1, Y11); \
	VFMADD231PS Y11, Y8, y1; \
	VPSLLD $16, L, Y12; \
	scale(o2, Y12); \
	VFMADD231PS Y12, Y8, y2; \
	VPAND CHI16, L, L; \
	scale(o3, L); \
	VFMADD231PS L, Y8, y3

// The 8-bit formats: dec(off, y) decodes the 8 codes at off(BX) into y, then scale and add (the 64 columns in order).
#define ROW8(dec, scale) \
	dec(0, Y12); \
	scale(0, Y12); \
	VFMADD231PS Y12, Y8, Y0; \
	dec(8, Y12); \
	scale(32, Y12); \
	VFMADD231PS Y12, Y8, Y1; \
	dec(16, Y12); \
	scale(64, Y12); \
	VFMADD231PS Y12, Y8, Y2; \
	dec(24, Y12); \
	scale(96, Y12); \
	VFMADD231PS Y12, Y8, Y3; \
	dec(32, Y12); \
	scale(128, Y12); \
	VFMADD231PS Y12, Y8, Y4; \
	dec(40, Y12); \
	scale(160, Y12); \
	VFMADD231PS Y12, Y8, Y5; \
	dec(48, Y12); \
	scale(192, Y12); \
	VFMADD231PS Y12, Y8, Y6; \
	dec(56, Y12); \
	scale(224, Y12); \
	VFMADD231PS Y12, Y8, Y7

// E4M3V decodes 8 f8e4m3fn codes exactly (E4M3E: NaN included), times 2^8 from Y14; E4M3U leaves them
// 2^-8 times their value (per-block scaling); E5M2V decodes 8 f8e5m2 codes.
#define E4M3V(off, y) \
	E4M3X(BX, off, y); \
	VMULPS Y14, y, y

#define E4M3E(off, y) \
	E4M3NX(BX, off, y, X10, Y10); \
	VMULPS Y14, y, y; \
	ORNAN(Y10, y)

#define E4M3U(off, y) \
	E4M3X(BX, off, y)

#define E5M2V(off, y) \
	VPMOVZXBW off(BX), X11; \
	VPSLLW $8, X11, X11; \
	VCVTPH2PS X11, y

// The same, 16 codes at a time (the first 8 into y0, the others into y1): a ymm register of words is
// masked and shifted once and split in two.
#define E4M3V16(off, y0, x0, y1, x1) \
	E4M3U16(off, y0, x0, y1, x1); \
	VMULPS Y14, y0, y0; \
	VMULPS Y14, y1, y1

#define E4M3U16(off, y0, x0, y1, x1) \
	VPMOVSXBW off(BX), y0; \
	VPSLLW $7, y0, y0; \
	VPAND CBF80, y0, y0; \
	VEXTRACTI128 $1, y0, x1; \
	VCVTPH2PS x0, y0; \
	VCVTPH2PS x1, y1

#define E5M2V16(off, y0, x0, y1, x1) \
	VPMOVZXBW off(BX), y0; \
	VPSLLW $8, y0, y0; \
	VEXTRACTI128 $1, y0, x1; \
	VCVTPH2PS x0, y0; \
	VCVTPH2PS x1, y1

// ROW16 is ROW8 with a decoder of 16 codes.
#define ROW16(dec, scale) \
	dec(0, Y12, X12, Y11, X11); \
	scale(0, Y12); \
	VFMADD231PS Y12, Y8, Y0; \
	scale(32, Y11); \
	VFMADD231PS Y11, Y8, Y1; \
	dec(16, Y12, X12, Y11, X11); \
	scale(64, Y12); \
	VFMADD231PS Y12, Y8, Y2; \
	scale(96, Y11); \
	VFMADD231PS Y11, Y8, Y3; \
	dec(32, Y12, X12, Y11, X11); \
	scale(128, Y12); \
	VFMADD231PS Y12, Y8, Y4; \
	scale(160, Y11); \
	VFMADD231PS Y11, Y8, Y5; \
	dec(48, Y12, X12, Y11, X11); \
	scale(192, Y12); \
	VFMADD231PS Y12, Y8, Y6; \
	scale(224, Y11); \
	VFMADD231PS Y11, Y8, Y7

// ROWS is the loop over the R12 rows of a segment.
#define ROWS(label, row) \
label: \
	PREFETCHT1 (DX); \
	VBROADCASTSS (AX), Y8; \
	row; \
	ADDQ $4, AX; \
	ADDQ $64, BX; \
	ADDQ $64, DX; \
	DECQ R12; \
	JNZ  label

// R1BODY is a direct kernel after its arguments and constants: general rows genrow, their scales by e8
// (E8M0) or e4 and e4f (f8e4m3fn; see SCALES), or, with per-block scaling, rows pbrow and the powers of two pow; step is the
// bytes between blocks of scales, sumsin and sumsout load and store the sums.
#define R1BODY(genrow, pbrow, e8, e4, e4f, pow, step, sumsin, sumsout) \
	sumsin; \
	TESTQ $2, R11; \
	JNZ   perblock; \
segment: \
	SEGMENT; \
	SCALES(e8, e4, e4f, e4m3scales, e4m3fscales, scaled); \
	ROWS(rows, genrow); \
	NEXTBLOCK(step, done); \
	JMP segment; \
perblock: \
	SEGMENT; \
	pow; \
	SUMS8(0); \
	ROWS(pbrows, pbrow); \
	SUMS8(256); \
	NEXTBLOCK(step, done); \
	JMP perblock; \
done: \
	sumsout; \
	VZEROUPPER; \
	RET

// func block2FP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
//
// b, s and out are those of the whole panel of 128 columns; flag 8 takes the second half of each row
// (bytes 32-63: columns 16p+8 to 16p+15), else the first (columns 16p to 16p+7). The values come from
// the tables of block2FP4Consts (tab is not read): the codes' own, or times 2^8 with f8e4m3fn scales.
TEXT ·block2FP4R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	TESTQ $8, R11
	JZ    4(PC)
	ADDQ  $32, BX
	ADDQ  $8, SI
	ADDQ  $32, DI
	VMOVDQU TLO, Y13
	VMOVDQU THI1, Y14
	TESTQ $1, R11
	JZ    2(PC)
	VMOVDQU THI256, Y14
	VMOVDQU C0F, Y15
	R1BODY(FP4ROW2(VSCALE), FP4ROW2(NOSCALE), E8M0ALL16, E4M3ALL16(C1), E4M3ALLF16, POWALL16(C127), $128, YSUMSINAT(0, 64), YSUMSOUTAT(0, 64))

// func block2E4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·block2E4M3R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	VBROADCASTSS C2P8, Y14
	TESTQ $4, R11
	JZ    nan
	R1BODY(ROW16(E4M3V16, VSCALE), ROW16(E4M3U16, NOSCALE), E8M0ALL, E4M3ALL(C2P8), E4M3ALLF(C2P8), POWALL(C119), $64, YSUMSIN(0), YSUMSOUT(0))

nan:
	// Elements that may be NaN: the general way with the NaN check (per-block scaling never takes them).
	YSUMSIN(0)

nansegment:
	SEGMENT
	SCALES(E8M0ALL, E4M3ALL(C2P8), E4M3ALLF(C2P8), nane4m3scales, nane4m3fscales, nanscaled)
	ROWS(nanrows, ROW8(E4M3E, VSCALE))
	NEXTBLOCK($64, nandone)
	JMP nansegment

nandone:
	YSUMSOUT(0)
	VZEROUPPER
	RET

// func block2E5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·block2E5M2R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	R1BODY(ROW16(E5M2V16, VSCALE), ROW16(E5M2V16, NOSCALE), E8M0ALL, E4M3ALL(C2P8), E4M3ALLF(C2P8), POWALL(C127), $64, YSUMSIN(0), YSUMSOUT(0))

// The decoders: as blockDecodeTYPE (blockscaled_avx512_amd64.s), the block's scales in buf. Each decoded
// vector of 8 goes to its strip (DI, 4096 bytes apart) and half.
#define STORE8(y, off) \
	VMOVUPS y, off(DI)

#define DECFP4ROW \
	FP4LOAD; \
	FP4V(Y9, 0, Y12); \
	VSCALE(0, Y12); \
	STORE8(Y12, 0); \
	FP4V(Y10, 0, Y12); \
	VSCALE(32, Y12); \
	STORE8(Y12, 32); \
	FP4V(Y9, 4, Y12); \
	VSCALE(64, Y12); \
	STORE8(Y12, 4096); \
	FP4V(Y10, 4, Y12); \
	VSCALE(96, Y12); \
	STORE8(Y12, 4128); \
	FP4V(Y9, 8, Y12); \
	VSCALE(128, Y12); \
	STORE8(Y12, 8192); \
	FP4V(Y10, 8, Y12); \
	VSCALE(160, Y12); \
	STORE8(Y12, 8224); \
	FP4V(Y9, 12, Y12); \
	VSCALE(192, Y12); \
	STORE8(Y12, 12288); \
	FP4V(Y10, 12, Y12); \
	VSCALE(224, Y12); \
	STORE8(Y12, 12320)

#define DEC8ROW(dec) \
	dec(0, Y12); \
	VSCALE(0, Y12); \
	STORE8(Y12, 0); \
	dec(8, Y12); \
	VSCALE(32, Y12); \
	STORE8(Y12, 32); \
	dec(16, Y12); \
	VSCALE(64, Y12); \
	STORE8(Y12, 4096); \
	dec(24, Y12); \
	VSCALE(96, Y12); \
	STORE8(Y12, 4128); \
	dec(32, Y12); \
	VSCALE(128, Y12); \
	STORE8(Y12, 8192); \
	dec(40, Y12); \
	VSCALE(160, Y12); \
	STORE8(Y12, 8224); \
	dec(48, Y12); \
	VSCALE(192, Y12); \
	STORE8(Y12, 12288); \
	dec(56, Y12); \
	VSCALE(224, Y12); \
	STORE8(Y12, 12320)

// DEC16ROW is DEC8ROW with a decoder of 16 codes.
#define DEC16ROW(dec) \
	dec(0, Y12, X12, Y11, X11); \
	VSCALE(0, Y12); \
	STORE8(Y12, 0); \
	VSCALE(32, Y11); \
	STORE8(Y11, 32); \
	dec(16, Y12, X12, Y11, X11); \
	VSCALE(64, Y12); \
	STORE8(Y12, 4096); \
	VSCALE(96, Y11); \
	STORE8(Y11, 4128); \
	dec(32, Y12, X12, Y11, X11); \
	VSCALE(128, Y12); \
	STORE8(Y12, 8192); \
	VSCALE(160, Y11); \
	STORE8(Y11, 8224); \
	dec(48, Y12, X12, Y11, X11); \
	VSCALE(192, Y12); \
	STORE8(Y12, 12288); \
	VSCALE(224, Y11); \
	STORE8(Y11, 12320)

// DECROWS is the loop over the R12 rows of a segment of a decoder.
#define DECROWS(label, row) \
label: \
	PREFETCHT0 (AX); \
	row; \
	ADDQ $64, AX; \
	ADDQ $64, DI; \
	ADDQ $64, BX; \
	DECQ R12; \
	JNZ  label

// DECBODY is a decoder after its arguments and constants.
#define DECBODY(row, step, mult) \
segment: \
	SEGMENT; \
	SCALES(E8M0ALL, E4M3ALL(mult), E4M3ALLF(mult), e4m3scales, e4m3fscales, scaled); \
	DECROWS(rows, row); \
	NEXTBLOCK(step, done); \
	JMP segment; \
done: \
	VZEROUPPER; \
	RET

// func block2DecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·block2DecodeFP4(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ tab+48(FP), DX
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX
	VMOVUPS (DX), Y13
	VPBROADCASTD CSIGN, Y14
	MOVQ R11, R8
	ANDQ $8, R8
	SHLQ $1, R8
	VMOVQ R8, X15
	DECBODY(DECFP4ROW, $128, C1)

// func block2DecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·block2DecodeE4M3(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX
	VBROADCASTSS C2P8, Y14
	TESTQ $4, R11
	JZ    nan
	TESTQ $32, R11
	JNZ   folded
	DECBODY(DEC16ROW(E4M3V16), $64, C2P8)

folded:
	// E8M0 scales times 2^8 (flag 32: none is above 246), so that the elements need no multiplication.
	SEGMENT
	E8M0ALL8
	DECROWS(foldrows, DEC16ROW(E4M3U16))
	NEXTBLOCK($64, folddone)
	JMP folded

folddone:
	VZEROUPPER
	RET

nan:
nansegment:
	SEGMENT
	SCALES(E8M0ALL, E4M3ALL(C2P8), E4M3ALLF(C2P8), nane4m3scales, nane4m3fscales, nanscaled)
	DECROWS(nanrows, DEC8ROW(E4M3E))
	NEXTBLOCK($64, nandone)
	JMP nansegment

nandone:
	VZEROUPPER
	RET

// func block2DecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·block2DecodeE5M2(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX
	DECBODY(DEC16ROW(E5M2V16), $64, C2P8)

// The multipliers, of one strip of 16 columns (as blockMulR16 for 16 rows, and for 4 rows a block of
// 4 x 16): sums of row r at out + 64r.
//
// ROWS4 is the loop of a register tile of 4 rows over the strip at BX: CX steps of A from AX, astep bytes
// a step (16, 32 or 64 for 4, 8 or 16 rows), the sums in Y0-Y7.
#define ROWS4(label, astep) \
label: \
	VMOVUPS 0(BX), Y8; \
	VMOVUPS 32(BX), Y9; \
	VBROADCASTSS 0(AX), Y10; \
	VBROADCASTSS 4(AX), Y11; \
	VFMADD231PS Y8, Y10, Y0; \
	VFMADD231PS Y9, Y10, Y1; \
	VFMADD231PS Y8, Y11, Y2; \
	VFMADD231PS Y9, Y11, Y3; \
	VBROADCASTSS 8(AX), Y10; \
	VBROADCASTSS 12(AX), Y11; \
	VFMADD231PS Y8, Y10, Y4; \
	VFMADD231PS Y9, Y10, Y5; \
	VFMADD231PS Y8, Y11, Y6; \
	VFMADD231PS Y9, Y11, Y7; \
	ADDQ astep, AX; \
	ADDQ $64, BX; \
	DECQ CX; \
	JNZ  label

// func block2MulR4(k int, a, b, out *float32)
TEXT ·block2MulR4(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ out+24(FP), DI
	YSUMSIN(0)
	ROWS4(loop, $16)
	YSUMSOUT(0)
	VZEROUPPER
	RET

// TILE4 runs rows r to r+3 of 8 (their sums at DI + 64r) over the strip: R10 steps of A from R8 + 4r (32
// bytes a step) and of B from R9.
#define TILE4(label, r) \
	MOVQ R10, CX; \
	LEAQ (4*r)(R8), AX; \
	MOVQ R9, BX; \
	YSUMSIN(64*r); \
	ROWS4(label, $32); \
	YSUMSOUT(64*r)

// func block2MulR8(k int, a, b, out *float32): 8 rows in two register tiles of 4, each running over the
// strip (in L1) once.
TEXT ·block2MulR8(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), R10
	MOVQ a+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ out+24(FP), DI
	TILE4(rows0, 0)
	TILE4(rows4, 4)
	VZEROUPPER
	RET

// TILE6 runs rows r to r+5 (their sums at DI + 64r) over the strip: R10 steps of A from R8 + 4r (64 bytes
// a step) and of B from R9.
#define TILE6(label, r) \
	MOVQ R10, CX; \
	LEAQ (4*r)(R8), AX; \
	MOVQ R9, BX; \
	VMOVUPS (64*r)(DI), Y0; \
	VMOVUPS (64*r+32)(DI), Y1; \
	VMOVUPS (64*r+64)(DI), Y2; \
	VMOVUPS (64*r+96)(DI), Y3; \
	VMOVUPS (64*r+128)(DI), Y4; \
	VMOVUPS (64*r+160)(DI), Y5; \
	VMOVUPS (64*r+192)(DI), Y6; \
	VMOVUPS (64*r+224)(DI), Y7; \
	VMOVUPS (64*r+256)(DI), Y8; \
	VMOVUPS (64*r+288)(DI), Y9; \
	VMOVUPS (64*r+320)(DI), Y10; \
	VMOVUPS (64*r+352)(DI), Y11; \
label: \
	VMOVUPS 0(BX), Y12; \
	VMOVUPS 32(BX), Y13; \
	VBROADCASTSS 0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS 4(AX), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS 8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS 12(AX), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS 16(AX), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS 20(AX), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11; \
	ADDQ $64, AX; \
	ADDQ $64, BX; \
	DECQ CX; \
	JNZ  label; \
	VMOVUPS Y0, (64*r)(DI); \
	VMOVUPS Y1, (64*r+32)(DI); \
	VMOVUPS Y2, (64*r+64)(DI); \
	VMOVUPS Y3, (64*r+96)(DI); \
	VMOVUPS Y4, (64*r+128)(DI); \
	VMOVUPS Y5, (64*r+160)(DI); \
	VMOVUPS Y6, (64*r+192)(DI); \
	VMOVUPS Y7, (64*r+224)(DI); \
	VMOVUPS Y8, (64*r+256)(DI); \
	VMOVUPS Y9, (64*r+288)(DI); \
	VMOVUPS Y10, (64*r+320)(DI); \
	VMOVUPS Y11, (64*r+352)(DI)

// func block2MulR16(k int, a, b, out *float32): 16 rows in register tiles of 6, 6 and 4 rows, each running
// over the strip (in L1) once.
TEXT ·block2MulR16(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), R10
	MOVQ a+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ out+24(FP), DI
	TILE6(rows0, 0)
	TILE6(rows6, 6)
	MOVQ R10, CX
	LEAQ 48(R8), AX
	MOVQ R9, BX
	ADDQ $768, DI
	YSUMSIN(0)
	ROWS4(rows12, $64)
	YSUMSOUT(0)
	VZEROUPPER
	RET

