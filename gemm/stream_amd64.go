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
	streamKernels = map[dtype.Type]*[3]streamFunc{
		dtype.F8E4M3FN: {streamF8E4M3FNR1, streamF8E4M3FNR4, streamF8E4M3FNR16},
		dtype.F8E5M2:   {streamF8E5M2R1, streamF8E5M2R4, streamF8E5M2R16},
		dtype.S8:       {streamS8R1, streamS8R4, streamS8R16},
		dtype.BF16:     {streamBF16R1, streamBF16R4, streamBF16R16},
	}
}
