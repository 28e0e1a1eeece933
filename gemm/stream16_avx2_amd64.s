//go:build !purego

#include "textflag.h"
#include "sums_amd64.h"

// The AVX2 streaming kernels for 9 to 16 rows. 16 rows of sums by 8 columns would need 16 ymm
// accumulators, all there are, and groups of 8 rows would decode B twice, at one broadcast of A per
// multiply-add. Instead a block of B, k x 16, is decoded once into a float32 buffer (8 KiB for the 128
// steps of a streamBlock16, which stays in L1), and stream2F32R16 multiplies it by the 16 rows of A in
// register tiles of 6x16 (rows 0-5, 6-11) and 4x16 (rows 12-15), each adding its products to out in order
// of k, as the other kernels do.
//
// func decode2TYPE16(k int, b *byte, bstride int, dst *float32, groups int)
// func stream2F32R16(k int, a *float32, b *float32, out *float32, rows int)
//
// The product has rows rows (A is zero past them): with 12 or fewer the 4x16 tile, whose sums nobody
// reads, is left out, a quarter of the work for 9 to 12 rows.
//
// The decoders write groups (1 or 4) blocks of k x 16 columns, column block g at dst + g*streamBlock16*16
// floats: a row-major B is decoded a whole panel (4 blocks) at a time, so that each of its rows, in a page
// of its own, is visited once; a packed B, contiguous, 16 columns at a time, which stay in L1. They fetch
// the same row of the next panel (the next 64 columns) into the cache as they go, which a row-major B's
// next decoding reads; the hardware prefetchers do not, as each row is in another page.
//
// stream2TYPER16Fast, for a packed B, decodes the block while it multiplies it by rows 0-5, so that the
// decoding's instructions run among the multiply-adds instead of before them. Where a goroutine has two
// panels or more, stream2F32R16DecTYPE (at the end of this file) does better: it multiplies the panel
// decoded before while it decodes the next, a whole row of 64 columns at a time.
//
// The f8e4m3fn kernels named Scaled read A scaled by 2^8 (scaleStreamA) and decode B times 2^-8, which is
// what the conversion from half precision gives: (a*2^8)*(b*2^-8) is a*b exactly, so the sums are the
// same, and the multiplications by 2^8 are saved.

// DEC16_F8E4M3FN_FAST is the half-precision decoding of stream_avx2_fast_amd64.s (X14 0xbf80 words, Y13
// 2^8), exact but for the NaN code.
#define DEC16_F8E4M3FN_FAST(off, y, x) \
	VPMOVSXBW off(SI), x; \
	VPSLLW $7, x, x; \
	VPAND X14, x, x; \
	VCVTPH2PS x, y; \
	VMULPS Y13, y, y

// DEC16_F8E4M3FN_SCALED is DEC16_F8E4M3FN_FAST without the multiplication by 2^8.
#define DEC16_F8E4M3FN_SCALED(off, y, x) \
	VPMOVSXBW off(SI), x; \
	VPSLLW $7, x, x; \
	VPAND X14, x, x; \
	VCVTPH2PS x, y

#define DEC16_F8E5M2(off, y, x) \
	VPMOVZXBW off(SI), x; \
	VPSLLW $8, x, x; \
	VCVTPH2PS x, y

#define DEC16_S8(off, y, x) \
	VPMOVSXBD off(SI), y; \
	VCVTDQ2PS y, y

#define DEC16_BF16(off, y, x) \
	VPMOVZXWD off(SI), y; \
	VPSLLD $16, y, y

// ROWS6(ao, bo) adds one step of k to the 6x16 tile in Y0-Y11: B row at bo(BX), A's 6 rows from ao(AX).
#define ROWS6(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao+0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao+4(AX), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao+12(AX), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS ao+16(AX), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS ao+20(AX), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// ROWS4(ao, bo) is ROWS6 for the 4x16 tile in Y0-Y7.
#define ROWS4(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao+0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao+4(AX), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao+12(AX), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7

