//go:build amd64 && !purego

package gemm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkStream16AVX2 times the 16-row AVX2 kernels on one block (k = streamBlock16, 16 columns), in L1,
// in GFLOP/s of the block's products.
func BenchmarkStream16AVX2(b *testing.B) {
	if !cpuFeatures.has(asmStream2.needs) {
		b.Skip("no AVX2 streaming kernels on this machine")
	}
	const k = streamBlock16
	rng := rand.New(rand.NewPCG(1, 2))
	a := alignedFloats(16 * k)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	codes := make([]byte, k*streamPanel)
	for i := range codes {
		codes[i] = byte(rng.IntN(256)) &^ 0x01 // no NaN code
	}
	buf := alignedFloats(streamBlock16 * streamPanel)
	out := alignedFloats(16 * 16)
	flops := func(b *testing.B) {
		b.ReportMetric(float64(16*16*k*2)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("f32", func(b *testing.B) {
		for range b.N {
			stream2F32R16(k, &a[0], &buf[0], &out[0], 16)
		}
		flops(b)
	})
	b.Run("f8e4m3fn-fused", func(b *testing.B) {
		for range b.N {
			stream2F8E4M3FNR16Fast(k, &a[0], &codes[0], streamPanel, &buf[0], &out[0], 16)
		}
		flops(b)
	})
	b.Run("f8e4m3fn-fused-scaled", func(b *testing.B) {
		for range b.N {
			stream2F8E4M3FNR16Scaled(k, &a[0], &codes[0], streamPanel, &buf[0], &out[0], 16)
		}
		flops(b)
	})
	b.Run("f8e4m3fn-decode4-mul", func(b *testing.B) {
		for range b.N {
			decode2F8E4M3FN16Fast(k, &codes[0], streamPanel, &buf[0], 4)
			for g := 0; g < 4; g++ {
				stream2F32R16(k, &a[0], &buf[g*streamBlock16*16], &out[0], 16)
			}
		}
		b.ReportMetric(float64(4*16*16*k*2)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("f8e4m3fn-decode4-scaled-mul", func(b *testing.B) {
		for range b.N {
			decode2F8E4M3FN16FastScaled(k, &codes[0], streamPanel, &buf[0], 4)
			for g := 0; g < 4; g++ {
				stream2F32R16(k, &a[0], &buf[g*streamBlock16*16], &out[0], 16)
			}
		}
		b.ReportMetric(float64(4*16*16*k*2)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
