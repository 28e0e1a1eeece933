//go:build !purego

package gemm

import (
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

// avx2Decoding reports whether packing decodes f8e4m3fn, f8e5m2 and bf16 with the AVX2 decoders, where the
// AVX-512 ones are not used.
var avx2Decoding bool

func init() {
	avx2Decoding = hasAVX2Kernel() && hasF16C
	useAVX2 = hasAVX2Kernel()
	if hasAVX2Kernel() && hasF16C {
		avx2Kernel.streams, avx2Kernel.streamISA = map[dtype.Type][]streamKernel{
			dtype.F8E4M3FN: {{rows: 1, cols: 64, fn: stream2F8E4M3FNR1, fast: stream2F8E4M3FNR1Fast},
				{rows: 4, cols: 16, fn: stream2F8E4M3FNR4, fast: stream2F8E4M3FNR4Fast},
				{rows: 8, cols: 8, fn: stream2F8E4M3FNR8, fast: stream2F8E4M3FNR8Fast}, r16scaled(decode2F8E4M3FN16, decode2F8E4M3FN16Fast, stream2F8E4M3FNR16Fast,
					decode2F8E4M3FN16FastScaled, stream2F8E4M3FNR16Scaled, stream2F32R16DecF8E4M3FNScaled)},
			dtype.F8E5M2: {{rows: 1, cols: 64, fn: stream2F8E5M2R1}, {rows: 4, cols: 16, fn: stream2F8E5M2R4},
				{rows: 8, cols: 8, fn: stream2F8E5M2R8}, r16(decode2F8E5M216, nil, stream2F8E5M2R16Fast, stream2F32R16DecF8E5M2)},
			dtype.S8: {{rows: 1, cols: 64, fn: stream2S8R1}, {rows: 4, cols: 16, fn: stream2S8R4}, {rows: 8, cols: 8, fn: stream2S8R8},
				r16(decode2S816, nil, stream2S8R16Fast, stream2F32R16DecS8)},
			dtype.BF16: {{rows: 1, cols: 64, fn: stream2BF16R1}, {rows: 4, cols: 16, fn: stream2BF16R4},
				{rows: 8, cols: 8, fn: stream2BF16R8}, r16(decode2BF1616, nil, stream2BF16R16Fast, stream2F32R16DecBF16)},
		}, "avx2"
	}
	if !vectorPacking {
		return
	}
	set := map[dtype.Type][]streamKernel{
		dtype.F8E4M3FN: {{rows: 1, cols: 64, fn: streamF8E4M3FNR1, fast: streamF8E4M3FNR1Fast},
			{rows: 4, cols: 64, fn: streamF8E4M3FNR4, fast: streamF8E4M3FNR4Fast},
			{rows: 16, cols: 16, fn: streamF8E4M3FNR16, fast: streamF8E4M3FNR16Fast}},
		dtype.F8E5M2: {{rows: 1, cols: 64, fn: streamF8E5M2R1}, {rows: 4, cols: 64, fn: streamF8E5M2R4}, {rows: 16, cols: 16, fn: streamF8E5M2R16}},
		dtype.S8:     {{rows: 1, cols: 64, fn: streamS8R1}, {rows: 4, cols: 64, fn: streamS8R4}, {rows: 16, cols: 16, fn: streamS8R16}},
		dtype.BF16:   {{rows: 1, cols: 64, fn: streamBF16R1}, {rows: 4, cols: 64, fn: streamBF16R4}, {rows: 16, cols: 16, fn: streamBF16R16}},
	}
	for _, k := range []*Kernel{avx512Kernel, bf16Kernel} {
		k.streams, k.streamISA = set, "avx512"
	}
}

// r16 is the AVX2 kernel for 9 to 16 rows: blocks of 16 columns decoded by decode (or decodeFast, or
// decodeMul for a packed B) and multiplied by stream2F32R16, or for a row-major B, by mulDecode while it
// decodes the next panel.
func r16(decode streamDecodeFunc, decodeFast streamDecodeFastFunc, decodeMul streamDecodeMulFunc, mulDecode streamMulDecodeFunc) streamKernel {
	return streamKernel{rows: 16, cols: 16, decode: decode, decodeFast: decodeFast, decodeMul: decodeMul, mul: stream2F32R16, mulDecode: mulDecode}
}

// r16scaled is r16 with the kernels that read A scaled by 2^8 (f8e4m3fn: B decoded through half
// precision without the multiplication by 2^8); mulDecode is one of them.
func r16scaled(decode streamDecodeFunc, decodeFast streamDecodeFastFunc, decodeMul streamDecodeMulFunc,
	decodeFastScaled streamDecodeFastFunc, decodeMulScaled streamDecodeMulFunc, mulDecode streamMulDecodeFunc) streamKernel {
	sk := r16(decode, decodeFast, decodeMul, mulDecode)
	sk.decodeFastScaled, sk.decodeMulScaled, sk.mulDecodeScaled = decodeFastScaled, decodeMulScaled, true
	return sk
}

// hasAVX2Kernel reports whether the machine runs the AVX2 kernels.
func hasAVX2Kernel() bool {
	for _, k := range available {
		if k == avx2Kernel {
			return true
		}
	}
	return false
}
