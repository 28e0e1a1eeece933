package gemm

import (
	"fmt"
	"math/rand/v2"
	"octet/dtype"
	"sync"
	"testing"
)

// benchMatMul measures C = A*B for an m x n x k product and reports GFLOP/s (2*m*n*k per product).
func benchMatMul(b *testing.B, m, n, k int, transA, transB bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := operand{m, k, transA, 0}.build(rng, 0)
	bm := operand{k, n, transB, 0}.build(rng, 0)
	c := NewMatrix(m, n, nil)
	MatMul(c, a, bm, 1, 0)
	b.ResetTimer()
	for b.Loop() {
		MatMul(c, a, bm, 1, 0)
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkMatMul(b *testing.B) {
	for _, s := range []shape{{64, 64, 64}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}} {
		b.Run(fmt.Sprint(s.m), func(b *testing.B) { benchMatMul(b, s.m, s.n, s.k, false, false) })
	}
	// A skinny product: a batch of 16 activations through a 4096x4096 layer.
	b.Run("skinny-16x4096x4096", func(b *testing.B) { benchMatMul(b, 16, 4096, 4096, false, false) })
	b.Run("1024-transA-transB", func(b *testing.B) { benchMatMul(b, 1024, 1024, 1024, true, true) })
	b.Run("1024-1thread", func(b *testing.B) {
		defer SetThreads(SetThreads(1))
		benchMatMul(b, 1024, 1024, 1024, false, false)
	})
}

func BenchmarkMatMulBatched(b *testing.B) {
	const count, m = 64, 64
	rng := rand.New(rand.NewPCG(1, 1))
	a := operand{count * m, m, false, 0}.build(rng, 0)
	bm := operand{count * m, m, false, 0}.build(rng, 0)
	c := NewMatrix(count*m, m, nil)
	one := func(x Matrix) Matrix { x.Rows = m; return x }
	for b.Loop() {
		MatMulBatched(count, one(c), m*m, one(a), m*m, one(bm), m*m, 1, 0)
	}
	b.ReportMetric(2*m*m*m*count*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkKernel measures each kernel's tile function alone, on packed panels that stay in L1: the
// ceiling the blocked product can approach, on one core, and on every core at once (Threads() goroutines,
// each with panels of its own), which is the ceiling of a product split across the cores: cores that
// share power and caches may each run slower when all of them are busy.
func BenchmarkKernel(b *testing.B) {
	for _, kern := range Kernels() {
		const kc = 256
		flop := 2 * float64(kern.mr*kern.nr*kc)
		if kern.bf16 {
			flop *= 2 // kc counts pairs of k
		}
		loop := func(n int) {
			a := alignedFloats(kern.mr * kc)
			bp := alignedFloats(kern.nr * kc)
			c := alignedFloats(kern.mr * kern.nr)
			for range n {
				kern.tile(kc, a, bp, c, kern.nr, c, kern.nr, kern.mr, kern.nr, 1, 0)
			}
		}
		b.Run(kern.Name(), func(b *testing.B) {
			loop(b.N)
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(kern.Name()+"-allcores", func(b *testing.B) {
			t := Threads()
			var wg sync.WaitGroup
			for range t {
				wg.Go(func() { loop(b.N) })
			}
			wg.Wait()
			b.ReportMetric(flop*float64(t*b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMatMulTyped measures products of narrow operands, decoded while packing.
func BenchmarkMatMulTyped(b *testing.B) {
	for _, typ := range []dtype.Type{dtype.BF16, dtype.F8E4M3FN} {
		for _, n := range []int{1024, 2048} {
			b.Run(fmt.Sprintf("%v-%d", typ, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				a, _ := randomTyped(rng, typ, n, n, false, 0, 0)
				bm, _ := randomTyped(rng, typ, n, n, false, 0, 0)
				c := NewMatrix(n, n, nil)
				MatMulTyped(c, a, bm, 1, 0)
				for b.Loop() {
					MatMulTyped(c, a, bm, 1, 0)
				}
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkEpilogue measures an FP8 product finished as cuBLASLt's FP8 matmul finishes it (scales, bias,
// ReLU, abs-max, conversion to f8e4m3fn), against the same product left as float32 sums.
func BenchmarkEpilogue(b *testing.B) {
	const n = 2048
	rng := rand.New(rand.NewPCG(1, 1))
	a, _ := randomTyped(rng, dtype.F8E4M3FN, n, n, false, 0, 0)
	bm, _ := randomTyped(rng, dtype.F8E4M3FN, n, n, false, 0, 0)
	c := NewMatrix(n, n, nil)
	flop := 2 * float64(n) * float64(n) * float64(n)
	b.Run("sums", func(b *testing.B) {
		for b.Loop() {
			MatMulTyped(c, a, bm, 1, 0)
		}
		b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("fp8-out", func(b *testing.B) {
		bias := make([]float32, n)
		for i := range bias {
			bias[i] = float32(rng.Float64() - 0.5)
		}
		d := make([]byte, n*n)
		for b.Loop() {
			var amax float32
			ep := &Epilogue{Scale: 0.5, Bias: bias, Activation: ReLU, OutScale: 0.25, Saturate: true,
				D: d, DType: dtype.F8E4M3FN, DStride: n, Amax: &amax}
			MatMulEpilogue(c, a, bm, ep)
		}
		b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
