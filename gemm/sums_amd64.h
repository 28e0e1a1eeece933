// The pieces shared by the kernels that keep their sums in registers, Z0-Z15 (AVX-512) or Y0-Y7 (AVX2),
// included after "textflag.h".

// SUMSINn loads the n sums Z0... from consecutive 64-byte rows at DI; SUMSOUTn stores them back.
#define SUMSIN4 \
	VMOVUPS 0(DI), Z0; \
	VMOVUPS 64(DI), Z1; \
	VMOVUPS 128(DI), Z2; \
	VMOVUPS 192(DI), Z3

#define SUMSOUT4 \
	VMOVUPS Z0, 0(DI); \
	VMOVUPS Z1, 64(DI); \
	VMOVUPS Z2, 128(DI); \
	VMOVUPS Z3, 192(DI)

#define SUMSIN8 \
	VMOVUPS 0(DI), Z0; \
	VMOVUPS 64(DI), Z1; \
	VMOVUPS 128(DI), Z2; \
	VMOVUPS 192(DI), Z3; \
	VMOVUPS 256(DI), Z4; \
	VMOVUPS 320(DI), Z5; \
	VMOVUPS 384(DI), Z6; \
	VMOVUPS 448(DI), Z7

#define SUMSIN16 \
	SUMSIN8; \
	VMOVUPS 512(DI), Z8; \
	VMOVUPS 576(DI), Z9; \
	VMOVUPS 640(DI), Z10; \
	VMOVUPS 704(DI), Z11; \
	VMOVUPS 768(DI), Z12; \
	VMOVUPS 832(DI), Z13; \
	VMOVUPS 896(DI), Z14; \
	VMOVUPS 960(DI), Z15

#define SUMSOUT8 \
	VMOVUPS Z0, 0(DI); \
	VMOVUPS Z1, 64(DI); \
	VMOVUPS Z2, 128(DI); \
	VMOVUPS Z3, 192(DI); \
	VMOVUPS Z4, 256(DI); \
	VMOVUPS Z5, 320(DI); \
	VMOVUPS Z6, 384(DI); \
	VMOVUPS Z7, 448(DI)

#define SUMSOUT16 \
	SUMSOUT8; \
	VMOVUPS Z8, 512(DI); \
	VMOVUPS Z9, 576(DI); \
	VMOVUPS Z10, 640(DI); \
	VMOVUPS Z11, 704(DI); \
	VMOVUPS Z12, 768(DI); \
	VMOVUPS Z13, 832(DI); \
	VMOVUPS Z14, 896(DI); \
	VMOVUPS Z15, 960(DI)

// YSUMSIN loads the 64 sums Y0-Y7 from 256 bytes at o(DI); YSUMSOUT stores them back. YSUMSINAT and
// YSUMSOUTAT do so with s bytes between the sums' registers.
#define YSUMSIN(o) YSUMSINAT(o, 32)
#define YSUMSOUT(o) YSUMSOUTAT(o, 32)

#define YSUMSINAT(o, s) \
	VMOVUPS (o+0*s)(DI), Y0; \
	VMOVUPS (o+1*s)(DI), Y1; \
	VMOVUPS (o+2*s)(DI), Y2; \
	VMOVUPS (o+3*s)(DI), Y3; \
	VMOVUPS (o+4*s)(DI), Y4; \
	VMOVUPS (o+5*s)(DI), Y5; \
	VMOVUPS (o+6*s)(DI), Y6; \
	VMOVUPS (o+7*s)(DI), Y7

#define YSUMSOUTAT(o, s) \
	VMOVUPS Y0, (o+0*s)(DI); \
	VMOVUPS Y1, (o+1*s)(DI); \
	VMOVUPS Y2, (o+2*s)(DI); \
	VMOVUPS Y3, (o+3*s)(DI); \
	VMOVUPS Y4, (o+4*s)(DI); \
	VMOVUPS Y5, (o+5*s)(DI); \
	VMOVUPS Y6, (o+6*s)(DI); \
	VMOVUPS Y7, (o+7*s)(DI)

