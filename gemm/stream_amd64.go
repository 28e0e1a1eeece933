//go:build !purego

package gemm

import "octet/dtype"

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
	if hasAVX2Kernel() && hasF16C {
		avx2Kernel.streams, avx2Kernel.streamISA = map[dtype.Type][]streamKernel{
			dtype.F8E4M3FN: {{1, 64, stream2F8E4M3FNR1, stream2F8E4M3FNR1Fast}, {4, 16, stream2F8E4M3FNR4, stream2F8E4M3FNR4Fast},
				{8, 8, stream2F8E4M3FNR8, stream2F8E4M3FNR8Fast}},
			dtype.F8E5M2: {{1, 64, stream2F8E5M2R1, nil}, {4, 16, stream2F8E5M2R4, nil}, {8, 8, stream2F8E5M2R8, nil}},
			dtype.S8:     {{1, 64, stream2S8R1, nil}, {4, 16, stream2S8R4, nil}, {8, 8, stream2S8R8, nil}},
			dtype.BF16:   {{1, 64, stream2BF16R1, nil}, {4, 16, stream2BF16R4, nil}, {8, 8, stream2BF16R8, nil}},
		}, "avx2"
	}
	if !vectorPacking {
		return
	}
	set := map[dtype.Type][]streamKernel{
		dtype.F8E4M3FN: {{1, 64, streamF8E4M3FNR1, nil}, {4, 64, streamF8E4M3FNR4, nil}, {16, 16, streamF8E4M3FNR16, nil}},
		dtype.F8E5M2:   {{1, 64, streamF8E5M2R1, nil}, {4, 64, streamF8E5M2R4, nil}, {16, 16, streamF8E5M2R16, nil}},
		dtype.S8:       {{1, 64, streamS8R1, nil}, {4, 64, streamS8R4, nil}, {16, 16, streamS8R16, nil}},
		dtype.BF16:     {{1, 64, streamBF16R1, nil}, {4, 64, streamBF16R4, nil}, {16, 16, streamBF16R16, nil}},
	}
	for _, k := range []*Kernel{avx512Kernel, bf16Kernel} {
		k.streams, k.streamISA = set, "avx512"
	}
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
