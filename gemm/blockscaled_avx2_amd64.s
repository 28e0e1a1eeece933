//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The AVX2 kernels for block-scaled weights: those of blockscaled_avx512_amd64.s (the same layout, flags
// and results) in 8 lanes, for CPUs without AVX-512. A direct kernel takes 64 columns (of f4e2m1fn, the
// half of a row that flag 8 names), decoding each element in registers; a block's scales are decoded into
// buf first, as float32 values (the general way) or as the powers of two that per-block scaling multiplies
// the sums by (buf[0:64], 2^-e where a block starts; buf[64:128], 2^e where it ends; the caller has
// checked that e is within float32's normal exponents).
//
// Decoding, 8 elements into a ymm register:
//   f4e2m1fn: VPERMPS looks up the magnitude among the first 8 values of the format (Y13) by the low 3
//             bits of each dword of the row shifted right by 4p (nibble p), and the nibble's bit 3, moved
//             to bit 31, is its sign.
//   f8e4m3fn, f8e5m2: through binary16, as the AVX-512 kernels do.
// Scales, 8 at a time, into buf:
//   f8e8m0fnu: c << 23 is 2^(c-127) for codes 1 to 254; 0 gives 2^-127 (0x00400000) and 0xff a NaN, by
//             or'ing 0x00400000 in where the code is 0 or 0xff.
//   f8e4m3fn: 2^-8 times the scale through binary16, times the multiplier of the element type; NaN for
//             the NaN codes.
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
GLOBL block2Consts<>(SB), RODATA|NOPTR, $352

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

// E8M0F writes the values of the 8 E8M0 scales at off(SI) to off*4(R13) (Y8, Y9, Y11, Y12 scratch).
#define E8M0F(off) \
	VPMOVZXBD off(SI), Y11; \
	VPXOR Y9, Y9, Y9; \
	VPCMPEQD Y9, Y11, Y12; \
	VPCMPEQD C255, Y11, Y8; \
	VPOR Y8, Y12, Y12; \
	VPBROADCASTD CSUB, Y8; \
	VPAND Y8, Y12, Y12; \
	VPSLLD $23, Y11, Y11; \
	VPOR Y12, Y11, Y11; \
	VMOVUPS Y11, (off*4)(R13)

// E8M0POW writes 2^(bias-c) and 2^(c-bias) for the 8 E8M0 scales c at off(SI) to off*4(R13) and
// (off+64)*4(R13) (Y8, Y11, Y12 scratch).
#define E8M0POW(off, bias) \
	VPMOVZXBD off(SI), Y11; \
	VPBROADCASTD bias, Y8; \
	VPSUBD Y11, Y8, Y12; \
	VPSUBD Y8, Y11, Y11; \
	VPBROADCASTD C127, Y8; \
	VPADDD Y8, Y12, Y12; \
	VPADDD Y8, Y11, Y11; \
	VPSLLD $23, Y12, Y12; \
	VPSLLD $23, Y11, Y11; \
	VMOVUPS Y12, (off*4)(R13); \
	VMOVUPS Y11, (off*4+256)(R13)

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

// E4M3F writes the 8 f8e4m3fn scales at off(SI), 2^-8 times their values times mult, NaN for the NaN
// codes, to off*4(R13) (Y8, Y11, Y12 scratch).
#define E4M3F(off, mult) \
	E4M3NX(SI, off, Y12, X8, Y8); \
	VBROADCASTSS mult, Y11; \
	VMULPS Y11, Y12, Y12; \
	ORNAN(Y8, Y12); \
	VMOVUPS Y12, (off*4)(R13)

// SCALES writes the scales of the block at SI to buf as the general way uses them: E8M0 values, or
// f8e4m3fn ones times mult; e4m3 and scaled are labels of its own.
#define SCALES(mult, e4m3, scaled) \
	TESTQ $1, R11; \
	JNZ   e4m3; \
	E8M0ALL; \
	JMP   scaled; \
e4m3: \
	E4M3ALL(mult); \
scaled:

#define E8M0ALL \
	E8M0F(0); \
	E8M0F(8); \
	E8M0F(16); \
	E8M0F(24); \
	E8M0F(32); \
	E8M0F(40); \
	E8M0F(48); \
	E8M0F(56)

#define E4M3ALL(mult) \
	E4M3F(0, mult); \
	E4M3F(8, mult); \
	E4M3F(16, mult); \
	E4M3F(24, mult); \
	E4M3F(32, mult); \
	E4M3F(40, mult); \
	E4M3F(48, mult); \
	E4M3F(56, mult)

