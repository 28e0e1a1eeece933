//go:build !purego

#include "textflag.h"

// The row kernels in AVX-512F: sixteen float32 lanes a register, each lane rounded as the Go loops of
// rows.go round it.

// BINARY512 sets (DI)[i] = (SI)[i] op (DX)[i] for CX elements (a multiple of 16): 64 at a time, then 16.
#define BINARY512(op) \
	MOVQ CX, BX; \
	SHRQ $6, BX; \
	JZ   one; \
four: \
	VMOVUPS (SI), Z0; \
	VMOVUPS 64(SI), Z1; \
	VMOVUPS 128(SI), Z2; \
	VMOVUPS 192(SI), Z3; \
	op      (DX), Z0, Z0; \
	op      64(DX), Z1, Z1; \
	op      128(DX), Z2, Z2; \
	op      192(DX), Z3, Z3; \
	VMOVUPS Z0, (DI); \
	VMOVUPS Z1, 64(DI); \
	VMOVUPS Z2, 128(DI); \
	VMOVUPS Z3, 192(DI); \
	ADDQ    $256, SI; \
	ADDQ    $256, DX; \
	ADDQ    $256, DI; \
	DECQ    BX; \
	JNZ     four; \
one: \
	ANDQ $63, CX; \
	SHRQ $4, CX; \
	JZ   done; \
loop: \
	VMOVUPS (SI), Z0; \
	op      (DX), Z0, Z0; \
	VMOVUPS Z0, (DI); \
	ADDQ    $64, SI; \
	ADDQ    $64, DX; \
	ADDQ    $64, DI; \
	DECQ    CX; \
	JNZ     loop; \
done: \
	VZEROUPPER

// func rowAdd512(dst, x, y *float32, n int)
TEXT ·rowAdd512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY512(VADDPS)
	RET

// func rowSub512(dst, x, y *float32, n int)
TEXT ·rowSub512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY512(VSUBPS)
	RET

// func rowMul512(dst, x, y *float32, n int)
TEXT ·rowMul512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY512(VMULPS)
	RET

// func rowDiv512(dst, x, y *float32, n int)
TEXT ·rowDiv512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY512(VDIVPS)
	RET

// EXTREMUM512 sets (DI)[i] to XLA's maximum or minimum of x = (SI)[i] and y = (DX)[i] for CX elements (a
// multiple of 16). VMAXPS y, x (Intel's order: y if y > x, else x, and x when either is a NaN) is
// XLA's maximum but where y alone is a NaN, which K1 marks and y then replaces; VMINPS likewise.
#define EXTREMUM512(op) \
	SHRQ $4, CX; \
	JZ   done; \
loop: \
	VMOVUPS (SI), Z0; \
	VMOVUPS (DX), Z1; \
	op      Z0, Z1, Z2; \
	VCMPPS  $3, Z1, Z1, K1; \
	VCMPPS  $7, Z0, Z0, K1, K1; \
	VMOVAPS Z1, K1, Z2; \
	VMOVUPS Z2, (DI); \
	ADDQ    $64, SI; \
	ADDQ    $64, DX; \
	ADDQ    $64, DI; \
	DECQ    CX; \
	JNZ     loop; \
done: \
	VZEROUPPER

// func rowMax512(dst, x, y *float32, n int)
TEXT ·rowMax512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	EXTREMUM512(VMAXPS)
	RET

// func rowMin512(dst, x, y *float32, n int)
TEXT ·rowMin512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	EXTREMUM512(VMINPS)
	RET

// func encodeBF16x512(dst *uint16, src *float32, n int)
// Sixteen at a time: the bits b plus 0x7fff plus bit 16 of b, shifted down 16 (to nearest even; overflow
// carries into infinity), or for a NaN (b & 0x7fffffff above 0x7f800000) the quiet NaN of its sign.
TEXT ·encodeBF16x512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z31
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z30
	MOVL $1, AX
	VPBROADCASTD AX, Z29
	MOVL $0x7fff, AX
	VPBROADCASTD AX, Z28
	MOVL $0x8000, AX
	VPBROADCASTD AX, Z27
	MOVL $0x7fc0, AX
	VPBROADCASTD AX, Z26
	SHRQ $4, CX
	JZ   done
