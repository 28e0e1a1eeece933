//go:build !purego

package gemm

import (
	"maps"
	"math"
	"unsafe"

	"octet/dtype"
)

// The streaming kernels of stream_amd64.s (AVX-512), one per element type of B and number of rows.

//go:noescape
func streamF8E4M3FNR1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamF8E4M3FNR4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamF8E4M3FNR16(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamF8E5M2R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamF8E5M2R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamF8E5M2R16(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamS8R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamS8R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamS8R16(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamBF16R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamBF16R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func streamBF16R16(k int, a *float32, b *byte, bstride int, out *float32)

// The fast f8e4m3fn kernels of stream_avx512_fast_amd64.s: false, out untouched, where B holds a NaN code.

//go:noescape
func streamF8E4M3FNR1Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

//go:noescape
func streamF8E4M3FNR4Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

//go:noescape
func streamF8E4M3FNR16Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

// The AVX2 streaming kernels of stream_avx2_amd64.s.

//go:noescape
func stream2F8E4M3FNR1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2F8E4M3FNR4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2F8E4M3FNR8(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2F8E5M2R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2F8E5M2R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2F8E5M2R8(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2S8R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2S8R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2S8R8(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2BF16R1(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2BF16R4(k int, a *float32, b *byte, bstride int, out *float32)

//go:noescape
func stream2BF16R8(k int, a *float32, b *byte, bstride int, out *float32)

// The fast f8e4m3fn kernels of stream_avx2_amd64.s: false, out untouched, where B holds a NaN code.

//go:noescape
func stream2F8E4M3FNR1Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

//go:noescape
func stream2F8E4M3FNR4Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

//go:noescape
func stream2F8E4M3FNR8Fast(k int, a *float32, b *byte, bstride int, out *float32) bool

// The 16-row AVX2 kernel of stream16_avx2_amd64.s and its decoders of blocks of 16 columns (groups of
// them, groups <= 4, block g at dst + g*streamBlock16*16).

//go:noescape
func stream2F32R16(k int, a *float32, b *float32, out *float32, rows int)

//go:noescape
func stream2F8E4M3FNR16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

//go:noescape
func stream2F8E4M3FNR16Scaled(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

//go:noescape
func stream2F8E5M2R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

//go:noescape
func stream2S8R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

//go:noescape
func stream2BF16R16Fast(k int, a *float32, b *byte, bstride int, buf *float32, out *float32, rows int) bool

// The 16-row kernels that decode the next panel of a row-major B while they multiply (stream16dec_amd64.h);
// only the f8e4m3fn one can meet a code it decodes wrong.
//
//go:noescape
func stream2F32R16DecF8E4M3FNScaled(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)

//go:noescape
func stream2F32R16DecF8E5M2(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)

//go:noescape
func stream2F32R16DecS8(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)

//go:noescape
func stream2F32R16DecBF16(k int, a *float32, b *float32, out *float32, rows int, src *byte, bstride int, drows int, dst *float32) (nan bool)

//go:noescape
func decode2F8E4M3FN16Fast(k int, b *byte, bstride int, dst *float32, groups int) bool

//go:noescape
func decode2F8E4M3FN16FastScaled(k int, b *byte, bstride int, dst *float32, groups int) bool

//go:noescape
func decode2F8E5M216(k int, b *byte, bstride int, dst *float32, groups int)

//go:noescape
func decode2S816(k int, b *byte, bstride int, dst *float32, groups int)

//go:noescape
func decode2BF1616(k int, b *byte, bstride int, dst *float32, groups int)

// The kernels of 1 and 4 rows of an 8-bit type whose values are bfloat16 values, by byte lookups in tab
// (bf16Table), for CPUs with AVX-512 VBMI (stream_avx512_vbmi_amd64.s): exact, NaN codes included.
//
//go:noescape
func streamF8R1VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte, tab *[256]byte)

//go:noescape
func streamF8R4VBMI(k int, a *float32, b *byte, bstride int, out *float32, pf *byte, tab *[256]byte)

// The decoders of whole panels of stream-avx512's buffered kernels of 8 rows (stream_amd64.s):
// k rows of 64 elements at b into the four blocks of a bufferedStream's buffer at dst, exactly (NaN codes
// included), fetching as many rows at pf ahead.
//
//go:noescape
func decodeF8E4M3FNPanel(k int, b *byte, bstride int, dst *float32, pf *byte)

//go:noescape
func decodeF8E5M2Panel(k int, b *byte, bstride int, dst *float32, pf *byte)

//go:noescape
func decodeS8Panel(k int, b *byte, bstride int, dst *float32, pf *byte)

//go:noescape
func decodeBF16Panel(k int, b *byte, bstride int, dst *float32, pf *byte)

// decodeF8VBMI is the decoding of the 8- and 16-row kernels of stream-avx512vbmi: k rows of a whole
// panel of an 8-bit type whose values are bfloat16 values, by the byte lookups in tab, into the four
// blocks of a bufferedStream's buffer, in the order the lookups leave the columns (vbmiSums).
//
//go:noescape
func decodeF8VBMI(k int, b *byte, bstride int, dst *float32, tab *[256]byte, pf *byte)

// bf16Table returns the table of the lookups of streamF8RnVBMI and blockF8R1VBMI for the 8-bit type t,
// every value of which times 2^exp must be a bfloat16: the low bytes of the bfloat16 of the values of the
// codes 0 to 127 times 2^exp, then their high bytes (NaN codes: 0x7fc0, a quiet NaN).
func bf16Table(t dtype.Type, exp int) *[256]byte {
	var tab [256]byte
	for c := range 128 {
		v := float64(t.DecodeFloat32(uint64(c)))
		bits := uint32(0x7fc00000)
		if v == v {
			bits = math.Float32bits(float32(math.Ldexp(v, exp)))
		}
		if bits&0xffff != 0 || float64(math.Float32frombits(bits)) != math.Ldexp(v, exp) && v == v {
			panic("gemm: bf16Table of a value that is no bfloat16")
		}
		tab[c], tab[128+c] = byte(bits>>16), byte(bits>>24)
	}
	return &tab
}

// The tables of the streaming kernels.
var (
	bf16TableE4M3FN = bf16Table(dtype.F8E4M3FN, 0)
	bf16TableE5M2   = bf16Table(dtype.F8E5M2, 0)
)

// vbmiStream returns the direct kernel of rows (1 or 4) that looks up the values of a type in tab, with
// exact beside it for the tests to compare with.
func vbmiStream(rows int, exact streamFunc, tab *[256]byte) *directStream {
	f := streamF8R1VBMI
	if rows == 4 {
		f = streamF8R4VBMI
	}
	return &directStream{rows: rows, cols: 64, exact: exact, sums: &vbmiSums,
		pf: func(k int, a *float32, b *byte, bstride int, out *float32, pf *byte) {
			f(k, a, b, bstride, out, pf, tab)
		}}
}

// panelBuffered returns the kernel of 8 or 16 rows that decodes a block of whole panels by decode into
// L1 (in the column order sums gives, nil for in order) and multiplies every row by it from there
// (blockMulR8, blockMulR16), fetching the next rows ahead.
func panelBuffered(rows int, decode func(k int, b *byte, bstride int, dst *float32, pf *byte), sums *[streamPanel]uint8) *bufferedStream {
	mul := blockMulR16
	if rows == 8 {
		mul = blockMulR8
	}
	return &bufferedStream{sums: sums, rows: rows, pf: decode,
		mul: func(k int, a, b, out *float32, _ int) { mul(k, a, b, out) }}
}

// vbmiBuffered returns panelBuffered by the byte lookups in tab (decodeF8VBMI): 9 operations on the
// vector units decode 64 elements, where the exact decoding through half precision takes 32.
func vbmiBuffered(rows int, tab *[256]byte) *bufferedStream {
	return panelBuffered(rows, func(k int, b *byte, bstride int, dst *float32, pf *byte) {
		decodeF8VBMI(k, b, bstride, dst, tab, pf)
	}, &vbmiSums)
}

// decode2F8E4M3FN16 is the exact decoding of groups blocks of 16 columns of f8e4m3fn (NaN codes
// included), laid out as decode2F8E4M3FN16Fast's, for the blocks that it leaves to this: row by row, rare.
func decode2F8E4M3FN16(k int, b *byte, bstride int, dst *float32, groups int) {
	for g := 0; g < groups; g++ {
		for p := 0; p < k; p++ {
			decodeF8E4M3FNAVX2((*float32)(unsafe.Add(unsafe.Pointer(dst), (g*streamBlock16+p)*16*4)),
				(*byte)(unsafe.Add(unsafe.Pointer(b), p*bstride+g*16)), 16)
		}
	}
}

// The AVX2 decoders of stream_avx2_amd64.s: n must be a multiple of 8.
//
//go:noescape
func decodeF8E4M3FNAVX2(dst *float32, src *byte, n int)

//go:noescape
func decodeF8E5M2AVX2(dst *float32, src *byte, n int)

//go:noescape
func widenBF16AVX2(dst *float32, src *byte, n int)

// streamsAVX512 are the streaming kernels of stream_amd64.s and stream_avx512_fast_amd64.s: direct ones
// for 1, 4 and 16 rows, and for 5 to 8 a buffered one (the direct 16-row kernel would run them as 16, half
// its multiply-adds on rows of zeros; for 16 rows the buffered one, with the exact decoding through half
// precision, measured no faster on Sapphire Rapids).
var streamsAVX512 = &streamSet{name: "stream-avx512", kernels: map[dtype.Type][]streamKernel{
	dtype.F8E4M3FN: {
		&directStream{rows: 1, cols: 64, exact: streamF8E4M3FNR1, quick: streamF8E4M3FNR1Fast},
		&directStream{rows: 4, cols: 64, exact: streamF8E4M3FNR4, quick: streamF8E4M3FNR4Fast},
		panelBuffered(8, decodeF8E4M3FNPanel, nil),
		&directStream{rows: 16, cols: 16, exact: streamF8E4M3FNR16, quick: streamF8E4M3FNR16Fast}},
	dtype.F8E5M2: {
		&directStream{rows: 1, cols: 64, exact: streamF8E5M2R1},
		&directStream{rows: 4, cols: 64, exact: streamF8E5M2R4},
		panelBuffered(8, decodeF8E5M2Panel, nil),
		&directStream{rows: 16, cols: 16, exact: streamF8E5M2R16}},
	dtype.S8: {
		&directStream{rows: 1, cols: 64, exact: streamS8R1},
		&directStream{rows: 4, cols: 64, exact: streamS8R4},
		panelBuffered(8, decodeS8Panel, nil),
		&directStream{rows: 16, cols: 16, exact: streamS8R16}},
	dtype.BF16: {
		&directStream{rows: 1, cols: 64, exact: streamBF16R1},
		&directStream{rows: 4, cols: 64, exact: streamBF16R4},
		panelBuffered(8, decodeBF16Panel, nil),
		&directStream{rows: 16, cols: 16, exact: streamBF16R16}},
}}

// streamsAVX512VBMI are those of streamsAVX512 with the f8e4m3fn and f8e5m2 kernels of
// stream_avx512_vbmi_amd64.s, for CPUs with AVX-512 VBMI (Ice Lake, Zen 4 and later): 1 and 4 rows
// decoded in registers, 8 and 16 from a block decoded into L1; exact, in fewer instructions, fetching the
// next panel ahead. The exact kernels of stream-avx512 stay beside them, for TestStreamKernelsExact to
// compare with.
var streamsAVX512VBMI = &streamSet{name: "stream-avx512vbmi"}

// vbmiSums is where the VBMI kernels keep the sum of each column of a row: their four registers hold, in
// 128-bit lane L, the columns 16L + {0,2,4,6}, {1,3,5,7}, {8,10,12,14} and {9,11,13,15}.
var vbmiSums = func() (s [streamPanel]uint8) {
	for j := range s {
		lane, t := j/16, j%16
		s[j] = uint8(16*(t%2+t/8*2) + 4*lane + t%8/2)
	}
	return s
}()

func init() {
	s := streamsAVX512VBMI
	s.kernels = maps.Clone(streamsAVX512.kernels)
	s.kernels[dtype.F8E4M3FN] = []streamKernel{
		vbmiStream(1, streamF8E4M3FNR1, bf16TableE4M3FN),
		vbmiStream(4, streamF8E4M3FNR4, bf16TableE4M3FN),
		vbmiBuffered(8, bf16TableE4M3FN),
		vbmiBuffered(16, bf16TableE4M3FN)}
	s.kernels[dtype.F8E5M2] = []streamKernel{
		vbmiStream(1, streamF8E5M2R1, bf16TableE5M2),
		vbmiStream(4, streamF8E5M2R4, bf16TableE5M2),
		vbmiBuffered(8, bf16TableE5M2),
		vbmiBuffered(16, bf16TableE5M2)}
}

// streamsAVX2 are the streaming kernels of stream_avx2_amd64.s, stream_avx2_fast_amd64.s and
// stream16_avx2_amd64.s: direct ones up to 8 rows, buffered ones for 9 to 16 (the f8e4m3fn one with the
// decodings of A scaled by 2^8, which pipeline the panels; the others pipeline them with the plain one,
// which decodes every code).
var streamsAVX2 = &streamSet{name: "stream-avx2", kernels: map[dtype.Type][]streamKernel{
	dtype.F8E4M3FN: {
		&directStream{rows: 1, cols: 64, exact: stream2F8E4M3FNR1, quick: stream2F8E4M3FNR1Fast},
		&directStream{rows: 4, cols: 16, exact: stream2F8E4M3FNR4, quick: stream2F8E4M3FNR4Fast},
		&directStream{rows: 8, cols: 8, exact: stream2F8E4M3FNR8, quick: stream2F8E4M3FNR8Fast},
		&bufferedStream{exact: decode2F8E4M3FN16, mul: stream2F32R16,
			plain:  blockDecoding{quick: decode2F8E4M3FN16Fast, fused: stream2F8E4M3FNR16Fast},
			scaled: blockDecoding{quick: decode2F8E4M3FN16FastScaled, fused: stream2F8E4M3FNR16Scaled, next: stream2F32R16DecF8E4M3FNScaled}}},
	dtype.F8E5M2: {
		&directStream{rows: 1, cols: 64, exact: stream2F8E5M2R1},
		&directStream{rows: 4, cols: 16, exact: stream2F8E5M2R4},
		&directStream{rows: 8, cols: 8, exact: stream2F8E5M2R8},
		&bufferedStream{exact: decode2F8E5M216, mul: stream2F32R16,
			plain: blockDecoding{fused: stream2F8E5M2R16Fast, next: stream2F32R16DecF8E5M2}}},
	dtype.S8: {
		&directStream{rows: 1, cols: 64, exact: stream2S8R1},
		&directStream{rows: 4, cols: 16, exact: stream2S8R4},
		&directStream{rows: 8, cols: 8, exact: stream2S8R8},
		&bufferedStream{exact: decode2S816, mul: stream2F32R16,
			plain: blockDecoding{fused: stream2S8R16Fast, next: stream2F32R16DecS8}}},
	dtype.BF16: {
		&directStream{rows: 1, cols: 64, exact: stream2BF16R1},
		&directStream{rows: 4, cols: 16, exact: stream2BF16R4},
		&directStream{rows: 8, cols: 8, exact: stream2BF16R8},
		&bufferedStream{exact: decode2BF1616, mul: stream2F32R16,
			plain: blockDecoding{fused: stream2BF16R16Fast, next: stream2F32R16DecBF16}}},
}}