// ROWS6S is ROWS6 with one register, Y14, for the elements of A (Y15 is the decoders').
#define ROWS6S(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao+0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao+4(AX), Y14; \
	VFMADD231PS Y12, Y14, Y2; \
	VFMADD231PS Y13, Y14, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao+12(AX), Y14; \
	VFMADD231PS Y12, Y14, Y6; \
	VFMADD231PS Y13, Y14, Y7; \
	VBROADCASTSS ao+16(AX), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS ao+20(AX), Y14; \
	VFMADD231PS Y12, Y14, Y10; \
	VFMADD231PS Y13, Y14, Y11

// ROWS4S is ROWS4 with one register, Y14, for the elements of A.
#define ROWS4S(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao+0(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS ao+4(AX), Y14; \
	VFMADD231PS Y12, Y14, Y2; \
	VFMADD231PS Y13, Y14, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS ao+12(AX), Y14; \
	VFMADD231PS Y12, Y14, Y6; \
	VFMADD231PS Y13, Y14, Y7

#define LOAD12(o) \
	YSUMSIN(o); \
	VMOVUPS o+256(DI), Y8; \
	VMOVUPS o+288(DI), Y9; \
	VMOVUPS o+320(DI), Y10; \
	VMOVUPS o+352(DI), Y11

#define STORE12(o) \
	YSUMSOUT(o); \
	VMOVUPS Y8, o+256(DI); \
	VMOVUPS Y9, o+288(DI); \
	VMOVUPS Y10, o+320(DI); \
	VMOVUPS Y11, o+352(DI)

// func stream2F32R16(k int, a *float32, b *float32, out *float32, rows int)
TEXT ·stream2F32R16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI

	// Rows 0-5.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(0)
	SHRQ $1, CX
	JZ   rows0odd