loop:
	VMOVDQU32 (SI), Z0
	VPANDD    Z31, Z0, Z1
	VPCMPUD   $6, Z30, Z1, K1
	VPSRLD    $16, Z0, Z2
	VPANDD    Z29, Z2, Z3
	VPADDD    Z0, Z3, Z3
	VPADDD    Z28, Z3, Z3
	VPSRLD    $16, Z3, Z3
	VPANDD    Z27, Z2, Z4
	VPORD     Z26, Z4, Z4
	VMOVDQA32 Z4, K1, Z3
	VPMOVDW   Z3, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop
done:
	VZEROUPPER
	RET

// func depthwise4x512(dst *[4]*float32, src *float32, offs *[4]*int, k *float32, ldk, window, n int)
// For each block of 32 features (then one of 16), four positions' sums in Z0-Z7 (two registers each),
// over the window: the kernel's row in Z8-Z9, position p's input row at src + 4*(*offs[p])[w] + R8.
// R8 is the block's byte offset among the features; R11 and R10 the block's input and kernel row;
// BX, DX, SI and DI walk the four positions' offsets.
TEXT ·depthwise4x512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), R9
	MOVQ ldk+32(FP), R12
	SHLQ $2, R12
	MOVQ n+48(FP), R13
	XORQ R8, R8