#define POWALL(bias) \
	E8M0POW(0, bias); \
	E8M0POW(8, bias); \
	E8M0POW(16, bias); \
	E8M0POW(24, bias); \
	E8M0POW(32, bias); \
	E8M0POW(40, bias); \
	E8M0POW(48, bias); \
	E8M0POW(56, bias)

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

#define FP4ROW(scale) \
	FP4LOAD; \
	FP4V(Y9, 0, Y12); \
	scale(0, Y12); \
	VFMADD231PS Y12, Y8, Y0; \
	FP4V(Y10, 0, Y12); \
	scale(32, Y12); \
	VFMADD231PS Y12, Y8, Y1; \
	FP4V(Y9, 4, Y12); \
	scale(64, Y12); \
	VFMADD231PS Y12, Y8, Y2; \
	FP4V(Y10, 4, Y12); \
	scale(96, Y12); \
	VFMADD231PS Y12, Y8, Y3; \
	FP4V(Y9, 8, Y12); \
	scale(128, Y12); \
	VFMADD231PS Y12, Y8, Y4; \
	FP4V(Y10, 8, Y12); \
	scale(160, Y12); \
	VFMADD231PS Y12, Y8, Y5; \
	FP4V(Y9, 12, Y12); \
	scale(192, Y12); \
	VFMADD231PS Y12, Y8, Y6; \
	FP4V(Y10, 12, Y12); \
	scale(224, Y12); \
	VFMADD231PS Y12, Y8, Y7

// The 8-bit formats: dec(off, y) decodes the 8 codes at off(BX) into y, then scale and add as FP4ROW.
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

// ROWS is the loop over the R12 rows of a segment.
#define ROWS(label, row) \
label: \
	VBROADCASTSS (AX), Y8; \
	row; \
	ADDQ $4, AX; \
	ADDQ $64, BX; \
	DECQ R12; \
	JNZ  label

// R1BODY is a direct kernel after its arguments and constants: general rows genrow or, with per-block
// scaling, rows pbrow and the exponents' bias; step is the bytes between blocks of scales, mult the
// multiplier of f8e4m3fn scales.
#define R1BODY(genrow, pbrow, bias, step, mult) \
	YSUMSIN(0); \
	TESTQ $2, R11; \
	JNZ   perblock; \
segment: \
	SEGMENT; \
	SCALES(mult, e4m3scales, scaled); \
	ROWS(rows, genrow); \
	NEXTBLOCK(step, done); \
	JMP segment; \
perblock: \
	SEGMENT; \
	POWALL(bias); \
	SUMS8(0); \
	ROWS(pbrows, pbrow); \
	SUMS8(256); \
	NEXTBLOCK(step, done); \
	JMP perblock; \
done: \
	YSUMSOUT(0); \
	VZEROUPPER; \
	RET

