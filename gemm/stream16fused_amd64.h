// The body shared by the AVX2 16-row kernels that decode one block of 16 columns of B while they multiply
// it by rows 0-5 (stream2TYPER16Fast, stream2F8E4M3FNR16Scaled in stream16_avx2_amd64.s), included in
// their TEXT bodies after the arguments are loaded. The including file defines DECB(o, r), which decodes
// the 16 elements of B at o(r) into Y12 (the first 8) and Y13, and the NaN check NANINIT, NAN16(o, r) and
// NANCHECK, as for stream16dec_amd64.h.
//
// func(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool
//
// On entry R9 holds k, R10 a, R12 b, DX bstride, R11 buf, DI out and R13 rows. It decodes the k x 16
// block of B at b (bstride bytes between rows) into buf, and adds its product with the 16 rows of a to
// out, as stream2F32R16 does. It leaves AX 1, or 0 where the block holds a code DECB gets wrong (then out
// is untouched), for the body to return.

	// Rows 0-5, decoding.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, SI
	LOAD12(0)
	NANINIT
fused:
	NAN16(0, R12)
	DECB(0, R12)
	VMOVUPS Y12, 0(SI)
	VMOVUPS Y13, 32(SI)
	VBROADCASTSS 0(AX), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 4(AX), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS 8(AX), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 12(AX), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS 16(AX), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 20(AX), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	ADDQ $64, AX
	ADDQ DX, R12
	ADDQ $64, SI
	DECQ CX
	JNZ  fused
	NANCHECK
	TESTL R8, R8
	JNZ   nan
	STORE12(0)

	// Rows 6-11.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(384)
	SHRQ $1, CX
	JZ   frows6odd
frows6:
	ROWS6(24, 0)
	ROWS6(24+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  frows6
frows6odd:
	TESTQ $1, R9
	JZ   frows6done
	ROWS6(24, 0)
frows6done:
	STORE12(384)

	// Rows 12-15, unless the product has no more than 12.
	CMPQ R13, $12
	JLE  frows12skip
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	YSUMSIN(768)
	SHRQ $1, CX
	JZ   frows12odd
frows12:
	ROWS4(48, 0)
	ROWS4(48+64, 64)
	ADDQ $128, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  frows12
frows12odd:
	TESTQ $1, R9
	JZ   frows12done
	ROWS4(48, 0)
frows12done:
	YSUMSOUT(768)
frows12skip:
	MOVL $1, AX
	JMP  fuseddone
nan:
	XORL AX, AX
fuseddone:
