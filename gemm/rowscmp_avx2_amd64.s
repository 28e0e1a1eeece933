//go:build !purego

#include "textflag.h"

// The compare and select row kernels in AVX2. A compare makes a doubleword mask of eight elements a
// register (all ones where true), packs four masks to 32 bytes of 0 or -1 with signed saturation, puts
// them in order and turns them into 0 and 1: ANDed with bytes of 1, or, for a kernel whose mask is the
// negation of its result, added to them (-1 + 1 = 0, 0 + 1 = 1). A select widens eight predicate bytes
// to doublewords, compares them with zero and blends y where they are zero, x elsewhere.

// cmpOrder is the doubleword order that undoes the packs' interleaving of the 128-bit lanes: after
// VPACKSSDW and VPACKSSWB of masks A, B, C, D, the doublewords hold (four elements each) A0 B0 C0 D0 in
// the low lane and A1 B1 C1 D1 in the high one.
DATA cmpOrder<>+0(SB)/4, $0
DATA cmpOrder<>+4(SB)/4, $4
DATA cmpOrder<>+8(SB)/4, $1
DATA cmpOrder<>+12(SB)/4, $5
DATA cmpOrder<>+16(SB)/4, $2
DATA cmpOrder<>+20(SB)/4, $6
DATA cmpOrder<>+24(SB)/4, $3
DATA cmpOrder<>+28(SB)/4, $7
GLOBL cmpOrder<>(SB), RODATA|NOPTR, $32

// The masks: each MASK(off, r, t) sets r to the doubleword mask of the eight elements at off(SI) (x)
// and off(DX) (y), t a scratch register. Go's assembly orders the operands backwards: VPCMPGTD y, x, d
// sets d = x > y, VCMPPS $p, y, x, d compares x with y.

// x == y.
#define MEQ(off, r, t) \
	VMOVDQU  off(SI), r; \
	VPCMPEQD off(DX), r, r

// x > y as int32.
#define MGTS(off, r, t) \
	VMOVDQU  off(SI), r; \
	VPCMPGTD off(DX), r, r

// y > x as int32: the negation of x >= y.
#define MLTS(off, r, t) \
	VMOVDQU  off(DX), r; \
	VPCMPGTD off(SI), r, r

// min(x, y) == x as uint32, x <= y: the negation of x > y.
#define MLEU(off, r, t) \
	VMOVDQU  off(SI), r; \
	VPMINUD  off(DX), r, t; \
	VPCMPEQD t, r, r

// max(x, y) == x as uint32, x >= y.
#define MGEU(off, r, t) \
	VMOVDQU  off(SI), r; \
	VPMAXUD  off(DX), r, t; \
	VPCMPEQD t, r, r

// The float compares, each predicate what Go's operator gives: EQ_OQ (false on a NaN), NEQ_UQ (true on
// a NaN), GT_OQ and GE_OQ (false on a NaN).
#define MEQF(off, r, t) \
	VMOVUPS off(SI), r; \
	VCMPPS  $0x00, off(DX), r, r

#define MNEF(off, r, t) \
	VMOVUPS off(SI), r; \
	VCMPPS  $0x04, off(DX), r, r

#define MGTF(off, r, t) \
	VMOVUPS off(SI), r; \
	VCMPPS  $0x1e, off(DX), r, r

#define MGEF(off, r, t) \
	VMOVUPS off(SI), r; \
	VCMPPS  $0x1d, off(DX), r, r

// CMPROWS sets (DI)[i] to 0 or 1 for CX elements (a multiple of 8) of (SI) and (DX): the mask of MASK
// made bytes by FIX (VPAND: the mask's own truth; VPADDB: its negation). 32 elements at a time, then 8.
#define CMPROWS(MASK, FIX) \
	VPCMPEQB Y15, Y15, Y15; \
	VPABSB   Y15, Y15; \
	VMOVDQU  cmpOrder<>(SB), Y14; \
	MOVQ     CX, BX; \
	SHRQ     $5, BX; \
	JZ       one; \
four: \
	MASK(0, Y0, Y4); \
	MASK(32, Y1, Y5); \
	MASK(64, Y2, Y6); \
	MASK(96, Y3, Y7); \
	VPACKSSDW Y1, Y0, Y0; \
	VPACKSSDW Y3, Y2, Y2; \
	VPACKSSWB Y2, Y0, Y0; \
	VPERMD    Y0, Y14, Y0; \
	FIX       Y15, Y0, Y0; \
	VMOVDQU   Y0, (DI); \
	ADDQ      $128, SI; \
	ADDQ      $128, DX; \
	ADDQ      $32, DI; \
	DECQ      BX; \
	JNZ       four; \
one: \
	ANDQ $31, CX; \
	SHRQ $3, CX; \
	JZ   done; \
