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
