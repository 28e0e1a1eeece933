//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"
#include "vbmi_amd64.h"

// The AVX-512 kernels for block-scaled weights (blockscaled.go): B packed in panels of 128 columns of
// f4e2m1fn (two codes a byte: column 16p+i is nibble p of the row's little-endian dword i) or 64 of
// f8e4m3fn or f8e5m2, 64 bytes a row; beside each panel its scale codes, one row of 128 or 64 per block of
// bk rows. Every element is decoded exactly to float32 and multiplied by its scale, rounded once (the
// general way), or, with per-block scaling (flag 2), left unscaled while the sums are scaled by the
// inverse of a block's scales where it starts and by its scales where it ends (by the quotient of the two
// where one block follows another); the caller has checked that this gives the same bits. Flag 1 says
// that the scales are f8e4m3fn (else f8e8m0fnu), flag 4 that no element is NaN (the f8e4m3fn decoding
// then skips its NaN check), flag 8 takes the columns 64 to 127 of a row of f4e2m1fn (decoders).
//
// Decoding, 16 elements into a zmm register:
//   f4e2m1fn: VPERMPS looks up the 16 values of the format (Z31) by the low 4 bits of each dword: the
//             row's dwords shifted right by 4p give the 16 codes of nibble p.
//   f8e4m3fn: sign-extended to words and shifted left by 7, the code's 4 exponent bits fall into the low 4
//             of a binary16's exponent and its 3 mantissa bits into the top 3 of its mantissa; with the
//             copy of the sign in bit 14 cleared (0xbf80), VCVTPH2PS gives 2^-8 times the value exactly,
//             subnormals included (as normal float32 values, which multiply at full speed). The NaN code
//             (0x7f, 0xff; 0x3f80 in the word) is made NaN where it may occur.
//   f8e5m2:   the code is the high byte of a binary16: VCVTPH2PS widens it exactly, NaN and infinities
//             included.
// Scales, 16 at a time:
//   f8e8m0fnu: code c gives the exponent c - 127 (less the decoding's own 2^-8 for f8e4m3fn elements) as
//             a float32, NaN for 0xff; VSCALEFPS multiplies by 2^exponent with one rounding (an element
//             times 2^-127 comes out as the exact subnormal, one past the range as an infinity).
//   f8e4m3fn: decoded as the elements, 2^-8 times the scale (the f4e2m1fn values in Z31 are 2^8 times the
//             format's; f8e4m3fn and f8e5m2 elements take the scale times 2^16 or 2^8); the NaN codes made
//             NaN. The product of an element and a scale is exact, so VMULPS rounds it once.
//
// func blockTYPER1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int)
//
// adds to out (one row of sums, 128 or 64) the products of k steps of a and of B at b, whose first block
// ends after first rows. Registers: CX steps left, R9 bk, R10 steps left in the current block, R12 steps
// of the current segment, AX a, BX b, SI the current block's scales, DI out, R11 flags.

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

// E8M0CONSTS loads 255, bias and a quiet NaN into Z26, Z27 and Z28 for E8M0.
#define E8M0CONSTS(bias) \
	MOVL $255, R8; \
	VPBROADCASTD R8, Z26; \
	MOVL bias, R8; \
	VPBROADCASTD R8, Z27; \
	MOVL $0x7fc00000, R8; \
	VPBROADCASTD R8, Z28

// E8M0 sets z to the exponents of the 16 scales at off(reg): c - bias as float32, NaN for 0xff.
#define E8M0(reg, off, z) \
	VPMOVZXBD off(reg), z; \
	VPCMPEQD Z26, z, K1; \
	VPSUBD Z27, z, z; \
	VCVTDQ2PS z, z; \
	VMOVAPS Z28, K1, z

// E4M3CONSTS loads the words 0xbf80 and 0x8000 into Z26 and Z27, a quiet NaN into Z28, and mult (a float32,
// times the scales) into Z29.
#define E4M3CONSTS(mult) \
	MOVL $0xbf80bf80, R8; \
	VPBROADCASTD R8, Z26; \
	MOVL $0x80008000, R8; \
	VPBROADCASTD R8, Z27; \
	MOVL $0x7fc00000, R8; \
	VPBROADCASTD R8, Z28; \
	MOVL mult, R8; \
	VPBROADCASTD R8, Z29