// FMAR1 adds to Z0-Z3 the products of the element of A at AX, broadcast into Z20, with the 64 elements of
// B decoded into Z16-Z19.
#define FMAR1 \
	VBROADCASTSS 0(AX), Z20; \
	VFMADD231PS Z16, Z20, Z0; \
	VFMADD231PS Z17, Z20, Z1; \
	VFMADD231PS Z18, Z20, Z2; \
	VFMADD231PS Z19, Z20, Z3

// FMAR4 adds to Z0-Z15 (4 rows of 4 registers) the products of the four elements of A at AX, broadcast in
// turn into Z20 and Z21, with the 64 elements of B decoded into Z16-Z19.
#define FMAR4 \
	VBROADCASTSS 0(AX), Z20; \
	VFMADD231PS Z16, Z20, Z0; \
	VFMADD231PS Z17, Z20, Z1; \
	VFMADD231PS Z18, Z20, Z2; \
	VFMADD231PS Z19, Z20, Z3; \
	VBROADCASTSS 4(AX), Z21; \
	VFMADD231PS Z16, Z21, Z4; \
	VFMADD231PS Z17, Z21, Z5; \
	VFMADD231PS Z18, Z21, Z6; \
	VFMADD231PS Z19, Z21, Z7; \
	VBROADCASTSS 8(AX), Z20; \
	VFMADD231PS Z16, Z20, Z8; \
	VFMADD231PS Z17, Z20, Z9; \
	VFMADD231PS Z18, Z20, Z10; \
	VFMADD231PS Z19, Z20, Z11; \
	VBROADCASTSS 12(AX), Z21; \
	VFMADD231PS Z16, Z21, Z12; \
	VFMADD231PS Z17, Z21, Z13; \
	VFMADD231PS Z18, Z21, Z14; \
	VFMADD231PS Z19, Z21, Z15

// FMAR8 and FMAR16 add to Z0-Z7 and Z0-Z15 (8 or 16 rows of one register) the products of the 8 or 16
// elements of A at AX with the 16 elements of B decoded into Z16.
#define FMAR8 \
	VFMADD231PS.BCST 0(AX), Z16, Z0; \
	VFMADD231PS.BCST 4(AX), Z16, Z1; \
	VFMADD231PS.BCST 8(AX), Z16, Z2; \
	VFMADD231PS.BCST 12(AX), Z16, Z3; \
	VFMADD231PS.BCST 16(AX), Z16, Z4; \
	VFMADD231PS.BCST 20(AX), Z16, Z5; \
	VFMADD231PS.BCST 24(AX), Z16, Z6; \
	VFMADD231PS.BCST 28(AX), Z16, Z7

#define FMAR16 \
	FMAR8; \
	VFMADD231PS.BCST 32(AX), Z16, Z8; \
	VFMADD231PS.BCST 36(AX), Z16, Z9; \
	VFMADD231PS.BCST 40(AX), Z16, Z10; \
	VFMADD231PS.BCST 44(AX), Z16, Z11; \
	VFMADD231PS.BCST 48(AX), Z16, Z12; \
	VFMADD231PS.BCST 52(AX), Z16, Z13; \
	VFMADD231PS.BCST 56(AX), Z16, Z14; \
	VFMADD231PS.BCST 60(AX), Z16, Z15

// PANELDEC is the body of the decoders of whole panels for the buffered kernels (bufferedStream), after
// their arguments are loaded (CX steps of k, BX the rows of B, DX bytes apart, DI the buffer, R9 the rows to
// fetch ahead): setup loads the decoding's constants, pf fetches the row at R9, row decodes the row at BX
// into Z16-Z19, which go to the four blocks of the buffer (streamBlock16 rows of 16 float32 values each,
// 8192 bytes apart).
#define PANELDEC(setup, pf, row) \
	setup; \
panelrow: \
	pf; \
	row; \
	VMOVUPS Z16, 0(DI); \
	VMOVUPS Z17, 8192(DI); \
	VMOVUPS Z18, 16384(DI); \
	VMOVUPS Z19, 24576(DI); \
	ADDQ $64, DI; \
	ADDQ DX, BX; \
	ADDQ DX, R9; \
	DECQ CX; \
	JNZ  panelrow; \
	VZEROUPPER; \
	RET
