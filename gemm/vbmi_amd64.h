// The decoding by byte lookups of the AVX-512 VBMI kernels (stream_avx512_vbmi_amd64.s,
// blockscaled_avx512_amd64.s) for the 8-bit types whose every value is a bfloat16.

// LOOKUP64 decodes the 64 codes at (BX) into z0-z3: the bfloat16's low bytes looked up (VPERMI2B) among
// the 128 of lo0, lo1 by each code's 7 low bits, its high bytes among hi0, hi1, the code's sign or'ed in
// (sign: bytes 0x80), the bytes paired into words within each 128-bit lane (VPUNPCKLBW, VPUNPCKHBW: the
// lane's bytes 0-7, and 8-15), the even words widened by a shift and the odd ones by a mask (hiw: words
// 0xffff, high in each dword). z0-z3 take, in their lane L, the columns 16L + {0,2,4,6}, {1,3,5,7},
// {8,10,12,14} and {9,11,13,15} (t0-t3 scratch). 11 instructions, 9 of them on the vector units.
#define LOOKUP64(lo0, lo1, hi0, hi1, sign, hiw, t0, t1, t2, t3, z0, z1, z2, z3) \
	VMOVDQU64 (BX), t0; \
	VMOVDQU64 (BX), t1; \
	VPERMI2B hi1, hi0, t1; \
	VPTERNLOGD $0xf8, sign, t0, t1; \
	VPERMI2B lo1, lo0, t0; \
	VPUNPCKLBW t1, t0, t2; \
	VPUNPCKHBW t1, t0, t3; \
	VPSLLD $16, t2, z0; \
	VPANDD hiw, t2, z1; \
	VPSLLD $16, t3, z2; \
	VPANDD hiw, t3, z3

// LANES4X4 transposes the 4x4 matrix of 128-bit lanes of Z16-Z19 (Z20-Z23 scratch): lane j of Zi goes
// to lane i of Zj.
#define LANES4X4 \
	VSHUFF32X4 $0x44, Z17, Z16, Z20; \
	VSHUFF32X4 $0xee, Z17, Z16, Z21; \
	VSHUFF32X4 $0x44, Z19, Z18, Z22; \
	VSHUFF32X4 $0xee, Z19, Z18, Z23; \
	VSHUFF32X4 $0x88, Z22, Z20, Z16; \
	VSHUFF32X4 $0xdd, Z22, Z20, Z17; \
	VSHUFF32X4 $0x88, Z23, Z21, Z18; \
	VSHUFF32X4 $0xdd, Z23, Z21, Z19

// SUMSPERMIN loads the 64 sums at o(DI), in order, into a0-a3 in the order LOOKUP64 leaves the columns
// (Z16-Z23 scratch): the lanes transposed, then the even and the odd elements of each pair of lanes.
#define SUMSPERMIN(o, a0, a1, a2, a3) \
	VMOVUPS (o+0)(DI), Z16; \
	VMOVUPS (o+64)(DI), Z17; \
	VMOVUPS (o+128)(DI), Z18; \
	VMOVUPS (o+192)(DI), Z19; \
	LANES4X4; \
	VSHUFPS $0x88, Z17, Z16, a0; \
	VSHUFPS $0xdd, Z17, Z16, a1; \
	VSHUFPS $0x88, Z19, Z18, a2; \
	VSHUFPS $0xdd, Z19, Z18, a3

// SUMSPERMOUT stores a0-a3 back to o(DI) in order (Z16-Z23 scratch): SUMSPERMIN undone.
#define SUMSPERMOUT(o, a0, a1, a2, a3) \
	VUNPCKLPS a1, a0, Z16; \
	VUNPCKHPS a1, a0, Z17; \
	VUNPCKLPS a3, a2, Z18; \
	VUNPCKHPS a3, a2, Z19; \
	LANES4X4; \
	VMOVUPS Z16, (o+0)(DI); \
	VMOVUPS Z17, (o+64)(DI); \
	VMOVUPS Z18, (o+128)(DI); \
	VMOVUPS Z19, (o+192)(DI)