// E4M3WORDS loads the words 0xbf80 into Z26, for E4M3 alone.
#define E4M3WORDS \
	MOVL $0xbf80bf80, R8; \
	VPBROADCASTD R8, Z26

// E4M3 decodes the 16 f8e4m3fn codes at off(reg) into z, 2^-8 times their values (wrong for the NaN code);
// E4M3N does so NaN included (Y25 and K1 scratch; Z26-Z28 from E4M3CONSTS).
#define E4M3(reg, off, z, y) \
	VPMOVSXBW off(reg), y; \
	VPSLLW $7, y, y; \
	VPANDD Y26, y, y; \
	VCVTPH2PS y, z

#define E4M3N(reg, off, z, y) \
	VPMOVSXBW off(reg), y; \
	VPSLLW $7, y, y; \
	VPANDD Y26, y, y; \
	VPORD Y27, y, Y25; \
	VPCMPEQW Y26, Y25, K1; \
	VCVTPH2PS y, z; \
	VMOVAPS Z28, K1, z

// E4M3S sets z to the 16 f8e4m3fn scales at off(reg) times 2^-8 and the multiplier in Z29.
#define E4M3S(reg, off, z, y) \
	E4M3N(reg, off, z, y); \
	VMULPS Z29, z, z

// Per-block scaling keeps the current block's scale codes as dwords in Z16-Z19 (Z16-Z23 for 128
// columns) and the bias of their exponents in Z27. PBSTART scales the sums in s by 2^(bias-c) for the
// codes c of the block (at off(reg)), PBNEXT by 2^(c-c') for those c' of the next block at off(reg), and
// PBEND by 2^(c-bias) (Z25, Z28 scratch).
#define PBSTART(reg, off, c, s) \
	VPMOVZXBD off(reg), c; \
	VPSUBD c, Z27, Z25; \
	VCVTDQ2PS Z25, Z25; \
	VSCALEFPS Z25, s, s

#define PBNEXT(reg, off, c, s) \
	VPMOVZXBD off(reg), Z25; \
	VPSUBD Z25, c, Z28; \
	VMOVDQA32 Z25, c; \
	VCVTDQ2PS Z28, Z28; \
	VSCALEFPS Z28, s, s

#define PBEND(c, s) \
	VPSUBD Z27, c, Z25; \
	VCVTDQ2PS Z25, Z25; \
	VSCALEFPS Z25, s, s

// PBSTARTS, PBNEXTS and PBENDS do so for the four runs of 16 columns from off: codes c0-c3, sums s0-s3.
#define PBSTARTS(reg, off, c0, c1, c2, c3, s0, s1, s2, s3) \
	PBSTART(reg, off, c0, s0); \
	PBSTART(reg, off+16, c1, s1); \
	PBSTART(reg, off+32, c2, s2); \
	PBSTART(reg, off+48, c3, s3)

#define PBNEXTS(reg, off, c0, c1, c2, c3, s0, s1, s2, s3) \
	PBNEXT(reg, off, c0, s0); \
	PBNEXT(reg, off+16, c1, s1); \
	PBNEXT(reg, off+32, c2, s2); \
	PBNEXT(reg, off+48, c3, s3)

#define PBENDS(c0, c1, c2, c3, s0, s1, s2, s3) \
	PBEND(c0, s0); \
	PBEND(c1, s1); \
	PBEND(c2, s2); \
	PBEND(c3, s3)

// SCALES8E4M3 decodes the f8e4m3fn scales of 128 columns into Z16-Z23 with dec (E4M3, or E4M3N for NaN).
#define SCALES8E4M3(dec) \
	dec(SI, 0, Z16, Y16); \
	dec(SI, 16, Z17, Y17); \
	dec(SI, 32, Z18, Y18); \
	dec(SI, 48, Z19, Y19); \
	dec(SI, 64, Z20, Y20); \
	dec(SI, 80, Z21, Y21); \
	dec(SI, 96, Z22, Y22); \
	dec(SI, 112, Z23, Y23)

// R1ROWS is the loop over the R12 rows of a segment: broadcast the element of A, decode the row of B into
// Z8 on, scale it (apply: APPLY4, APPLY8 or UNSCALED), add it times A to the sums.
#define UNSCALED

#define R1ROWS(label, decode, apply, fma) \
label: \
	PREFETCHT1 (DX); \
	VBROADCASTSS (AX), Z24; \
	decode; \
	apply; \
	fma; \
	ADDQ $4, AX; \
	ADDQ $64, BX; \
	ADDQ $64, DX; \
	DECQ R12; \
	JNZ  label

// FP4ROW decodes a row of 128 f4e2m1fn codes into Z8-Z15. (Loading the row again from BX+1 to BX+3, for
// nibbles 2, 4 and 6 in the dwords' low bits without shifts, measured slower: those loads cross lines.)
#define FP4ROW \
	VMOVDQU32 (BX), Z8; \
	VPSRLD $4, Z8, Z9; \
	VPSRLD $8, Z8, Z10; \
	VPSRLD $12, Z8, Z11; \
	VPSRLD $16, Z8, Z12; \
	VPSRLD $20, Z8, Z13; \
	VPSRLD $24, Z8, Z14; \
	VPSRLD $28, Z8, Z15; \
	VPERMPS Z31, Z8, Z8; \
	VPERMPS Z31, Z9, Z9; \
	VPERMPS Z31, Z10, Z10; \
	VPERMPS Z31, Z11, Z11; \
	VPERMPS Z31, Z12, Z12; \
	VPERMPS Z31, Z13, Z13; \
	VPERMPS Z31, Z14, Z14; \
	VPERMPS Z31, Z15, Z15

// APPLY4 and APPLY8 scale the decoded Z8-Z11 (Z8-Z15) by the scales in Z16-Z19 (Z16-Z23) with op.
#define APPLY4(op) \
	op Z16, Z8, Z8; \
	op Z17, Z9, Z9; \
	op Z18, Z10, Z10; \
	op Z19, Z11, Z11

#define APPLY8(op) \
	APPLY4(op); \
	op Z20, Z12, Z12; \
	op Z21, Z13, Z13; \
	op Z22, Z14, Z14; \
	op Z23, Z15, Z15

// FMA4 and FMA8 add Z8-Z11 (Z8-Z15) times the element of A in Z24 to the sums Z0-Z3 (Z0-Z7).
#define FMA4 \
	VFMADD231PS Z8, Z24, Z0; \
	VFMADD231PS Z9, Z24, Z1; \
	VFMADD231PS Z10, Z24, Z2; \
	VFMADD231PS Z11, Z24, Z3

#define FMA8 \
	FMA4; \
	VFMADD231PS Z12, Z24, Z4; \
	VFMADD231PS Z13, Z24, Z5; \
	VFMADD231PS Z14, Z24, Z6; \
	VFMADD231PS Z15, Z24, Z7

// func blockFP4R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockFP4R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ tab+56(FP), DX
	MOVQ flags+72(FP), R11
	VMOVUPS (DX), Z31
	MOVQ pf+80(FP), DX
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	TESTQ $2, R11
	JNZ   perblock
	// The constants of the scales' decoding stay for the whole call (the rows do not touch Z25-Z29).
	TESTQ $1, R11
	JNZ   e4m3consts
	E8M0CONSTS($127)
	JMP   segment

e4m3consts:
	E4M3CONSTS($0x3f800000)

segment:
	SEGMENT
	TESTQ $1, R11
	JNZ   e4m3
	E8M0(SI, 0, Z16)
	E8M0(SI, 16, Z17)
	E8M0(SI, 32, Z18)
	E8M0(SI, 48, Z19)
	E8M0(SI, 64, Z20)
	E8M0(SI, 80, Z21)
	E8M0(SI, 96, Z22)
	E8M0(SI, 112, Z23)
	R1ROWS(e8m0rows, FP4ROW, APPLY8(VSCALEFPS), FMA8)
	JMP next

