// The body shared by the AVX2 16-row kernels that multiply one decoded block of B while they decode the
// next panel (stream2F32R16DecTYPE in stream16_avx2_amd64.s), included in their TEXT bodies after the
// arguments are loaded, with the including file's DECB, NAN16 and the rest (see there).
//
// func(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)
//
// It adds the product of the k x 16 float32 block at b with the 16 rows of a to out, as stream2F32R16 does,
// and decodes drows rows of a panel (src, bstride bytes between rows) into dst, one row after every eight
// steps of k of the rows 0-5 and 6-11 (the rest, if k is short, at the end): the decoding's instructions
// run among the multiply-adds, whose ports they do not need, instead of before them. Each row is visited
// once, all 64 columns at a time: in a row-major B, every row is in a page of its own.
//
// On entry R9 holds k, R10 a, R11 b, DI out, SI src, DX bstride, R13 drows and R14 dst, and 0(SP) rows. It
// leaves R8 nonzero where the rows held a code DECB gets wrong, for the body to return.

// DECROW decodes the 64 elements of one row of B at SI into the four blocks of 16 columns at R14 (block g
// at R14 + g*8192 bytes), using Y12-Y14 (Y15 is the NaN check's).
#define DECGROUP(g) \
	NAN16(g*16, SI); \
	DECB(g*16*ESIZE, SI); \
	VMOVUPS Y12, g*8192(R14); \
	VMOVUPS Y13, g*8192+32(R14)
#define DECROW \
	PREFETCHROW; \
	DECGROUP(0); \
	DECGROUP(1); \
	DECGROUP(2); \
	DECGROUP(3)

	NANINIT

	// Rows 0-5, decoding half of the rows.
	MOVQ R13, R12
	INCQ R12
	SHRQ $1, R12
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(0)
dec0:
	TESTQ R12, R12
	JZ    plain0
	CMPQ  CX, $8
	JL    plain0
	ROWS6S(0, 0)
	ROWS6S(64, 64)
	ROWS6S(128, 128)
	ROWS6S(192, 192)
	ROWS6S(256, 256)
	ROWS6S(320, 320)
	ROWS6S(384, 384)
	ROWS6S(448, 448)
	ADDQ $512, AX
	ADDQ $512, BX
	DECROW
	ADDQ DX, SI
	ADDQ $64, R14
	DECQ R13
	DECQ R12
	SUBQ $8, CX
	JMP  dec0
plain0:
	TESTQ CX, CX
	JZ    done0
loop0:
	ROWS6S(0, 0)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop0
done0:
	STORE12(0)

	// Rows 6-11, decoding the rest.
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	LOAD12(384)
dec6:
	TESTQ R13, R13
	JZ    plain6
	CMPQ  CX, $8
	JL    plain6
	ROWS6S(24, 0)
	ROWS6S(24+64, 64)
	ROWS6S(24+128, 128)
	ROWS6S(24+192, 192)
	ROWS6S(24+256, 256)
	ROWS6S(24+320, 320)
	ROWS6S(24+384, 384)
	ROWS6S(24+448, 448)
	ADDQ $512, AX
	ADDQ $512, BX
	DECROW
	ADDQ DX, SI
	ADDQ $64, R14
	DECQ R13
	SUBQ $8, CX
	JMP  dec6
plain6:
	TESTQ CX, CX
	JZ    done6
loop6:
	ROWS6S(24, 0)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop6
done6:
	STORE12(384)

	// Rows 12-15, unless the product has no more than 12.
	CMPQ 0(SP), $12
	JLE  rest
	MOVQ R9, CX
	MOVQ R10, AX
	MOVQ R11, BX
	YSUMSIN(768)
loop12:
	ROWS4S(48, 0)
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop12
	YSUMSOUT(768)

rest:
	// The rows a short block left.
	TESTQ R13, R13
	JZ    check
	DECROW
	ADDQ DX, SI
	ADDQ $64, R14
	DECQ R13
	JMP  rest
check:
	NANCHECK

#undef DECGROUP
#undef DECROW
