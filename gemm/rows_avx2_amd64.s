//go:build !purego

#include "textflag.h"

// The row kernels in AVX2: eight float32 lanes a register, each lane rounded as the Go loops of rows.go
// round it.

// BINARY2 sets (DI)[i] = (SI)[i] op (DX)[i] for CX elements (a multiple of 8): 32 at a time, then 8.
#define BINARY2(op) \
	MOVQ CX, BX; \
	SHRQ $5, BX; \
	JZ   one; \
four: \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS 64(SI), Y2; \
	VMOVUPS 96(SI), Y3; \
	op      (DX), Y0, Y0; \
	op      32(DX), Y1, Y1; \
	op      64(DX), Y2, Y2; \
	op      96(DX), Y3, Y3; \
	VMOVUPS Y0, (DI); \
	VMOVUPS Y1, 32(DI); \
	VMOVUPS Y2, 64(DI); \
	VMOVUPS Y3, 96(DI); \
	ADDQ    $128, SI; \
	ADDQ    $128, DX; \
	ADDQ    $128, DI; \
	DECQ    BX; \
	JNZ     four; \
one: \
	ANDQ $31, CX; \
	SHRQ $3, CX; \
	JZ   done; \
loop: \
	VMOVUPS (SI), Y0; \
	op      (DX), Y0, Y0; \
	VMOVUPS Y0, (DI); \
	ADDQ    $32, SI; \
	ADDQ    $32, DX; \
	ADDQ    $32, DI; \
	DECQ    CX; \
	JNZ     loop; \
done: \
	VZEROUPPER

// func rowAdd2(dst, x, y *float32, n int)
TEXT ·rowAdd2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY2(VADDPS)
	RET

// func rowSub2(dst, x, y *float32, n int)
TEXT ·rowSub2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY2(VSUBPS)
	RET

// func rowMul2(dst, x, y *float32, n int)
TEXT ·rowMul2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY2(VMULPS)
	RET

// func rowDiv2(dst, x, y *float32, n int)
TEXT ·rowDiv2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY2(VDIVPS)
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
	MOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7f800000, AX
	MOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $1, AX
	MOVQ AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x7fff, AX
	MOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x8000, AX
	MOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVL $0x7fc0, AX
	MOVQ AX, X10
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
// As depthwise4x512, in blocks of 16 features (then one of 8): four positions' sums in Y0-Y7, the
// kernel's row in Y8-Y9.
TEXT ·depthwise4x2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), R9
	MOVQ ldk+32(FP), R12
	SHLQ $2, R12
	MOVQ n+48(FP), R13
	XORQ R8, R8
block16:
	CMPQ R13, $16
	JLT  block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ window+40(FP), CX
	MOVQ offs+16(FP), AX
	MOVQ (AX), BX
	MOVQ 8(AX), DX
	MOVQ 16(AX), SI
	MOVQ 24(AX), DI
	MOVQ src+8(FP), R11
	ADDQ R8, R11
	MOVQ k+24(FP), R10
	ADDQ R8, R10
