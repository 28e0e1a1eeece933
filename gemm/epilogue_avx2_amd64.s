//go:build !purego

#include "textflag.h"

// The epilogue's steps over a run of n float32 elements (n a multiple of 8), eight at a time, each
// operation rounded on its own as in epilogue.go (no fused multiply-adds).

// func epScaleAVX2(dst, src *float32, n int, s float32)
// dst[i] = src[i] * s
TEXT ·epScaleAVX2(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	SHRQ $3, CX
	JZ   done
loop:
	VMULPS (SI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func epMulAVX2(dst, v *float32, n int)
// dst[i] *= v[i]
TEXT ·epMulAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (DI), Y0
	VMULPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func epAddAVX2(dst, v *float32, n int, s float32)
// dst[i] += s * v[i] (the product rounded first)
TEXT ·epAddAVX2(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	SHRQ $3, CX
	JZ   done
loop:
	VMULPS (SI), Y15, Y1
	VADDPS (DI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func epReLUAVX2(dst *float32, n int)
// negative numbers (not -0, not NaNs) become +0: as unsigned bits, those in [0x80000001, 0xff800000].
TEXT ·epReLUAVX2(SB), NOSPLIT, $0-16
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVL $0x80000001, AX
	VMOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $0x7f7fffff, AX
	VMOVQ AX, X13
	VPBROADCASTD X13, Y13
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (DI), Y0
	VPSUBD Y14, Y0, Y1      // y = bits - 0x80000001: at most 0x7f7fffff (unsigned) for the negative numbers
	VPMINUD Y13, Y1, Y2
	VPCMPEQD Y2, Y1, Y2     // min(y, 0x7f7fffff) == y
	VPANDN Y0, Y2, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func epFinishAVX2(dst *float32, n int, outScale, limit float32) (amax uint32)
// returns the largest of the elements' bits without the sign (above 0x7f800000 when there is a NaN), and
// sets dst[i] = clamp(dst[i] * outScale, -limit, limit), a NaN staying NaN.
TEXT ·epFinishAVX2(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSS outScale+16(FP), Y15
	VBROADCASTSS limit+20(FP), Y14
	MOVL $0x80000000, AX
	VMOVQ AX, X12
	VPBROADCASTD X12, Y12
	VXORPS Y12, Y14, Y13    // -limit
	VPXOR Y11, Y11, Y11     // the largest magnitude's bits
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (DI), Y0
	VPANDN Y0, Y12, Y1      // the bits without the sign
	VPMAXUD Y1, Y11, Y11
	VMULPS Y15, Y0, Y0
	VMAXPS Y0, Y13, Y0      // -limit > x ? -limit : x (x when x is NaN)
	VMINPS Y0, Y14, Y0      // limit < x ? limit : x
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
done:
	// The largest of the eight lanes.
	VEXTRACTI128 $1, Y11, X1
	VPMAXUD X1, X11, X11
	VPSHUFD $0x4e, X11, X1
	VPMAXUD X1, X11, X11
	VPSHUFD $0xb1, X11, X1
	VPMAXUD X1, X11, X11
	VMOVQ X11, AX
	MOVL AX, amax+24(FP)
	VZEROUPPER
	RET

// encE4M3FN holds the constants the encoder reads from memory: eight lanes of 1, eight of 0x80, and the
// order 0, 4, 1, 5, 2, 6, 3, 7 that puts the dwords of two packs back in place.
DATA encE4M3FN<>+0(SB)/8, $0x0000000100000001
DATA encE4M3FN<>+8(SB)/8, $0x0000000100000001
DATA encE4M3FN<>+16(SB)/8, $0x0000000100000001
DATA encE4M3FN<>+24(SB)/8, $0x0000000100000001
DATA encE4M3FN<>+32(SB)/8, $0x0000008000000080
DATA encE4M3FN<>+40(SB)/8, $0x0000008000000080
DATA encE4M3FN<>+48(SB)/8, $0x0000008000000080
DATA encE4M3FN<>+56(SB)/8, $0x0000008000000080
DATA encE4M3FN<>+64(SB)/8, $0x0000000400000000
DATA encE4M3FN<>+72(SB)/8, $0x0000000500000001
DATA encE4M3FN<>+80(SB)/8, $0x0000000600000002
DATA encE4M3FN<>+88(SB)/8, $0x0000000700000003
GLOBL encE4M3FN<>(SB), RODATA|NOPTR, $96

// ENC4 encodes the eight floats at off(SI) into eight codes, one in each dword of y; Y4, Y5, Y6 and Y13
// are its temporaries.
#define ENC4(off, y) \
	VMOVDQU off(SI), y; \
	VPAND Y15, y, Y4; \
	VPSRLD $20, Y4, Y5; \
	VPAND encE4M3FN<>+0(SB), Y5, Y5; \
	VPADDD Y14, Y4, Y6; \
	VPADDD Y5, Y6, Y6; \
	VPSRLD $20, Y6, Y6; \
	VPSUBD Y12, Y6, Y6; \
	VADDPS Y11, Y4, Y5; \
	VPSUBD Y11, Y5, Y5; \
	VPCMPGTD Y4, Y10, Y13; \
	VPBLENDVB Y13, Y5, Y6, Y6; \
	VPCMPGTD Y9, Y4, Y13; \
	VPBLENDVB Y13, Y7, Y6, Y6; \
	VPCMPGTD Y8, Y4, Y13; \
	VPBLENDVB Y13, Y7, Y6, Y6; \
	VPSRLD $24, y, y; \
	VPAND encE4M3FN<>+32(SB), y, y; \
	VPOR Y6, y, y

// func epEncodeE4M3FNAVX2(dst *byte, src *float32, n int)
// rounds src to f8e4m3fn codes (n a multiple of 8; 32 at a time, then 8), as dtype does without saturation, eight at a time on
// |x|'s bits a: the normal code rounds the 20 dropped bits to nearest even ((a + 0x7ffff + (a>>20 & 1))
// >> 20, less 120<<3 for the exponents' bias); below 2^-6 the FPU rounds 2^14 + |x| to the format's
// quantum; past 464, and for infinities and NaNs, the code is 0x7f; the sign bit goes on top.
TEXT ·epEncodeE4M3FNAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x7fffffff, AX
	VMOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7ffff, AX
	VMOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $960, AX
	VMOVQ AX, X12
	VPBROADCASTD X12, Y12
	MOVL $0x46800000, AX
	VMOVQ AX, X11
	VPBROADCASTD X11, Y11
	MOVL $0x3c800000, AX
	VMOVQ AX, X10
	VPBROADCASTD X10, Y10
	MOVL $0x43e80000, AX
	VMOVQ AX, X9
	VPBROADCASTD X9, Y9
	MOVL $0x7f7fffff, AX
	VMOVQ AX, X8
	VPBROADCASTD X8, Y8
	MOVL $0x7f, AX
	VMOVQ AX, X7
	VPBROADCASTD X7, Y7
	MOVQ CX, DX
	SHRQ $5, CX
	JZ   tail

loop:
	ENC4(0, Y0)
	ENC4(32, Y1)
	ENC4(64, Y2)
	ENC4(96, Y3)
	VPACKUSDW Y1, Y0, Y0
	VPACKUSDW Y3, Y2, Y2
	VPACKUSWB Y2, Y0, Y0
	VMOVDQU encE4M3FN<>+64(SB), Y4
	VPERMD Y0, Y4, Y0
	VMOVDQU Y0, (DI)
	ADDQ $128, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

tail:
	// The last eight at a time.
	ANDQ $31, DX
	SHRQ $3, DX
	JZ   done
	VMOVDQU encE4M3FN<>+64(SB), Y4
	VMOVDQU Y4, Y3

tail8:
	ENC4(0, Y0)
	VPACKUSDW Y0, Y0, Y0
	VPACKUSWB Y0, Y0, Y0
	VPERMD Y0, Y3, Y0
	VMOVQ X0, (DI)
	ADDQ $32, SI
	ADDQ $8, DI
	DECQ DX
	JNZ  tail8

done:
	VZEROUPPER
	RET