// func block2FP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)
TEXT ·block2FP4R1(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ tab+56(FP), DX
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	VMOVUPS (DX), Y13
	VPBROADCASTD CSIGN, Y14
	MOVQ R11, R8
	ANDQ $8, R8
	SHLQ $1, R8
	VMOVQ R8, X15
	R1BODY(FP4ROW(VSCALE), FP4ROW(NOSCALE), C127, $128, C1)

// func block2E4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)
TEXT ·block2E4M3R1(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	VBROADCASTSS C2P8, Y14
	TESTQ $4, R11
	JZ    nan
	R1BODY(ROW8(E4M3V, VSCALE), ROW8(E4M3U, NOSCALE), C119, $64, C2P8)

nan:
	// Elements that may be NaN: the general way with the NaN check (per-block scaling never takes them).
	YSUMSIN(0)

nansegment:
	SEGMENT
	SCALES(C2P8, nane4m3scales, nanscaled)
	ROWS(nanrows, ROW8(E4M3E, VSCALE))
	NEXTBLOCK($64, nandone)
	JMP nansegment

nandone:
	YSUMSOUT(0)
	VZEROUPPER
	RET

// func block2E5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)
TEXT ·block2E5M2R1(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	R1BODY(ROW8(E5M2V, VSCALE), ROW8(E5M2V, NOSCALE), C127, $64, C2P8)

// The decoders: as blockDecodeTYPE (blockscaled_avx512_amd64.s), the block's scales in buf. Each decoded
// vector of 8 goes to its strip (DI, 8192 bytes apart) and half.
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
	STORE8(Y12, 8192); \
	FP4V(Y10, 4, Y12); \
	VSCALE(96, Y12); \
	STORE8(Y12, 8224); \
	FP4V(Y9, 8, Y12); \
	VSCALE(128, Y12); \
	STORE8(Y12, 16384); \
	FP4V(Y10, 8, Y12); \
	VSCALE(160, Y12); \
	STORE8(Y12, 16416); \
	FP4V(Y9, 12, Y12); \
	VSCALE(192, Y12); \
	STORE8(Y12, 24576); \
	FP4V(Y10, 12, Y12); \
	VSCALE(224, Y12); \
	STORE8(Y12, 24608)

#define DEC8ROW(dec) \
	dec(0, Y12); \
	VSCALE(0, Y12); \
	STORE8(Y12, 0); \
	dec(8, Y12); \
	VSCALE(32, Y12); \
	STORE8(Y12, 32); \
	dec(16, Y12); \
	VSCALE(64, Y12); \
	STORE8(Y12, 8192); \
	dec(24, Y12); \
	VSCALE(96, Y12); \
	STORE8(Y12, 8224); \
	dec(32, Y12); \
	VSCALE(128, Y12); \
	STORE8(Y12, 16384); \
	dec(40, Y12); \
	VSCALE(160, Y12); \
	STORE8(Y12, 16416); \
	dec(48, Y12); \
	VSCALE(192, Y12); \
	STORE8(Y12, 24576); \
	dec(56, Y12); \
	VSCALE(224, Y12); \
	STORE8(Y12, 24608)

// DECROWS is the loop over the R12 rows of a segment of a decoder.
#define DECROWS(label, row) \
label: \
	row; \
	ADDQ $64, DI; \
	ADDQ $64, BX; \
	DECQ R12; \
	JNZ  label

// DECBODY is a decoder after its arguments and constants.
#define DECBODY(row, step, mult) \
segment: \
	SEGMENT; \
	SCALES(mult, e4m3scales, scaled); \
	DECROWS(rows, row); \
	NEXTBLOCK(step, done); \
	JMP segment; \
done: \
	VZEROUPPER; \
	RET

// func block2DecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)
TEXT ·block2DecodeFP4(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ tab+48(FP), DX
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	VMOVUPS (DX), Y13
	VPBROADCASTD CSIGN, Y14
	MOVQ R11, R8
	ANDQ $8, R8
	SHLQ $1, R8
	VMOVQ R8, X15
	DECBODY(DECFP4ROW, $128, C1)

// func block2DecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)
TEXT ·block2DecodeE4M3(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	VBROADCASTSS C2P8, Y14
	TESTQ $4, R11
	JZ    nan
	DECBODY(DEC8ROW(E4M3V), $64, C2P8)

nan:
nansegment:
	SEGMENT
	SCALES(C2P8, nane4m3scales, nanscaled)
	DECROWS(nanrows, DEC8ROW(E4M3E))
	NEXTBLOCK($64, nandone)
	JMP nansegment

nandone:
	VZEROUPPER
	RET

// func block2DecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int)
TEXT ·block2DecodeE5M2(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	DECBODY(DEC8ROW(E5M2V), $64, C2P8)

// The multipliers, of one strip of 16 columns (as blockMulR16 for 16 rows, and for 4 rows a block of
// 4 x 16): sums of row r at out + 64r.
//
// func block2MulR4(k int, a, b, out *float32)
TEXT ·block2MulR4(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ out+24(FP), DI
	YSUMSIN(0)

loop:
	VMOVUPS 0(BX), Y8
	VMOVUPS 32(BX), Y9
	VBROADCASTSS 0(AX), Y10
	VBROADCASTSS 4(AX), Y11
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y10, Y5
	VFMADD231PS Y8, Y11, Y6
	VFMADD231PS Y9, Y11, Y7
	ADDQ $16, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop
	YSUMSOUT(0)
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

rows12:
	VMOVUPS 0(BX), Y8
	VMOVUPS 32(BX), Y9
	VBROADCASTSS 0(AX), Y10
	VBROADCASTSS 4(AX), Y11
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y10, Y5
	VFMADD231PS Y8, Y11, Y6
	VFMADD231PS Y9, Y11, Y7
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  rows12
	YSUMSOUT(0)
	VZEROUPPER
	RET