e4m3:
	// The table holds the codes' values times 2^8, so the scales need no multiplier; where none is NaN
	// (flag 16) they need no NaN check either.
	TESTQ $16, R11
	JZ    e4m3nan
	SCALES8E4M3(E4M3)
	JMP   e4m3rows

e4m3nan:
	SCALES8E4M3(E4M3N)
	R1ROWS(e4m3rows, FP4ROW, APPLY8(VMULPS), FMA8)

next:
	NEXTBLOCK($128, done)
	JMP segment

perblock:
	MOVL $127, R8
	VPBROADCASTD R8, Z27
	PBSTARTS(SI, 0, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3)
	PBSTARTS(SI, 64, Z20, Z21, Z22, Z23, Z4, Z5, Z6, Z7)

pbsegment:
	SEGMENT
	R1ROWS(pbrows, FP4ROW, UNSCALED, FMA8)
	NEXTBLOCK($128, pbdone)
	PBNEXTS(SI, 0, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3)
	PBNEXTS(SI, 64, Z20, Z21, Z22, Z23, Z4, Z5, Z6, Z7)
	JMP pbsegment

pbdone:
	PBENDS(Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3)
	PBENDS(Z20, Z21, Z22, Z23, Z4, Z5, Z6, Z7)

done:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VZEROUPPER
	RET

// E4M3ROW decodes a row of 64 f8e4m3fn codes into Z8-Z11, 2^-8 times their values, wrong for the NaN
// code, 32 words at a time (the halves then widened apart); E4M3ROWN NaN included, 16 at a time.
#define E4M3ROW \
	VPMOVSXBW 0(BX), Z8; \
	VPMOVSXBW 32(BX), Z10; \
	VPSLLW $7, Z8, Z8; \
	VPSLLW $7, Z10, Z10; \
	VPANDD Z26, Z8, Z8; \
	VPANDD Z26, Z10, Z10; \
	VEXTRACTI64X4 $1, Z8, Y9; \
	VEXTRACTI64X4 $1, Z10, Y11; \
	VCVTPH2PS Y8, Z8; \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VCVTPH2PS Y11, Z11

#define E4M3ROWN \
	E4M3N(BX, 0, Z8, Y8); \
	E4M3N(BX, 16, Z9, Y9); \
	E4M3N(BX, 32, Z10, Y10); \
	E4M3N(BX, 48, Z11, Y11)

// PB4 is per-block scaling of 64 columns, from the label perblock on: rows decodes a row into Z8-Z11
// (with a constant in Z26 that setup loads), bias is that of the exponents of the E8M0 scales; codes makes
// each block's scale codes ready at reg (SAMECODES: they are read where they lie, at SI). It ends at done.
#define SAMECODES

#define PB4(rows, setup, bias, codes, reg) \
perblock: \
	setup; \
	MOVL bias, R8; \
	VPBROADCASTD R8, Z27; \
	codes; \
	PBSTARTS(reg, 0, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3); \
pbsegment: \
	SEGMENT; \
	R1ROWS(pbrows, rows, UNSCALED, FMA4); \
	NEXTBLOCK($64, pbdone); \
	codes; \
	PBNEXTS(reg, 0, Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3); \
	JMP pbsegment; \
pbdone: \
	PBENDS(Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3); \
	JMP done

// EXACT4 is the body of a kernel of 64 columns whose rows decodes into the exact values of the elements
// (f8e5m2, and the lookups of blockF8R1VBMI), after R1START: segment by segment, each block's scales (made
// ready at reg by codes, as PB4's) decoded and applied to each element (E8M0: VSCALEFPS by 2^(c-127);
// f8e4m3fn: times their values), or per-block scaling (PB4). It ends at done.
#define EXACT4(rows, codes, reg) \
segment: \
	SEGMENT; \
	codes; \
	TESTQ $1, R11; \
	JNZ   e4m3; \
	E8M0CONSTS($127); \
	SCALES4E8M0(reg); \
	R1ROWS(e8m0rows, rows, APPLY4(VSCALEFPS), FMA4); \
	JMP next; \
