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

func init() {
	if !vectorPacking {
		return
	}
	set := map[dtype.Type][]streamKernel{
		dtype.F8E4M3FN: {{1, 64, streamF8E4M3FNR1}, {4, 64, streamF8E4M3FNR4}, {16, 16, streamF8E4M3FNR16}},
		dtype.F8E5M2:   {{1, 64, streamF8E5M2R1}, {4, 64, streamF8E5M2R4}, {16, 16, streamF8E5M2R16}},
		dtype.S8:       {{1, 64, streamS8R1}, {4, 64, streamS8R4}, {16, 16, streamS8R16}},
		dtype.BF16:     {{1, 64, streamBF16R1}, {4, 64, streamBF16R4}, {16, 16, streamBF16R16}},
	}
	for _, k := range []*Kernel{avx512Kernel, bf16Kernel} {
		k.streams, k.streamISA = set, "avx512"
	}
}
