//go:build !purego

#include "textflag.h"

// The row kernels in AVX-512F: sixteen float32 lanes a register, each lane rounded as the Go loops of
// rows.go round it.

#define V0 Z0
#define V1 Z1
#define V2 Z2
#define V3 Z3
#define V4 Z4
#define V5 Z5
#define V6 Z6
#define V7 Z7
#define V8 Z8
#define V9 Z9
#define LANES 16
#define LANESHIFT 4
#define VBYTES 64
#define VZERO(r) VPXORD r, r, r

#include "rows_amd64.h"

// func rowAdd512(dst, x, y *float32, n int)
TEXT ·rowAdd512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VADDPS)
	RET

// func rowSub512(dst, x, y *float32, n int)
TEXT ·rowSub512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VSUBPS)
	RET

// func rowMul512(dst, x, y *float32, n int)
TEXT ·rowMul512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VMULPS)
	RET

// func rowDiv512(dst, x, y *float32, n int)
TEXT ·rowDiv512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY(VDIVPS)
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
// DEPTHWISE in blocks of 32 features (then one of 16), position p's input row at window position w being
// at src + 4*(*offs[p])[w] (OFFSROWS).
TEXT ·depthwise4x512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), R9
	MOVQ ldk+32(FP), R12
	SHLQ $2, R12
	MOVQ n+48(FP), R13
	XORQ R8, R8
	DEPTHWISE(OFFSROWS(window+40(FP), offs+16(FP), src+8(FP), k+24(FP)), OFFSSTEP2, OFFSSTEP1)
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
// (BASESROWS).
TEXT ·depthwiseBases4x512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), R9
	MOVQ ldk+40(FP), R12
	SHLQ $2, R12
	MOVQ n+56(FP), R13
	XORQ R8, R8
	DEPTHWISE(BASESROWS(window+48(FP), src+8(FP), bases+16(FP), deltas+24(FP), k+32(FP)), BASESSTEP2, BASESSTEP1)
	RET
