package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"octet/blockscale"
	"octet/dtype"
	"octet/tensor"
)

// BenchmarkBlockScaled measures the products of 1 and 16 rows by 4096 x 4096 block-scaled weights
// (quantized from values uniform in [-1, 1)), beside f8e4m3fn weights (PackWeights) rounded from the same
// values, those below its smallest normal made zero (subnormal codes cost its kernels of 1 and 4 rows
// microcode assists on Intel cores), reporting the weights' bytes per second (scales included) and GFLOP/s.
func BenchmarkBlockScaled(b *testing.B) {
	const n, k = 4096, 4096
	rng := rand.New(rand.NewPCG(1, 1))
	vals := tensor.New(dtype.F32, []int64{k, n})
	v := tensor.View[float32](vals)
	for i := range v {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	for _, m := range []int{1, 16} {
		a, _ := randomTyped(rng, dtype.F32, m, k, false, 0, 0)
		c := NewMatrix(m, n, nil)
		flop := 2 * float64(m) * n * k
		report := func(b *testing.B, bytes int) {
			s := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(bytes)/s/1e9, "GB/s")
			b.ReportMetric(flop/s/1e9, "GFLOP/s")
		}
		b.Run(fmt.Sprintf("f8e4m3fn/m=%d", m), func(b *testing.B) {
			codes := make([]byte, n*k)
			for i, x := range v {
				if math.Abs(float64(x)) < dtype.F8E4M3FN.Finfo().Tiny {
					x = 0
				}
				codes[i] = byte(dtype.F8E4M3FN.EncodeFloat32(x))
			}
			w := PackWeights(Typed{Type: dtype.F8E4M3FN, Data: codes, Rows: k, Cols: n, Stride: n}, nil)
			MatMulWeights(c, a, w, 1, 0)
			for b.Loop() {
				MatMulWeights(c, a, w, 1, 0)
			}
			report(b, n*k)
		})
		for _, f := range []blockscale.Format{blockscale.MXFP4, blockscale.NVFP4, blockscale.MXFP8E4M3, blockscale.MXFP8E5M2} {
			b.Run(fmt.Sprintf("%s/m=%d", f.Name, m), func(b *testing.B) {
				q, err := blockscale.Quantize(f, vals, 0, blockscale.Options{})
				if err != nil {
					b.Fatal(err)
				}
				w := PackBlockScaled(BlockScaled{Format: f, Data: q.Data.Data, Scales: q.Scales.Data, Rows: k, Cols: n,
					Stride: n, ScaleStride: n})
				MatMulBlockScaled(c, a, w, 1, 0)
				for b.Loop() {
					MatMulBlockScaled(c, a, w, 1, 0)
				}
				report(b, w.Bytes())
			})
		}
	}
}

// BenchmarkPack measures laying out a 4096 x 4096 weight stored N x K (as PyTorch and the block-scaled
// GEMMs of JAX keep weights) and K x N: PackWeights of f8e4m3fn and PackBlockScaled of MXFP4 and MXFP8,
// in bytes of the weight's codes read per second.
func BenchmarkPack(b *testing.B) {
	const n, k = 4096, 4096
	rng := rand.New(rand.NewPCG(3, 3))
	codes := make([]byte, n*k)
	for i := range codes {
		codes[i] = byte(rng.IntN(0x7f)) // finite f8e4m3fn codes, and 4-bit ones in their low nibble
	}
	scales := make([]byte, n*k/32)
	for i := range scales {
		scales[i] = byte(120 + rng.IntN(8))
	}
	for _, trans := range []bool{true, false} {
		b.Run(fmt.Sprintf("f8e4m3fn/trans=%v", trans), func(b *testing.B) {
			for b.Loop() {
				PackWeights(Typed{Type: dtype.F8E4M3FN, Data: codes, Rows: k, Cols: n, Stride: k, Trans: trans}, nil)
			}
			b.SetBytes(n * k)
		})
		for _, f := range []blockscale.Format{blockscale.MXFP4, blockscale.MXFP8E4M3} {
			b.Run(fmt.Sprintf("%s/trans=%v", f.Name, trans), func(b *testing.B) {
				elems := codes
				if f.Elem == dtype.F4E2M1FN {
					elems = make([]byte, len(codes))
					for i, c := range codes {
						elems[i] = c & 0xf
					}
				}
				bs := BlockScaled{Format: f, Data: elems, Rows: k, Cols: n, Stride: k, Scales: scales, ScaleStride: k / 32, Trans: trans}
				if !trans {
					bs.Stride, bs.ScaleStride = n, n
				}
				for b.Loop() {
					PackBlockScaled(bs)
				}
				b.SetBytes(n * k)
			})
		}
	}
}
