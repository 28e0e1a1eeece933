//go:build !purego

#include "textflag.h"

// RoundBF16 and NarrowBF16 in AVX2, eight float32 words a register.

// RNDBF16 rounds the eight float32 values of r to bf16 in place, widened back to float32, as roundBF16
// does: a NaN (magnitude above 0x7f800000) becomes the quiet NaN of its sign, any other b becomes
// (b + 0x7fff + (b>>16)&1) with its low half cleared. Y9-Y15 hold the constants; t1-t3 scratch.
#define RNDBF16(r, t1, t2, t3) \
	VPAND     Y15, r, t1; \
	VPCMPGTD  Y14, t1, t1; \
	VPSRLD    $16, r, t2; \
	VPAND     Y13, t2, t2; \
	VPADDD    r, t2, t2; \
	VPADDD    Y12, t2, t2; \
	VPAND     Y9, t2, t2; \
	VPAND     Y11, r, t3; \
	VPOR      Y10, t3, t3; \
	VPBLENDVB t1, t3, t2, r

// The constants of RNDBF16, broadcast from memory (moved from a general register by the SSE MOVQ, they
// cost this machine more than the loop over a chunk of 2048 elements).
DATA roundConsts<>+0(SB)/4, $0x7fffffff
DATA roundConsts<>+4(SB)/4, $0x7f800000
DATA roundConsts<>+8(SB)/4, $1
DATA roundConsts<>+12(SB)/4, $0x7fff
DATA roundConsts<>+16(SB)/4, $0x80000000
DATA roundConsts<>+20(SB)/4, $0x7fc00000
DATA roundConsts<>+24(SB)/4, $0xffff0000
GLOBL roundConsts<>(SB), RODATA|NOPTR, $28

// func roundBF16x2(dst, src *float32, n int)
// Sixteen at a time (n a multiple of 8: a last eight alone).
TEXT ·roundBF16x2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VPBROADCASTD roundConsts<>+0(SB), Y15
	VPBROADCASTD roundConsts<>+4(SB), Y14
	VPBROADCASTD roundConsts<>+8(SB), Y13
	VPBROADCASTD roundConsts<>+12(SB), Y12
	VPBROADCASTD roundConsts<>+16(SB), Y11
	VPBROADCASTD roundConsts<>+20(SB), Y10
	VPBROADCASTD roundConsts<>+24(SB), Y9
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   eight
loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	RNDBF16(Y0, Y2, Y3, Y4)
	RNDBF16(Y1, Y5, Y6, Y7)
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    BX
	JNZ     loop
eight:
	TESTQ $8, CX
	JZ    done
	VMOVDQU (SI), Y0
	RNDBF16(Y0, Y2, Y3, Y4)
	VMOVDQU Y0, (DI)
done:
	VZEROUPPER
	RET

// func narrowBF16x2(dst *uint16, src *float32, n int)
// Sixteen at a time (n a multiple of 8: a last eight alone): each word's top half shifted down, packed
// (no value exceeds 0xffff, so the saturation never applies) and put back in order.
TEXT ·narrowBF16x2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   eight
loop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VPSRLD    $16, Y0, Y0
	VPSRLD    $16, Y1, Y1
	VPACKUSDW Y1, Y0, Y2
	VPERMQ    $0xd8, Y2, Y2
	VMOVDQU   Y2, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	DECQ      BX
	JNZ       loop
eight:
	TESTQ $8, CX
	JZ    done
	VMOVDQU   (SI), Y0
	VPSRLD    $16, Y0, Y0
	VPACKUSDW Y0, Y0, Y2
	VPERMQ    $0xd8, Y2, Y2
	VMOVDQU   X2, (DI)
done:
	VZEROUPPER
	RET