e4m3: \
	E4M3CONSTS($0x43800000); \
	SCALES4E4M3(reg); \
	R1ROWS(e4m3rows, rows, APPLY4(VMULPS), FMA4); \
next: \
	NEXTBLOCK($64, done); \
	JMP segment; \
	PB4(rows, UNSCALED, $127, codes, reg)

// R1START loads the sums Z0-Z3 of a kernel of 64 columns, and jumps to perblock for per-block scaling.
#define R1START \
	VMOVUPS 0(DI), Z0; \
	VMOVUPS 64(DI), Z1; \
	VMOVUPS 128(DI), Z2; \
	VMOVUPS 192(DI), Z3; \
	TESTQ $2, R11; \
	JNZ   perblock

// R1DONE stores the sums Z0-Z3.
#define R1DONE \
	VMOVUPS Z0, 0(DI); \
	VMOVUPS Z1, 64(DI); \
	VMOVUPS Z2, 128(DI); \
	VMOVUPS Z3, 192(DI); \
	VZEROUPPER; \
	RET

// SCALES4E8M0 and SCALES4E4M3 decode the scales of 64 columns at reg into Z16-Z19.
#define SCALES4E8M0(reg) \
	E8M0(reg, 0, Z16); \
	E8M0(reg, 16, Z17); \
	E8M0(reg, 32, Z18); \
	E8M0(reg, 48, Z19)

#define SCALES4E4M3(reg) \
	E4M3S(reg, 0, Z16, Y16); \
	E4M3S(reg, 16, Z17, Y17); \
	E4M3S(reg, 32, Z18, Y18); \
	E4M3S(reg, 48, Z19, Y19)

// func blockE4M3R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockE4M3R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	R1START

segment:
	SEGMENT
	TESTQ $1, R11
	JNZ   e4m3
	E8M0CONSTS($119)
	SCALES4E8M0(SI)
	E4M3CONSTS($0x3f800000)
	TESTQ $4, R11
	JNZ   e8m0finite
	R1ROWS(e8m0rows, E4M3ROWN, APPLY4(VSCALEFPS), FMA4)
	JMP next
e8m0finite:
	R1ROWS(e8m0frows, E4M3ROW, APPLY4(VSCALEFPS), FMA4)
	JMP next

e4m3:
	E4M3CONSTS($0x47800000)
	SCALES4E4M3(SI)
	TESTQ $4, R11
	JNZ   e4m3finite
	R1ROWS(e4m3rows, E4M3ROWN, APPLY4(VMULPS), FMA4)
	JMP next
e4m3finite:
	R1ROWS(e4m3frows, E4M3ROW, APPLY4(VMULPS), FMA4)

next:
	NEXTBLOCK($64, done)
	JMP segment

	PB4(E4M3ROW, E4M3WORDS, $119, SAMECODES, SI)

done:
	R1DONE

// blockF8R1VBMI is blockE4M3R1 and blockE5M2R1 for CPUs with AVX-512 VBMI, the elements decoded by the
// byte lookups of the streaming kernels (LOOKUP64, vbmi_amd64.h) in the table at tab (bf16Table of the
// element type: their exact values, NaN codes included): 9 operations on the vector units a row of 64
// where the decodings through binary16 take 16 (f8e4m3fn) and 14 (f8e5m2). The columns come out of the lookups in another
// order (see LOOKUP64), so the sums are put in that order once a call (SUMSPERMIN, SUMSPERMOUT), and each
// block's 64 scale codes once a block: VPERMB puts the codes of the columns of register g in bytes
// 16g..16g+15 of buf (blockVBMIScales), where the scales' decodings read them.
DATA blockVBMIScales<>+0(SB)/8, $0x1614121006040200
DATA blockVBMIScales<>+8(SB)/8, $0x3634323026242220
DATA blockVBMIScales<>+16(SB)/8, $0x1715131107050301
DATA blockVBMIScales<>+24(SB)/8, $0x3735333127252321
DATA blockVBMIScales<>+32(SB)/8, $0x1e1c1a180e0c0a08
DATA blockVBMIScales<>+40(SB)/8, $0x3e3c3a382e2c2a28
DATA blockVBMIScales<>+48(SB)/8, $0x1f1d1b190f0d0b09
DATA blockVBMIScales<>+56(SB)/8, $0x3f3d3b392f2d2b29
GLOBL blockVBMIScales<>(SB), RODATA|NOPTR, $64