w16:
	VMOVUPS     (R10), Y8
	VMOVUPS     32(R10), Y9
	MOVQ        (BX), AX
	VFMADD231PS (R11)(AX*4), Y8, Y0
	VFMADD231PS 32(R11)(AX*4), Y9, Y1
	MOVQ        (DX), AX
	VFMADD231PS (R11)(AX*4), Y8, Y2
	VFMADD231PS 32(R11)(AX*4), Y9, Y3
	MOVQ        (SI), AX
	VFMADD231PS (R11)(AX*4), Y8, Y4
	VFMADD231PS 32(R11)(AX*4), Y9, Y5
	MOVQ        (DI), AX
	VFMADD231PS (R11)(AX*4), Y8, Y6
	VFMADD231PS 32(R11)(AX*4), Y9, Y7
	ADDQ        $8, BX
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $8, DI
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w16
	MOVQ    (R9), AX
	VMOVUPS Y0, (AX)(R8*1)
	VMOVUPS Y1, 32(AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Y2, (AX)(R8*1)
	VMOVUPS Y3, 32(AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Y4, (AX)(R8*1)
	VMOVUPS Y5, 32(AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Y6, (AX)(R8*1)
	VMOVUPS Y7, 32(AX)(R8*1)
	ADDQ    $64, R8
	SUBQ    $16, R13
	JMP     block16
block8:
	CMPQ R13, $8
	JLT  done
	VXORPS Y0, Y0, Y0
	VXORPS Y2, Y2, Y2
	VXORPS Y4, Y4, Y4
	VXORPS Y6, Y6, Y6
	MOVQ window+40(FP), CX
	MOVQ offs+16(FP), AX
	MOVQ (AX), BX
	MOVQ 8(AX), DX
	MOVQ 16(AX), SI
	MOVQ 24(AX), DI
	MOVQ src+8(FP), R11
	ADDQ R8, R11
	MOVQ k+24(FP), R10
	ADDQ R8, R10
w8:
	VMOVUPS     (R10), Y8
	MOVQ        (BX), AX
	VFMADD231PS (R11)(AX*4), Y8, Y0
	MOVQ        (DX), AX
	VFMADD231PS (R11)(AX*4), Y8, Y2
	MOVQ        (SI), AX
	VFMADD231PS (R11)(AX*4), Y8, Y4
	MOVQ        (DI), AX
	VFMADD231PS (R11)(AX*4), Y8, Y6
	ADDQ        $8, BX
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $8, DI
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w8
	MOVQ    (R9), AX
	VMOVUPS Y0, (AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Y2, (AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Y4, (AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Y6, (AX)(R8*1)
done:
	VZEROUPPER
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
	MOVQ AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x7f800000, AX
	MOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x8000, AX
	MOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVL $0x7fc0, AX
	MOVQ AX, X10
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
// As depthwiseBases4x512, in blocks of 16 features (then one of 8), as depthwise4x2.
TEXT ·depthwiseBases4x2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), R9
	MOVQ ldk+40(FP), R12
	SHLQ $2, R12
	MOVQ n+56(FP), R13
	XORQ R8, R8
block16:
	CMPQ R13, $16
	JLT  block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ window+48(FP), CX
	MOVQ src+8(FP), AX
	ADDQ R8, AX
	MOVQ bases+16(FP), R10
	MOVQ (R10), BX
	LEAQ (AX)(BX*4), BX
	MOVQ 8(R10), DX
	LEAQ (AX)(DX*4), DX
	MOVQ 16(R10), SI
	LEAQ (AX)(SI*4), SI
	MOVQ 24(R10), DI
	LEAQ (AX)(DI*4), DI
	MOVQ deltas+24(FP), R11
	MOVQ k+32(FP), R10
	ADDQ R8, R10
w16:
	VMOVUPS     (R10), Y8
	VMOVUPS     32(R10), Y9
	MOVQ        (R11), AX
	VFMADD231PS (BX)(AX*4), Y8, Y0
	VFMADD231PS 32(BX)(AX*4), Y9, Y1
	VFMADD231PS (DX)(AX*4), Y8, Y2
	VFMADD231PS 32(DX)(AX*4), Y9, Y3
	VFMADD231PS (SI)(AX*4), Y8, Y4
	VFMADD231PS 32(SI)(AX*4), Y9, Y5
	VFMADD231PS (DI)(AX*4), Y8, Y6
	VFMADD231PS 32(DI)(AX*4), Y9, Y7
	ADDQ        $8, R11
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w16
	MOVQ    (R9), AX
	VMOVUPS Y0, (AX)(R8*1)
	VMOVUPS Y1, 32(AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Y2, (AX)(R8*1)
	VMOVUPS Y3, 32(AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Y4, (AX)(R8*1)
	VMOVUPS Y5, 32(AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Y6, (AX)(R8*1)
	VMOVUPS Y7, 32(AX)(R8*1)
	ADDQ    $64, R8
	SUBQ    $16, R13
	JMP     block16
block8:
	CMPQ R13, $8
	JLT  done
	VXORPS Y0, Y0, Y0
	VXORPS Y2, Y2, Y2
	VXORPS Y4, Y4, Y4
	VXORPS Y6, Y6, Y6
	MOVQ window+48(FP), CX
	MOVQ src+8(FP), AX
	ADDQ R8, AX
	MOVQ bases+16(FP), R10
	MOVQ (R10), BX
	LEAQ (AX)(BX*4), BX
	MOVQ 8(R10), DX
	LEAQ (AX)(DX*4), DX
	MOVQ 16(R10), SI
	LEAQ (AX)(SI*4), SI
	MOVQ 24(R10), DI
	LEAQ (AX)(DI*4), DI
	MOVQ deltas+24(FP), R11
	MOVQ k+32(FP), R10
	ADDQ R8, R10
w8:
	VMOVUPS     (R10), Y8
	MOVQ        (R11), AX
	VFMADD231PS (BX)(AX*4), Y8, Y0
	VFMADD231PS (DX)(AX*4), Y8, Y2
	VFMADD231PS (SI)(AX*4), Y8, Y4
	VFMADD231PS (DI)(AX*4), Y8, Y6
	ADDQ        $8, R11
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w8
	MOVQ    (R9), AX
	VMOVUPS Y0, (AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Y2, (AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Y4, (AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Y6, (AX)(R8*1)
done:
	VZEROUPPER
	RET
