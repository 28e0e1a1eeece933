// The pieces shared by the AVX-512 and AVX2 row kernels (rows_avx512_amd64.s, rows_avx2_amd64.s),
// included after "textflag.h" and after the file has defined its vector registers: V0-V9 (Z0-Z9 or
// Y0-Y9), LANES the float32 lanes of one (16 or 8), LANESHIFT its log2, VBYTES its bytes (64 or 32), and
// VZERO(r), which zeroes r.

// BINARY sets (DI)[i] = (SI)[i] op (DX)[i] for CX elements (a multiple of LANES): four registers at a
// time, then one.
#define BINARY(op) \
	MOVQ CX, BX; \
	SHRQ $(LANESHIFT+2), BX; \
	JZ   one; \
four: \
	VMOVUPS (SI), V0; \
	VMOVUPS VBYTES(SI), V1; \
	VMOVUPS (2*VBYTES)(SI), V2; \
	VMOVUPS (3*VBYTES)(SI), V3; \
	op      (DX), V0, V0; \
	op      VBYTES(DX), V1, V1; \
	op      (2*VBYTES)(DX), V2, V2; \
	op      (3*VBYTES)(DX), V3, V3; \
	VMOVUPS V0, (DI); \
	VMOVUPS V1, VBYTES(DI); \
	VMOVUPS V2, (2*VBYTES)(DI); \
	VMOVUPS V3, (3*VBYTES)(DI); \
	ADDQ    $(4*VBYTES), SI; \
	ADDQ    $(4*VBYTES), DX; \
	ADDQ    $(4*VBYTES), DI; \
	DECQ    BX; \
	JNZ     four; \
one: \
	ANDQ $(4*LANES-1), CX; \
	SHRQ $LANESHIFT, CX; \
	JZ   done; \
loop: \
	VMOVUPS (SI), V0; \
	op      (DX), V0, V0; \
	VMOVUPS V0, (DI); \
	ADDQ    $VBYTES, SI; \
	ADDQ    $VBYTES, DX; \
	ADDQ    $VBYTES, DI; \
	DECQ    CX; \
	JNZ     loop; \
done: \
	VZEROUPPER

// DEPTHWISE is the body of the depthwise kernels, after the TEXT line has set R9 to dst, R12 to ldk in
// bytes, R13 to n and R8 to 0: for each block of 2*LANES features (then one of LANES), four positions'
// sums in V0-V7 (two registers each; V0, V2, V4 and V6 alone for a block of LANES), over the window: the
// kernel's row in V8-V9. R8 is the block's byte offset among the features. rows sets CX to the window
// and R10 to the block's kernel row, and readies BX, DX, SI and DI, from which step2 and step1 (for the
// two sizes of block) fetch the four positions' input rows at the next window position; R10 then moves
// to the next kernel row.
#define DEPTHWISE(rows, step2, step1) \
block2: \
	CMPQ R13, $(2*LANES); \
	JLT  block1; \
	VZERO(V0); \
	VZERO(V1); \
	VZERO(V2); \
	VZERO(V3); \
	VZERO(V4); \
	VZERO(V5); \
	VZERO(V6); \
	VZERO(V7); \
	rows; \
w2: \
	VMOVUPS (R10), V8; \
	VMOVUPS VBYTES(R10), V9; \
	step2; \
	ADDQ    R12, R10; \
	DECQ    CX; \
	JNZ     w2; \
	MOVQ    (R9), AX; \
	VMOVUPS V0, (AX)(R8*1); \
	VMOVUPS V1, VBYTES(AX)(R8*1); \
	MOVQ    8(R9), AX; \
	VMOVUPS V2, (AX)(R8*1); \
	VMOVUPS V3, VBYTES(AX)(R8*1); \
	MOVQ    16(R9), AX; \
	VMOVUPS V4, (AX)(R8*1); \
	VMOVUPS V5, VBYTES(AX)(R8*1); \
	MOVQ    24(R9), AX; \
	VMOVUPS V6, (AX)(R8*1); \
	VMOVUPS V7, VBYTES(AX)(R8*1); \
	ADDQ    $(2*VBYTES), R8; \
	SUBQ    $(2*LANES), R13; \
	JMP     block2; \
block1: \
	CMPQ R13, $LANES; \
	JLT  done; \
	VZERO(V0); \
	VZERO(V2); \
	VZERO(V4); \
	VZERO(V6); \
	rows; \