block32:
	CMPQ R13, $32
	JLT  block16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
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
w32:
	VMOVUPS     (R10), Z8
	VMOVUPS     64(R10), Z9
	MOVQ        (BX), AX
	VFMADD231PS (R11)(AX*4), Z8, Z0
	VFMADD231PS 64(R11)(AX*4), Z9, Z1
	MOVQ        (DX), AX
	VFMADD231PS (R11)(AX*4), Z8, Z2
	VFMADD231PS 64(R11)(AX*4), Z9, Z3
	MOVQ        (SI), AX
	VFMADD231PS (R11)(AX*4), Z8, Z4
	VFMADD231PS 64(R11)(AX*4), Z9, Z5
	MOVQ        (DI), AX
	VFMADD231PS (R11)(AX*4), Z8, Z6
	VFMADD231PS 64(R11)(AX*4), Z9, Z7
	ADDQ        $8, BX
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $8, DI
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w32
	MOVQ    (R9), AX
	VMOVUPS Z0, (AX)(R8*1)
	VMOVUPS Z1, 64(AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Z2, (AX)(R8*1)
	VMOVUPS Z3, 64(AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Z4, (AX)(R8*1)
	VMOVUPS Z5, 64(AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Z6, (AX)(R8*1)
	VMOVUPS Z7, 64(AX)(R8*1)
	ADDQ    $128, R8
	SUBQ    $32, R13
	JMP     block32
block16:
	CMPQ R13, $16
	JLT  done
	VPXORD Z0, Z0, Z0
	VPXORD Z2, Z2, Z2
	VPXORD Z4, Z4, Z4
	VPXORD Z6, Z6, Z6
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
	VMOVUPS     (R10), Z8
	MOVQ        (BX), AX
	VFMADD231PS (R11)(AX*4), Z8, Z0
	MOVQ        (DX), AX
	VFMADD231PS (R11)(AX*4), Z8, Z2
	MOVQ        (SI), AX
	VFMADD231PS (R11)(AX*4), Z8, Z4
	MOVQ        (DI), AX
	VFMADD231PS (R11)(AX*4), Z8, Z6
	ADDQ        $8, BX
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $8, DI
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w16
	MOVQ    (R9), AX
	VMOVUPS Z0, (AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Z2, (AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Z4, (AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Z6, (AX)(R8*1)
done:
	VZEROUPPER
	RET

// CLAMP512 sets Z2 to the float32 values of Z0 clamped to [Z30, Z31] (bounds that are not NaNs) as XLA's
// clamp does: VMAXPS x, lo (lo if lo > x, else x, which a NaN x keeps), then that where it is not >= hi
// (NGE_UQ: a NaN too), else hi.
#define CLAMP512 \
	VMAXPS  Z0, Z30, Z1; \
	VCMPPS  $25, Z31, Z1, K1; \
	VMOVAPS Z31, Z2; \
	VMOVAPS Z1, K1, Z2

// func clamp512(dst, x *float32, n int, lo, hi float32)
TEXT ·clamp512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS lo+24(FP), Z30
	VBROADCASTSS hi+28(FP), Z31
	SHRQ $4, CX
	JZ   done
loop:
	VMOVUPS (SI), Z0
	CLAMP512
	VMOVUPS Z2, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop
done:
	VZEROUPPER
	RET

// func clampBF16x512(dst, x *uint16, n int, lo, hi float32)
// CLAMP512 on sixteen bf16 values widened to float32; the result, one of the operands, is cut back to its
// top half, a NaN becoming the quiet NaN of its sign.
TEXT ·clampBF16x512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS lo+24(FP), Z30
	VBROADCASTSS hi+28(FP), Z31
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z29
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z28
	MOVL $0x8000, AX
	VPBROADCASTD AX, Z27
	MOVL $0x7fc0, AX
	VPBROADCASTD AX, Z26
	SHRQ $4, CX
	JZ   done
loop:
	VPMOVZXWD (SI), Z0
	VPSLLD    $16, Z0, Z0
	CLAMP512
	VPSRLD    $16, Z2, Z3
	VPANDD    Z29, Z2, Z4
	VPCMPUD   $6, Z28, Z4, K2
	VPANDD    Z27, Z3, Z5
	VPORD     Z26, Z5, Z5
	VMOVDQA32 Z5, K2, Z3
	VPMOVDW   Z3, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop
done:
	VZEROUPPER
	RET

// func depthwiseBases4x512(dst *[4]*float32, src *float32, bases *[4]int, deltas *int, k *float32, ldk, window, n int)
// As depthwise4x512, position p's input row at window position w being at src + 4*(bases[p] + deltas[w])
// + R8: BX, DX, SI and DI hold src + 4*bases[p] + R8, R11 walks the deltas.
TEXT ·depthwiseBases4x512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), R9
	MOVQ ldk+40(FP), R12
	SHLQ $2, R12
	MOVQ n+56(FP), R13
	XORQ R8, R8
block32:
	CMPQ R13, $32
	JLT  block16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
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
w32:
	VMOVUPS     (R10), Z8
	VMOVUPS     64(R10), Z9
	MOVQ        (R11), AX
	VFMADD231PS (BX)(AX*4), Z8, Z0
	VFMADD231PS 64(BX)(AX*4), Z9, Z1
	VFMADD231PS (DX)(AX*4), Z8, Z2
	VFMADD231PS 64(DX)(AX*4), Z9, Z3
	VFMADD231PS (SI)(AX*4), Z8, Z4
	VFMADD231PS 64(SI)(AX*4), Z9, Z5
	VFMADD231PS (DI)(AX*4), Z8, Z6
	VFMADD231PS 64(DI)(AX*4), Z9, Z7
	ADDQ        $8, R11
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w32
	MOVQ    (R9), AX
	VMOVUPS Z0, (AX)(R8*1)
	VMOVUPS Z1, 64(AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Z2, (AX)(R8*1)
	VMOVUPS Z3, 64(AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Z4, (AX)(R8*1)
	VMOVUPS Z5, 64(AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Z6, (AX)(R8*1)
	VMOVUPS Z7, 64(AX)(R8*1)
	ADDQ    $128, R8
	SUBQ    $32, R13
	JMP     block32
block16:
	CMPQ R13, $16
	JLT  done
	VPXORD Z0, Z0, Z0
	VPXORD Z2, Z2, Z2
	VPXORD Z4, Z4, Z4
	VPXORD Z6, Z6, Z6
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
	VMOVUPS     (R10), Z8
	MOVQ        (R11), AX
	VFMADD231PS (BX)(AX*4), Z8, Z0
	VFMADD231PS (DX)(AX*4), Z8, Z2
	VFMADD231PS (SI)(AX*4), Z8, Z4
	VFMADD231PS (DI)(AX*4), Z8, Z6
	ADDQ        $8, R11
	ADDQ        R12, R10
	DECQ        CX
	JNZ         w16
	MOVQ    (R9), AX
	VMOVUPS Z0, (AX)(R8*1)
	MOVQ    8(R9), AX
	VMOVUPS Z2, (AX)(R8*1)
	MOVQ    16(R9), AX
	VMOVUPS Z4, (AX)(R8*1)
	MOVQ    24(R9), AX
	VMOVUPS Z6, (AX)(R8*1)
done:
	VZEROUPPER
	RET
