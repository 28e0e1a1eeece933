//go:build !purego

#include "textflag.h"

// func interleave6AVX2(dst *float32, rows *[16][]float32, n, ahead int)
// sets dst[6*p+r] = rows[r][p] for r < 6 and p < n (a multiple of 16), four steps of p at a time: two 4x4
// transposes of rows 0-3 and pairs of rows 4-5. Every 16 steps it fetches the line ahead bytes past each
// row's current one (the same columns of the rows packed next), so that they come from L1 or L2.
TEXT ·interleave6AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ ahead+24(FP), DX
	MOVQ 0(SI), R8   // rows[0].ptr (a slice header is 24 bytes)
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	XORQ AX, AX
	SHRQ $4, CX
	JZ   done

loop:
	LEAQ (AX)(DX*1), BX
	PREFETCHT0 (R8)(BX*1)
	PREFETCHT0 (R9)(BX*1)
	PREFETCHT0 (R10)(BX*1)
	PREFETCHT0 (R11)(BX*1)
	PREFETCHT0 (R12)(BX*1)
	PREFETCHT0 (R13)(BX*1)
	MOVQ $4, BX

quad:
	VMOVUPS (R8)(AX*1), X0
	VMOVUPS (R9)(AX*1), X1
	VMOVUPS (R10)(AX*1), X2
	VMOVUPS (R11)(AX*1), X3
	VMOVUPS (R12)(AX*1), X4
	VMOVUPS (R13)(AX*1), X5
	VUNPCKLPS X1, X0, X6   // r0p0 r1p0 r0p1 r1p1
	VUNPCKHPS X1, X0, X7   // r0p2 r1p2 r0p3 r1p3
	VUNPCKLPS X3, X2, X8   // r2p0 r3p0 r2p1 r3p1
	VUNPCKHPS X3, X2, X9   // r2p2 r3p2 r2p3 r3p3
	VUNPCKLPS X5, X4, X10  // r4p0 r5p0 r4p1 r5p1
	VUNPCKHPS X5, X4, X11  // r4p2 r5p2 r4p3 r5p3
	VMOVLHPS X8, X6, X0    // r0p0 r1p0 r2p0 r3p0
	VMOVHLPS X6, X8, X1    // r0p1 r1p1 r2p1 r3p1
	VMOVLHPS X9, X7, X2    // r0p2 r1p2 r2p2 r3p2
	VMOVHLPS X7, X9, X3    // r0p3 r1p3 r2p3 r3p3
	VMOVUPS X0, 0(DI)
	VMOVLPS X10, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X10, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X11, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X11, 88(DI)
	ADDQ $16, AX
	ADDQ $96, DI
	DECQ BX
	JNZ  quad
	DECQ CX
	JNZ  loop

done:
	RET

// func copyStripAVX2(dst, src *float32, stride, kc int)
// sets dst[16*p+j] = src[p*stride+j] for j < 16 and p < kc: one 16-wide strip of B from float32 rows
// stride bytes apart, fetching the row eight ahead as it goes.
TEXT ·copyStripAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ kc+24(FP), CX
	LEAQ (DX)(DX*2), BX
	SHLQ $1, BX        // 6 rows
	ADDQ DX, BX
	ADDQ DX, BX        // 8 rows
	TESTQ CX, CX
	JZ   done

loop:
	PREFETCHT0 (SI)(BX*1)
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func decodeF8E4M3FNFastAVX2(dst *float32, src *byte, n int) (nan bool)
// sets dst[i] to the float32 value of the f8e4m3fn code src[i] for i < n (a multiple of 32), in four
// instructions per eight codes: the sign-extended code shifted left by 20 and masked to the sign bit and
// the seven magnitude bits (exponent and mantissa at the places of float32's lowest ones), times 2^120,
// which rebiases the exponent and turns subnormal codes into normal floats, exactly. The NaN codes (0x7f,
// 0xff) come out as 480 instead: it reports whether there were any (a code with all seven magnitude bits
// set), and the caller decodes those runs again with the exact decoder.
TEXT ·decodeF8E4M3FNFastAVX2(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), BX
	MOVQ n+16(FP), CX
	MOVL $0x87f00000, R8
	VMOVQ R8, X12
	VPBROADCASTD X12, Y12 // sign and magnitude bits
	MOVL $0x7b800000, R8
	VMOVQ R8, X13
	VPBROADCASTD X13, Y13 // 2^120
	MOVL $0x80808080, R8
	VMOVQ R8, X14
	VPBROADCASTD X14, Y14 // 0x80 in every byte
	VPCMPEQB Y15, Y15, Y15 // all ones
	VPXOR Y11, Y11, Y11    // the NaN codes seen
	SHRQ $5, CX
	JZ   done