w1: \
	VMOVUPS (R10), V8; \
	step1; \
	ADDQ    R12, R10; \
	DECQ    CX; \
	JNZ     w1; \
	MOVQ    (R9), AX; \
	VMOVUPS V0, (AX)(R8*1); \
	MOVQ    8(R9), AX; \
	VMOVUPS V2, (AX)(R8*1); \
	MOVQ    16(R9), AX; \
	VMOVUPS V4, (AX)(R8*1); \
	MOVQ    24(R9), AX; \
	VMOVUPS V6, (AX)(R8*1); \
done: \
	VZEROUPPER

// OFFSROWS readies depthwise4's rows: BX, DX, SI and DI walk the four positions' offsets, R11 is the
// block's input row, src + R8; position p's input row at window position w is at R11 + 4*(*offs[p])[w].
#define OFFSROWS(window, offs, src, k) \
	MOVQ window, CX; \
	MOVQ offs, AX; \
	MOVQ (AX), BX; \
	MOVQ 8(AX), DX; \
	MOVQ 16(AX), SI; \
	MOVQ 24(AX), DI; \
	MOVQ src, R11; \
	ADDQ R8, R11; \
	MOVQ k, R10; \
	ADDQ R8, R10

#define OFFSSTEP2 \
	MOVQ        (BX), AX; \
	VFMADD231PS (R11)(AX*4), V8, V0; \
	VFMADD231PS VBYTES(R11)(AX*4), V9, V1; \
	MOVQ        (DX), AX; \
	VFMADD231PS (R11)(AX*4), V8, V2; \
	VFMADD231PS VBYTES(R11)(AX*4), V9, V3; \
	MOVQ        (SI), AX; \
	VFMADD231PS (R11)(AX*4), V8, V4; \
	VFMADD231PS VBYTES(R11)(AX*4), V9, V5; \
	MOVQ        (DI), AX; \
	VFMADD231PS (R11)(AX*4), V8, V6; \
	VFMADD231PS VBYTES(R11)(AX*4), V9, V7; \
	ADDQ        $8, BX; \
	ADDQ        $8, DX; \
	ADDQ        $8, SI; \
	ADDQ        $8, DI

#define OFFSSTEP1 \
	MOVQ        (BX), AX; \
	VFMADD231PS (R11)(AX*4), V8, V0; \
	MOVQ        (DX), AX; \
	VFMADD231PS (R11)(AX*4), V8, V2; \
	MOVQ        (SI), AX; \
	VFMADD231PS (R11)(AX*4), V8, V4; \
	MOVQ        (DI), AX; \
	VFMADD231PS (R11)(AX*4), V8, V6; \
	ADDQ        $8, BX; \
	ADDQ        $8, DX; \
	ADDQ        $8, SI; \
	ADDQ        $8, DI

// BASESROWS readies depthwiseBases4's rows: BX, DX, SI and DI hold src + 4*bases[p] + R8, R11 walks the
// deltas; position p's input row at window position w is at src + 4*(bases[p] + deltas[w]) + R8.
#define BASESROWS(window, src, bases, deltas, k) \
	MOVQ window, CX; \
	MOVQ src, AX; \
	ADDQ R8, AX; \
	MOVQ bases, R10; \
	MOVQ (R10), BX; \
	LEAQ (AX)(BX*4), BX; \
	MOVQ 8(R10), DX; \
	LEAQ (AX)(DX*4), DX; \
	MOVQ 16(R10), SI; \
	LEAQ (AX)(SI*4), SI; \
	MOVQ 24(R10), DI; \
	LEAQ (AX)(DI*4), DI; \
	MOVQ deltas, R11; \
	MOVQ k, R10; \
	ADDQ R8, R10

#define BASESSTEP2 \
	MOVQ        (R11), AX; \
	VFMADD231PS (BX)(AX*4), V8, V0; \
	VFMADD231PS VBYTES(BX)(AX*4), V9, V1; \
	VFMADD231PS (DX)(AX*4), V8, V2; \
	VFMADD231PS VBYTES(DX)(AX*4), V9, V3; \
	VFMADD231PS (SI)(AX*4), V8, V4; \
	VFMADD231PS VBYTES(SI)(AX*4), V9, V5; \
	VFMADD231PS (DI)(AX*4), V8, V6; \
	VFMADD231PS VBYTES(DI)(AX*4), V9, V7; \
	ADDQ        $8, R11

#define BASESSTEP1 \
	MOVQ        (R11), AX; \
	VFMADD231PS (BX)(AX*4), V8, V0; \
	VFMADD231PS (DX)(AX*4), V8, V2; \
	VFMADD231PS (SI)(AX*4), V8, V4; \
	VFMADD231PS (DI)(AX*4), V8, V6; \
	ADDQ        $8, R11