loop: \
	MASK(0, Y0, Y4); \
	VEXTRACTI128 $1, Y0, X1; \
	VPACKSSDW    X1, X0, X0; \
	VPACKSSWB    X0, X0, X0; \
	FIX          X15, X0, X0; \
	VMOVQ        X0, (DI); \
	ADDQ         $32, SI; \
	ADDQ         $32, DX; \
	ADDQ         $8, DI; \
	DECQ         CX; \
	JNZ          loop; \
done: \
	VZEROUPPER

// func rowCmpEQ2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpEQ2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MEQ, VPAND)
	RET

// func rowCmpNE2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpNE2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MEQ, VPADDB)
	RET

// func rowCmpGTS2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGTS2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MGTS, VPAND)
	RET

// func rowCmpGES2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGES2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MLTS, VPADDB)
	RET

// func rowCmpGTU2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGTU2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MLEU, VPADDB)
	RET

// func rowCmpGEU2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGEU2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MGEU, VPAND)
	RET

// func rowCmpEQF2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpEQF2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MEQF, VPAND)
	RET

// func rowCmpNEF2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpNEF2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MNEF, VPAND)
	RET

// func rowCmpGTF2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGTF2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MGTF, VPAND)
	RET

// func rowCmpGEF2(dst *byte, x, y *uint32, n int)
TEXT ·rowCmpGEF2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	CMPROWS(MGEF, VPAND)
	RET

// func rowSel32x2(dst *uint32, p *byte, x, y *uint32, n int)
//
// n a multiple of 8: 32 elements at a time, then 8.
TEXT ·rowSel32x2(SB), NOSPLIT, $0-40
	MOVQ  dst+0(FP), DI
	MOVQ  p+8(FP), BX
	MOVQ  x+16(FP), SI
	MOVQ  y+24(FP), DX
	MOVQ  n+32(FP), CX
	VPXOR Y15, Y15, Y15
	MOVQ  CX, AX
	SHRQ  $5, AX
	JZ    one

four:
	VPMOVZXBD (BX), Y0
	VPMOVZXBD 8(BX), Y1
	VPMOVZXBD 16(BX), Y2
	VPMOVZXBD 24(BX), Y3
	VPCMPEQD  Y15, Y0, Y0
	VPCMPEQD  Y15, Y1, Y1
	VPCMPEQD  Y15, Y2, Y2
	VPCMPEQD  Y15, Y3, Y3
	VMOVDQU   (SI), Y4
	VMOVDQU   32(SI), Y5
	VMOVDQU   64(SI), Y6
	VMOVDQU   96(SI), Y7
	VPBLENDVB Y0, (DX), Y4, Y4
	VPBLENDVB Y1, 32(DX), Y5, Y5
	VPBLENDVB Y2, 64(DX), Y6, Y6
	VPBLENDVB Y3, 96(DX), Y7, Y7
	VMOVDQU   Y4, (DI)
	VMOVDQU   Y5, 32(DI)
	VMOVDQU   Y6, 64(DI)
	VMOVDQU   Y7, 96(DI)
	ADDQ      $32, BX
	ADDQ      $128, SI
	ADDQ      $128, DX
	ADDQ      $128, DI
	DECQ      AX
	JNZ       four

one:
	ANDQ $31, CX
	SHRQ $3, CX
	JZ   done

loop:
	VPMOVZXBD (BX), Y0
	VPCMPEQD  Y15, Y0, Y0
	VMOVDQU   (SI), Y4
	VPBLENDVB Y0, (DX), Y4, Y4
	VMOVDQU   Y4, (DI)
	ADDQ      $8, BX
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop

done:
	VZEROUPPER
	RET

// func rowSel8x2(dst, p, x, y *byte, n int)
//
// n a multiple of 32: 64 bytes at a time, then 32.
TEXT ·rowSel8x2(SB), NOSPLIT, $0-40
	MOVQ  dst+0(FP), DI
	MOVQ  p+8(FP), BX
	MOVQ  x+16(FP), SI
	MOVQ  y+24(FP), DX
	MOVQ  n+32(FP), CX
	VPXOR Y15, Y15, Y15
	MOVQ  CX, AX
	SHRQ  $6, AX
	JZ    one

two:
	VMOVDQU   (BX), Y0
	VMOVDQU   32(BX), Y1
	VPCMPEQB  Y15, Y0, Y0
	VPCMPEQB  Y15, Y1, Y1
	VMOVDQU   (SI), Y4
	VMOVDQU   32(SI), Y5
	VPBLENDVB Y0, (DX), Y4, Y4
	VPBLENDVB Y1, 32(DX), Y5, Y5
	VMOVDQU   Y4, (DI)
	VMOVDQU   Y5, 32(DI)
	ADDQ      $64, BX
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $64, DI
	DECQ      AX
	JNZ       two

one:
	TESTQ     $32, CX
	JZ        done
	VMOVDQU   (BX), Y0
	VPCMPEQB  Y15, Y0, Y0
	VMOVDQU   (SI), Y4
	VPBLENDVB Y0, (DX), Y4, Y4
	VMOVDQU   Y4, (DI)

done:
	VZEROUPPER
	RET