loop:
	VPOR (BX), Y14, Y0
	VPCMPEQB Y15, Y0, Y0
	VPOR Y0, Y11, Y11
	VPMOVSXBD 0(BX), Y0
	VPMOVSXBD 8(BX), Y1
	VPMOVSXBD 16(BX), Y2
	VPMOVSXBD 24(BX), Y3
	VPSLLD $20, Y0, Y0
	VPSLLD $20, Y1, Y1
	VPSLLD $20, Y2, Y2
	VPSLLD $20, Y3, Y3
	VPAND Y12, Y0, Y0
	VPAND Y12, Y1, Y1
	VPAND Y12, Y2, Y2
	VPAND Y12, Y3, Y3
	VMULPS Y13, Y0, Y0
	VMULPS Y13, Y1, Y1
	VMULPS Y13, Y2, Y2
	VMULPS Y13, Y3, Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $32, BX
	ADDQ $128, DI
	DECQ CX
	JNZ  loop

done:
	VPTEST Y11, Y11
	SETNE AX
	MOVB AX, nan+24(FP)
	VZEROUPPER
	RET

// func prefetchRows(p *byte, stride, rows, n int)
// fetches into the caches the n bytes at p, p+stride, ..., of rows rows: one PREFETCHT0 per 64 bytes.
TEXT ·prefetchRows(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ rows+16(FP), CX
	MOVQ n+24(FP), R8
	TESTQ CX, CX
	JZ   done
	TESTQ R8, R8
	JZ   done

row:
	XORQ AX, AX

line:
	PREFETCHT0 (SI)(AX*1)
	ADDQ $64, AX
	CMPQ AX, R8
	JL   line
	ADDQ DX, SI
	DECQ CX
	JNZ  row

done:
	RET

// func stripF8E4M3FNAVX2(dst *float32, src *byte, stride, kc int) (nan bool)
// decodes one 16-wide strip of B from f8e4m3fn rows stride bytes apart, kc of them, into dst (16 floats a
// row), as decodeF8E4M3FNFastAVX2 does, fetching the row eight ahead: it reports NaN codes, with which
// dst is wrong.
TEXT ·stripF8E4M3FNAVX2(SB), NOSPLIT, $0-33
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ kc+24(FP), CX
	MOVQ DX, BX
	SHLQ $3, BX
	MOVL $0x87f00000, R8
	VMOVQ R8, X12
	VPBROADCASTD X12, Y12
	MOVL $0x7b800000, R8
	VMOVQ R8, X13
	VPBROADCASTD X13, Y13
	MOVL $0x80808080, R8
	VMOVQ R8, X14
	VPBROADCASTD X14, Y14
	VPCMPEQB X15, X15, X15
	VPXOR X11, X11, X11
	TESTQ CX, CX
	JZ   done

loop:
	PREFETCHT0 (SI)(BX*1)
	VPOR (SI), X14, X0
	VPCMPEQB X15, X0, X0
	VPOR X0, X11, X11
	VPMOVSXBD 0(SI), Y0
	VPMOVSXBD 8(SI), Y1
	VPSLLD $20, Y0, Y0
	VPSLLD $20, Y1, Y1
	VPAND Y12, Y0, Y0
	VPAND Y12, Y1, Y1
	VMULPS Y13, Y0, Y0
	VMULPS Y13, Y1, Y1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

done:
	VPTEST X11, X11
	SETNE AX
	MOVB AX, nan+32(FP)
	VZEROUPPER
	RET

// func stripBF16AVX2(dst *float32, src *byte, stride, kc int)
// widens one 16-wide strip of B from bf16 rows stride bytes apart, kc of them, into dst (16 floats a
// row), fetching the row eight ahead.
TEXT ·stripBF16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ kc+24(FP), CX
	MOVQ DX, BX
	SHLQ $3, BX
	TESTQ CX, CX
	JZ   done

loop:
	PREFETCHT0 (SI)(BX*1)
	VPMOVZXWD 0(SI), Y0
	VPMOVZXWD 16(SI), Y1
	VPSLLD $16, Y0, Y0
	VPSLLD $16, Y1, Y1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func copyStrip32AVX2(dst, src *float32, stride, kc int)
// is copyStripAVX2 for 32-wide strips (the AVX-512 kernels'): 128 bytes a row.
TEXT ·copyStrip32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ kc+24(FP), CX
	MOVQ DX, BX
	SHLQ $3, BX
	TESTQ CX, CX
	JZ   done

loop:
	PREFETCHT0 (SI)(BX*1)
	PREFETCHT0 64(SI)(BX*1)
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ DX, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
