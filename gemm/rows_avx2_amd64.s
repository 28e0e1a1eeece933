//go:build !purego

#include "textflag.h"

// The row kernels in AVX2: eight float32 lanes a register, each lane rounded as the Go loops of rows.go
// round it.

#define V0 Y0
#define V1 Y1
#define V2 Y2
#define V3 Y3
#define V4 Y4
#define V5 Y5
#define V6 Y6
#define V7 Y7
#define V8 Y8
#define V9 Y9
#define LANES 8
#define LANESHIFT 3
#define VBYTES 32
#define VZERO(r) VXORPS r, r, r

#include "rows_amd64.h"

// func rowAdd2(dst, x, y *float32, n int)
TEXT ·rowAdd2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VADDPS)
	RET

// func rowSub2(dst, x, y *float32, n int)
TEXT ·rowSub2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VSUBPS)
	RET

// func rowMul2(dst, x, y *float32, n int)
TEXT ·rowMul2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VMULPS)
	RET

// func rowDiv2(dst, x, y *float32, n int)
TEXT ·rowDiv2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VDIVPS)
	RET

// EXTREMUM2 sets (DI)[i] to XLA's maximum or minimum of x = (SI)[i] and y = (DX)[i] for CX elements (a
// multiple of 8), as EXTREMUM512 does: VMAXPS y, x, then y where y alone is a NaN (Y3: y unordered and x
// ordered).
#define EXTREMUM2(op) \
	SHRQ $3, CX; \
	JZ   done; \
loop: \
	VMOVUPS   (SI), Y0; \
	VMOVUPS   (DX), Y1; \
	op        Y0, Y1, Y2; \
	VCMPPS    $3, Y1, Y1, Y3; \
	VCMPPS    $7, Y0, Y0, Y4; \
	VANDPS    Y4, Y3, Y3; \
	VBLENDVPS Y3, Y1, Y2, Y2; \
	VMOVUPS   Y2, (DI); \
	ADDQ      $32, SI; \
	ADDQ      $32, DX; \
	ADDQ      $32, DI; \
	DECQ      CX; \
	JNZ       loop; \
done: \
	VZEROUPPER

// func rowMax2(dst, x, y *float32, n int)
TEXT ·rowMax2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	EXTREMUM2(VMAXPS)
	RET

// func rowMin2(dst, x, y *float32, n int)
TEXT ·rowMin2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	EXTREMUM2(VMINPS)
	RET

// ROUNDBF16 rounds the eight float32 values of r to bf16 in the low words of its lanes, as
// encodeBF16x512 does (Y10-Y15 hold its constants; Y4-Y6 scratch).
#define ROUNDBF16(r) \
	VPAND     Y15, r, Y4; \
	VPCMPGTD  Y14, Y4, Y4; \
	VPSRLD    $16, r, Y5; \
	VPAND     Y13, Y5, Y6; \
	VPADDD    r, Y6, Y6; \
	VPADDD    Y12, Y6, Y6; \
	VPSRLD    $16, Y6, Y6; \
	VPAND     Y11, Y5, Y5; \
	VPOR      Y10, Y5, Y5; \
	VPBLENDVB Y4, Y5, Y6, r

// func encodeBF16x2(dst *uint16, src *float32, n int)
// Sixteen at a time (n a multiple of 8: a last eight alone), rounded in two registers and packed.
TEXT ·encodeBF16x2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VMOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7f800000, AX
	VMOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $1, AX
	VMOVQ AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x7fff, AX
	VMOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x8000, AX
	VMOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVL $0x7fc0, AX
	VMOVQ AX, X10
	VPBROADCASTD X10, Y10
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   eight
loop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	ROUNDBF16(Y0)
	ROUNDBF16(Y1)
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
	ROUNDBF16(Y0)
	VPACKUSDW Y0, Y0, Y2
	VPERMQ    $0xd8, Y2, Y2
	VMOVDQU   X2, (DI)
done:
	VZEROUPPER
	RET

// func depthwise4x2(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int)
// As depthwise4x512, in blocks of 16 features (then one of 8).
TEXT ·depthwise4x2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), R9
	MOVQ ldk+32(FP), R12
	SHLQ $2, R12
	MOVQ n+48(FP), R13
	XORQ R8, R8
	DEPTHWISE(OFFSROWS(window+40(FP), offs+16(FP), src+8(FP), k+24(FP)), OFFSSTEP2, OFFSSTEP1)
	RET

// CLAMP2 sets Y2 to the float32 values of Y0 clamped to [Y14, Y15] as CLAMP512 does (Y1 scratch).
#define CLAMP2 \
	VMAXPS    Y0, Y14, Y1; \
	VCMPPS    $25, Y15, Y1, Y2; \
	VBLENDVPS Y2, Y1, Y15, Y2

// func clamp2(dst, x *float32, n int, lo, hi float32)
TEXT ·clamp2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS lo+24(FP), Y14
	VBROADCASTSS hi+28(FP), Y15
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (SI), Y0
	CLAMP2
	VMOVUPS Y2, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
done:
	VZEROUPPER
	RET

// CLAMPBF16 clamps the eight bf16 values at (SI) into the low words of r's lanes, as clampBF16x512 does
// (Y10-Y15 hold its constants and bounds; Y0-Y5 scratch).
#define CLAMPBF16(off, r) \
	VPMOVZXWD off(SI), Y0; \
	VPSLLD    $16, Y0, Y0; \
	CLAMP2; \
	VPSRLD    $16, Y2, r; \
	VPAND     Y13, Y2, Y4; \
	VPCMPGTD  Y12, Y4, Y4; \
	VPAND     Y11, r, Y5; \
	VPOR      Y10, Y5, Y5; \
	VPBLENDVB Y4, Y5, r, r

// func clampBF16x2(dst, x *uint16, n int, lo, hi float32)
// Sixteen at a time (n a multiple of 8: a last eight alone), clamped in two registers and packed.
TEXT ·clampBF16x2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS lo+24(FP), Y14
	VBROADCASTSS hi+28(FP), Y15
	MOVL $0x7fffffff, AX
	VMOVQ AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x7f800000, AX
	VMOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x8000, AX
	VMOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVL $0x7fc0, AX
	VMOVQ AX, X10
	VPBROADCASTD X10, Y10
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   eight
loop:
	CLAMPBF16(0, Y6)
	CLAMPBF16(16, Y7)
	VPACKUSDW Y7, Y6, Y8
	VPERMQ    $0xd8, Y8, Y8
	VMOVDQU   Y8, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      BX
	JNZ       loop
eight:
	TESTQ $8, CX
	JZ    done
	CLAMPBF16(0, Y6)
	VPACKUSDW Y6, Y6, Y8
	VPERMQ    $0xd8, Y8, Y8
	VMOVDQU   X8, (DI)
done:
	VZEROUPPER
	RET

// func depthwiseBases4x2(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int)
// As depthwiseBases4x512, in blocks of 16 features (then one of 8).
TEXT ·depthwiseBases4x2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), R9
	MOVQ ldk+40(FP), R12
	SHLQ $2, R12
	MOVQ n+56(FP), R13
	XORQ R8, R8
	DEPTHWISE(BASESROWS(window+48(FP), src+8(FP), bases+16(FP), deltas+24(FP), k+32(FP)), BASESSTEP2, BASESSTEP1)
	RET