rows0:
	ROWS6(0, 0)
	ROWS6(0+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows0
rows0odd:
	TESTQ $1, R9
	JZ   rows0done
	ROWS6(0, 0)
rows0done:
	STORE12(0)

	// Rows 6-11.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(384)
	SHRQ $1, CX
	JZ   rows6odd
rows6:
	ROWS6(24, 0)
	ROWS6(24+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows6
rows6odd:
	TESTQ $1, R9
	JZ   rows6done
	ROWS6(24, 0)
rows6done:
	STORE12(384)

	// Rows 12-15, unless the product has no more than 12.
	CMPQ rows+32(FP), $12
	JLE  rows12skip
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	YSUMSIN(768)
	SHRQ $1, CX
	JZ   rows12odd
rows12:
	ROWS4(48, 0)
	ROWS4(48+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  rows12
rows12odd:
	TESTQ $1, R9
	JZ   rows12done
	ROWS4(48, 0)
rows12done:
	YSUMSOUT(768)
rows12skip:
	VZEROUPPER
	RET

// Constants of the fused kernel, read from memory: its registers hold sums, B and A.
DATA f8or80<>+0(SB)/8, $0x8080808080808080
DATA f8or80<>+8(SB)/8, $0x8080808080808080
DATA f8or80<>+16(SB)/8, $0x8080808080808080
DATA f8or80<>+24(SB)/8, $0x8080808080808080
GLOBL f8or80<>(SB), RODATA|NOPTR, $32
DATA f8mask<>+0(SB)/8, $0xbf80bf80bf80bf80
DATA f8mask<>+8(SB)/8, $0xbf80bf80bf80bf80
DATA f8mask<>+16(SB)/8, $0xbf80bf80bf80bf80
DATA f8mask<>+24(SB)/8, $0xbf80bf80bf80bf80
GLOBL f8mask<>(SB), RODATA|NOPTR, $32
DATA f8two8<>+0(SB)/8, $0x4380000043800000
DATA f8two8<>+8(SB)/8, $0x4380000043800000
DATA f8two8<>+16(SB)/8, $0x4380000043800000
DATA f8two8<>+24(SB)/8, $0x4380000043800000
GLOBL f8two8<>(SB), RODATA|NOPTR, $32

// func decode2F8E4M3FN16Fast(k int, b *byte, bstride int, dst *float32, groups int) bool
// It returns false where the block holds a NaN code (0x7f, 0xff), which it decodes wrongly; Y11 keeps the
// largest byte or'ed with 0x80 (Y12), as in stream_avx2_fast_amd64.s.
TEXT ·decode2F8E4M3FN16Fast(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ groups+32(FP), R9
	MOVL $0x80808080, R8
	VMOVQ R8, X12
	VPBROADCASTD X12, Y12
	MOVL $0x43800000, R8
	VMOVQ R8, X13
	VPBROADCASTD X13, Y13
	MOVL $0xbf80bf80, R8
	VMOVQ R8, X14
	VPBROADCASTD X14, Y14
	VPXOR Y11, Y11, Y11
row:
	PREFETCHT0 64(BX)
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	VPOR (SI), X12, X10
	VPMAXUB X10, X11, X11
	DEC16_F8E4M3FN_FAST(0, Y0, X0)
	DEC16_F8E4M3FN_FAST(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $8192, R10 // streamBlock16*16*4
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VPCMPEQB X15, X15, X15
	VPCMPEQB X15, X11, X11
	VPMOVMSKB X11, R8
	TESTL R8, R8
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

// func decode2F8E4M3FN16FastScaled(k int, b *byte, bstride int, dst *float32, groups int) bool
// is decode2F8E4M3FN16Fast without the multiplication by 2^8: dst holds B times 2^-8, for a scaled by 2^8.
TEXT ·decode2F8E4M3FN16FastScaled(SB), NOSPLIT, $0-41
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ groups+32(FP), R9
	MOVL $0x80808080, R8
	VMOVQ R8, X12
	VPBROADCASTD X12, Y12
	MOVL $0xbf80bf80, R8
	VMOVQ R8, X14
	VPBROADCASTD X14, Y14
	VPXOR Y11, Y11, Y11
row:
	PREFETCHT0 64(BX)
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	VPOR (SI), X12, X10
	VPMAXUB X10, X11, X11
	DEC16_F8E4M3FN_SCALED(0, Y0, X0)
	DEC16_F8E4M3FN_SCALED(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $8192, R10 // streamBlock16*16*4
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VPCMPEQB X15, X15, X15
	VPCMPEQB X15, X11, X11
	VPMOVMSKB X11, R8
	TESTL R8, R8
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

// func decode2F8E5M216(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2F8E5M216(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ groups+32(FP), R9
row:
	PREFETCHT0 64(BX)
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_F8E5M2(0, Y0, X0)
	DEC16_F8E5M2(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $8192, R10 // streamBlock16*16*4
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// func decode2S816(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2S816(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ groups+32(FP), R9
row:
	PREFETCHT0 64(BX)
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_S8(0, Y0, X0)
	DEC16_S8(8, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $16, SI
	ADDQ $8192, R10 // streamBlock16*16*4
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// func decode2BF1616(k int, b *byte, bstride int, dst *float32, groups int)
TEXT ·decode2BF1616(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ b+8(FP), BX
	MOVQ bstride+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ groups+32(FP), R9
row:
	PREFETCHT0 128(BX)
	PREFETCHT0 192(BX)
	MOVQ BX, SI
	MOVQ DI, R10
	MOVQ R9, R11
group:
	DEC16_BF16(0, Y0, X0)
	DEC16_BF16(16, Y1, X1)
	VMOVUPS Y0, 0(R10)
	VMOVUPS Y1, 32(R10)
	ADDQ $32, SI
	ADDQ $8192, R10 // streamBlock16*16*4
	DECQ R11
	JNZ  group
	ADDQ DX, BX
	ADDQ $64, DI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// The kernels that decode while they multiply: stream16fused_amd64.h (a block of 16 columns, multiplied by
// rows 0-5 as it is decoded) and stream16dec_amd64.h (the next panel, while the block before is
// multiplied). Each type defines DECB(o, r), the decoding of 16 elements at o(r) into Y12 and Y13, its
// NaN check (NANINIT, NAN16(o, r) on 16 codes, NANCHECK setting R8 nonzero where there was a code DECB
// gets wrong), ESIZE (its bytes per element) and PREFETCHROW (the next panel's row at SI), then includes
// the bodies after the TEXT lines of its kernels.

// The NaN codes of f8e4m3fn, 0x7f and 0xff, are the bytes that OR 0x80 makes 0xff: X15 keeps the largest.
#define NANINIT VPXOR X15, X15, X15
#define NAN16(o, r) \
	VMOVDQU o(r), X14; \
	VPOR f8or80<>(SB), X14, X14; \
	VPMAXUB X14, X15, X15
#define NANCHECK \
	VPCMPEQB X14, X14, X14; \
	VPCMPEQB X14, X15, X15; \
	VPMOVMSKB X15, R8
#define ESIZE 1
#define PREFETCHROW PREFETCHT0 64(SI)

// f8e4m3fn through half precision: B times 2^-8, exact but for the NaN code.
#define DECB(o, r) \
	VPMOVSXBW o(r), Y12; \
	VPSLLW $7, Y12, Y12; \
	VPAND f8mask<>(SB), Y12, Y12; \
	VEXTRACTI128 $1, Y12, X13; \
	VCVTPH2PS X12, Y12; \
	VCVTPH2PS X13, Y13

// func stream2F8E4M3FNR16Scaled(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
// is stream2F8E4M3FNR16Fast for a scaled by 2^8: it decodes B times 2^-8, as the half-precision decoding
// leaves it, without the two multiplications by 2^8 per 16 codes that share the multiply-adds' ports, and
// the products are the same. buf then holds B times 2^-8.
TEXT ·stream2F8E4M3FNR16Scaled(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R12
	MOVQ bstride+24(FP), DX
	MOVQ buf+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ rows+48(FP), R13
#include "stream16fused_amd64.h"
	MOVB AX, ret+56(FP)
	VZEROUPPER
	RET

// func stream2F32R16DecF8E4M3FNScaled(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)
// decodes f8e4m3fn as decode2F8E4M3FN16FastScaled does (B times 2^-8, for the next panel's A scaled by 2^8).
TEXT ·stream2F32R16DecF8E4M3FNScaled(SB), NOSPLIT, $8-73
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI
	MOVQ rows+32(FP), AX
	MOVQ AX, 0(SP)
	MOVQ src+40(FP), SI
	MOVQ bstride+48(FP), DX
	MOVQ drows+56(FP), R13
	MOVQ dst+64(FP), R14
#include "stream16dec_amd64.h"
	TESTL R8, R8
	SETNE nan+72(FP)
	VZEROUPPER
	RET

// The same times 2^8: B itself.
#undef DECB
#define DECB(o, r) \
	VPMOVSXBW o(r), Y12; \
	VPSLLW $7, Y12, Y12; \
	VPAND f8mask<>(SB), Y12, Y12; \
	VEXTRACTI128 $1, Y12, X13; \
	VCVTPH2PS X12, Y12; \
	VCVTPH2PS X13, Y13; \
	VMULPS f8two8<>(SB), Y12, Y12; \
	VMULPS f8two8<>(SB), Y13, Y13

// func stream2F8E4M3FNR16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
// It decodes the k x 16 block of f8e4m3fn at b (bstride bytes between rows) into buf, as
// decode2F8E4M3FN16Fast does, and adds its product with the 16 rows of a to out, as stream2F32R16 does,
// decoding while it multiplies by rows 0-5. Where the block holds a NaN code it returns false, out
// untouched.
TEXT ·stream2F8E4M3FNR16Fast(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R12
	MOVQ bstride+24(FP), DX
	MOVQ buf+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ rows+48(FP), R13
#include "stream16fused_amd64.h"
	MOVB AX, ret+56(FP)
	VZEROUPPER
	RET

// The other types decode every code.
#undef NANINIT
#undef NAN16
#undef NANCHECK
#define NANINIT
#define NAN16(o, r)
#define NANCHECK XORL R8, R8

// f8e5m2 is half precision cut short.
#undef DECB
#define DECB(o, r) \
	VPMOVZXBW o(r), Y12; \
	VPSLLW $8, Y12, Y12; \
	VEXTRACTI128 $1, Y12, X13; \
	VCVTPH2PS X12, Y12; \
	VCVTPH2PS X13, Y13

// func stream2F8E5M2R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
// is stream2F8E4M3FNR16Fast for f8e5m2, whose every code it decodes: it returns true.
TEXT ·stream2F8E5M2R16Fast(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R12
	MOVQ bstride+24(FP), DX
	MOVQ buf+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ rows+48(FP), R13
#include "stream16fused_amd64.h"
	MOVB AX, ret+56(FP)
	VZEROUPPER
	RET

// func stream2F32R16DecF8E5M2(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)
TEXT ·stream2F32R16DecF8E5M2(SB), NOSPLIT, $8-73
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI
	MOVQ rows+32(FP), AX
	MOVQ AX, 0(SP)
	MOVQ src+40(FP), SI
	MOVQ bstride+48(FP), DX
	MOVQ drows+56(FP), R13
	MOVQ dst+64(FP), R14
#include "stream16dec_amd64.h"
	TESTL R8, R8
	SETNE nan+72(FP)
	VZEROUPPER
	RET

#undef DECB
#define DECB(o, r) \
	VPMOVSXBD o(r), Y12; \
	VPMOVSXBD o+8(r), Y13; \
	VCVTDQ2PS Y12, Y12; \
	VCVTDQ2PS Y13, Y13

// func stream2S8R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
// is stream2F8E4M3FNR16Fast for s8, whose every code it decodes: it returns true.
TEXT ·stream2S8R16Fast(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R12
	MOVQ bstride+24(FP), DX
	MOVQ buf+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ rows+48(FP), R13
#include "stream16fused_amd64.h"
	MOVB AX, ret+56(FP)
	VZEROUPPER
	RET

// func stream2F32R16DecS8(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)
TEXT ·stream2F32R16DecS8(SB), NOSPLIT, $8-73
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI
	MOVQ rows+32(FP), AX
	MOVQ AX, 0(SP)
	MOVQ src+40(FP), SI
	MOVQ bstride+48(FP), DX
	MOVQ drows+56(FP), R13
	MOVQ dst+64(FP), R14
#include "stream16dec_amd64.h"
	TESTL R8, R8
	SETNE nan+72(FP)
	VZEROUPPER
	RET

// bf16 widened: a row of a panel is two lines.
#undef DECB
#undef ESIZE
#undef PREFETCHROW
#define DECB(o, r) \
	VPMOVZXWD o(r), Y12; \
	VPMOVZXWD o+16(r), Y13; \
	VPSLLD $16, Y12, Y12; \
	VPSLLD $16, Y13, Y13
#define ESIZE 2
#define PREFETCHROW PREFETCHT0 128(SI); PREFETCHT0 192(SI)

// func stream2BF16R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
// is stream2F8E4M3FNR16Fast for bf16: it returns true.
TEXT ·stream2BF16R16Fast(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R12
	MOVQ bstride+24(FP), DX
	MOVQ buf+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ rows+48(FP), R13
#include "stream16fused_amd64.h"
	MOVB AX, ret+56(FP)
	VZEROUPPER
	RET

// func stream2F32R16DecBF16(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)
TEXT ·stream2F32R16DecBF16(SB), NOSPLIT, $8-73
	MOVQ k+0(FP), R9
	MOVQ a+8(FP), R10
	MOVQ b+16(FP), R11
	MOVQ out+24(FP), DI
	MOVQ rows+32(FP), AX
	MOVQ AX, 0(SP)
	MOVQ src+40(FP), SI
	MOVQ bstride+48(FP), DX
	MOVQ drows+56(FP), R13
	MOVQ dst+64(FP), R14
#include "stream16dec_amd64.h"
	TESTL R8, R8
	SETNE nan+72(FP)
	VZEROUPPER
	RET