// VBMICONSTS loads the tables at R14 (low bytes Z12, Z13; high bytes Z14, Z15), the sign's mask (Z20),
// the high words' (Z21) and the order of the scales (Z22).
#define VBMICONSTS \
	VMOVDQU64 0(R14), Z12; \
	VMOVDQU64 64(R14), Z13; \
	VMOVDQU64 128(R14), Z14; \
	VMOVDQU64 192(R14), Z15; \
	VMOVDQU64 blockVBMIScales<>(SB), Z22; \
	MOVL $0x80808080, R8; \
	VPBROADCASTD R8, Z20; \
	MOVL $0xffff0000, R8; \
	VPBROADCASTD R8, Z21

// VBMIROW decodes the row of 64 codes at BX into Z8-Z11 (Z23, Z25 scratch).
#define VBMIROW LOOKUP64(Z12, Z13, Z14, Z15, Z20, Z21, Z8, Z9, Z23, Z25, Z8, Z9, Z10, Z11)

// VBMISCALES puts the current block's 64 scale codes in the order of the sums into buf (R13; Z25 scratch).
#define VBMISCALES \
	VPERMB (SI), Z22, Z25; \
	VMOVDQU64 Z25, (R13)

// func blockF8R1VBMI(k, bk, first int, a *float32, b, s *byte, out *float32, tab *[256]byte, buf *float32, flags int, pf *byte)
TEXT ·blockF8R1VBMI(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ tab+56(FP), R14
	MOVQ buf+64(FP), R13
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	SUMSPERMIN(0, Z0, Z1, Z2, Z3)
	VBMICONSTS
	TESTQ $2, R11
	JNZ   perblock

	EXACT4(VBMIROW, VBMISCALES, R13)

done:
	SUMSPERMOUT(0, Z0, Z1, Z2, Z3)
	VZEROUPPER
	RET

// E5M2ROW decodes a row of 64 f8e5m2 codes into Z8-Z11, 32 words at a time.
#define E5M2ROW \
	VPMOVZXBW 0(BX), Z8; \
	VPMOVZXBW 32(BX), Z10; \
	VPSLLW $8, Z8, Z8; \
	VPSLLW $8, Z10, Z10; \
	VEXTRACTI64X4 $1, Z8, Y9; \
	VEXTRACTI64X4 $1, Z10, Y11; \
	VCVTPH2PS Y8, Z8; \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VCVTPH2PS Y11, Z11

// func blockE5M2R1(k, bk, first int, a *float32, b, s *byte, out *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockE5M2R1(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ a+24(FP), AX
	MOVQ b+32(FP), BX
	MOVQ s+40(FP), SI
	MOVQ out+48(FP), DI
	MOVQ flags+72(FP), R11
	MOVQ pf+80(FP), DX
	R1START

	EXACT4(E5M2ROW, SAMECODES, SI)

done:
	R1DONE

// The decoders: the values of k rows of 64 columns (of f4e2m1fn, half of a row's 128), each element
// times its scale rounded once, as four strips of 16 columns at dst, 4096 bytes apart (blockScaledChunk
// rows of 16 float32 values), row after row. The scales are at s, one row of them per block (the panel's
// width apart), the first block ending after first rows.
//
// func blockDecodeTYPE(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
//
// Registers as in the R1 kernels, DI the row of dst.

// DECROWS is the loop over the R12 rows of a segment: decode a row into Z8-Z11, scale it with apply,
// store it into the strips at DI.
#define DECROWS(label, decode, apply) \
label: \
	PREFETCHT0 (AX); \
	decode; \
	apply; \
	VMOVUPS Z8, 0(DI); \
	VMOVUPS Z9, 4096(DI); \
	VMOVUPS Z10, 8192(DI); \
	VMOVUPS Z11, 12288(DI); \
	ADDQ $64, AX; \
	ADDQ $64, DI; \
	ADDQ $64, BX; \
	DECQ R12; \
	JNZ  label

// FP4ROW4 decodes 64 f4e2m1fn codes of a row into Z8-Z11: the nibbles 0-3 of its dwords shifted right by
// the count in X0 (0, or 16 for the columns 64-127).
#define FP4ROW4 \
	VMOVDQU32 (BX), Z8; \
	VPSRLD X0, Z8, Z8; \
	VPSRLD $4, Z8, Z9; \
	VPSRLD $8, Z8, Z10; \
	VPSRLD $12, Z8, Z11; \
	VPERMPS Z31, Z8, Z8; \
	VPERMPS Z31, Z9, Z9; \
	VPERMPS Z31, Z10, Z10; \
	VPERMPS Z31, Z11, Z11

// DECEND returns from a decoder.
#define DECEND \
	VZEROUPPER; \
	RET

// func blockDecodeFP4(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockDecodeFP4(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ tab+48(FP), DX
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX
	VMOVUPS (DX), Z31
	MOVQ R11, R8
	ANDQ $8, R8
	SHLQ $1, R8
	VMOVQ R8, X0

segment:
	SEGMENT
	TESTQ $1, R11
	JNZ   e4m3
	E8M0CONSTS($127)
	SCALES4E8M0(SI)
	DECROWS(e8m0rows, FP4ROW4, APPLY4(VSCALEFPS))
	JMP next

e4m3:
	E4M3CONSTS($0x3f800000)
	SCALES4E4M3(SI)
	DECROWS(e4m3rows, FP4ROW4, APPLY4(VMULPS))

next:
	NEXTBLOCK($128, done)
	JMP segment

done:
	DECEND

// func blockDecodeE4M3(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockDecodeE4M3(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX

segment:
	SEGMENT
	TESTQ $1, R11
	JNZ   e4m3
	E8M0CONSTS($119)
	SCALES4E8M0(SI)
	E4M3CONSTS($0x3f800000)
	TESTQ $4, R11
	JNZ   e8m0finite
	DECROWS(e8m0rows, E4M3ROWN, APPLY4(VSCALEFPS))
	JMP next
e8m0finite:
	DECROWS(e8m0frows, E4M3ROW, APPLY4(VSCALEFPS))
	JMP next

e4m3:
	E4M3CONSTS($0x47800000)
	SCALES4E4M3(SI)
	TESTQ $4, R11
	JNZ   e4m3finite
	DECROWS(e4m3rows, E4M3ROWN, APPLY4(VMULPS))
	JMP next
e4m3finite:
	DECROWS(e4m3frows, E4M3ROW, APPLY4(VMULPS))

next:
	NEXTBLOCK($64, done)
	JMP segment

done:
	DECEND

// func blockDecodeE5M2(k, bk, first int, b, s *byte, dst *float32, tab *float32, buf *float32, flags int, pf *byte)
TEXT ·blockDecodeE5M2(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX

segment:
	SEGMENT
	TESTQ $1, R11
	JNZ   e4m3
	E8M0CONSTS($127)
	SCALES4E8M0(SI)
	DECROWS(e8m0rows, E5M2ROW, APPLY4(VSCALEFPS))
	JMP next

e4m3:
	E4M3CONSTS($0x43800000)
	SCALES4E4M3(SI)
	DECROWS(e4m3rows, E5M2ROW, APPLY4(VMULPS))

next:
	NEXTBLOCK($64, done)
	JMP segment

done:
	DECEND

// The multipliers: they add to out the products of k steps of A (packed k-major, 4 or 16 values a step)
// and of B decoded (strips of 16 float32 values a row, 4096 bytes apart), in order of k.
//
// func blockMulR4(k int, a, b, out *float32): four rows by four strips into 4 x 64 sums, row-major.
TEXT ·blockMulR4(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ out+24(FP), DI
	SUMSIN16

loop:
	VMOVUPS 0(BX), Z16
	VMOVUPS 4096(BX), Z17
	VMOVUPS 8192(BX), Z18
	VMOVUPS 12288(BX), Z19
	VBROADCASTSS 0(AX), Z20
	VBROADCASTSS 4(AX), Z21
	VBROADCASTSS 8(AX), Z22
	VBROADCASTSS 12(AX), Z23
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VFMADD231PS Z16, Z21, Z4
	VFMADD231PS Z17, Z21, Z5
	VFMADD231PS Z18, Z21, Z6
	VFMADD231PS Z19, Z21, Z7
	VFMADD231PS Z16, Z22, Z8
	VFMADD231PS Z17, Z22, Z9
	VFMADD231PS Z18, Z22, Z10
	VFMADD231PS Z19, Z22, Z11
	VFMADD231PS Z16, Z23, Z12
	VFMADD231PS Z17, Z23, Z13
	VFMADD231PS Z18, Z23, Z14
	VFMADD231PS Z19, Z23, Z15
	ADDQ $16, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop
	SUMSOUT16
	VZEROUPPER
	RET

// MULSTRIP is the body of blockMulR8 and blockMulR16, after their arguments are loaded: the sums in and
// out (sumsin, sumsout), and the loop over the steps of k, the multiply-adds (fma) of astep bytes of A
// by a row of the strip.
#define MULSTRIP(sumsin, fma, astep, sumsout) \
	sumsin; \
loop: \
	VMOVUPS (BX), Z16; \
	fma; \
	ADDQ astep, AX; \
	ADDQ $64, BX; \
	DECQ CX; \
	JNZ  loop; \
	sumsout; \
	VZEROUPPER; \
	RET

// func blockMulR8(k int, a, b, out *float32): 8 rows by one strip into 8 x 16 sums, row-major.
TEXT ·blockMulR8(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ out+24(FP), DI
	MULSTRIP(SUMSIN8, FMAR8, $32, SUMSOUT8)

// func blockMulR16(k int, a, b, out *float32): 16 rows by one strip into 16 x 16 sums, row-major.
TEXT ·blockMulR16(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ out+24(FP), DI
	MULSTRIP(SUMSIN16, FMAR16, $64, SUMSOUT16)

// blockDecodeF8VBMI is blockDecodeE4M3 and blockDecodeE5M2 by the byte lookups of blockF8R1VBMI in tab:
// strip g takes the columns of the lookups' register g (vbmiSums), each element times its scale (the
// block's scale codes put in the same order in buf).
//
// func blockDecodeF8VBMI(k, bk, first int, b, s *byte, dst *float32, tab *[256]byte, buf *float32, flags int, pf *byte)
TEXT ·blockDecodeF8VBMI(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ bk+8(FP), R9
	MOVQ first+16(FP), R10
	MOVQ b+24(FP), BX
	MOVQ s+32(FP), SI
	MOVQ dst+40(FP), DI
	MOVQ tab+48(FP), R14
	MOVQ buf+56(FP), R13
	MOVQ flags+64(FP), R11
	MOVQ pf+72(FP), AX
	VBMICONSTS

segment:
	SEGMENT
	VBMISCALES
	TESTQ $1, R11
	JNZ   e4m3
	E8M0CONSTS($127)
	SCALES4E8M0(R13)
	DECROWS(e8m0rows, VBMIROW, APPLY4(VSCALEFPS))
	JMP next

e4m3:
	E4M3CONSTS($0x43800000)
	SCALES4E4M3(R13)
	DECROWS(e4m3rows, VBMIROW, APPLY4(VMULPS))

next:
	NEXTBLOCK($64, done)
	JMP segment

done:
	DECEND
