package interp

import (
	"fmt"
	"testing"

	"octet/gemm"
)

func TestDot(t *testing.T) {
	a23 := "f32[2,3] {{1, 2, 3}, {4, 5, 6}}"
	runCases(t, []opCase{
		{"matmul", `ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{a23, "f32[3,2] {{1, 0}, {0, 1}, {1, 1}}"}, []string{"f32[2,2] {{4, 5}, {10, 11}}"}},
		// Contracting the lhs's first dimension and the rhs's last one reads both operands transposed.
		{"transposed-operands", `ENTRY e {
  a = f32[3,2] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
}`, []string{"f32[3,2] {{1, 4}, {2, 5}, {3, 6}}", "f32[2,3] {{1, 0, 1}, {0, 1, 1}}"}, []string{"f32[2,2] {{4, 5}, {10, 11}}"}},
		{"batch", `ENTRY e {
  a = f32[2,1,2] parameter(0)
  b = f32[2,2,1] parameter(1)
  ROOT d = f32[2,1,1] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}`, []string{"f32[2,1,2] {{{1, 2}}, {{3, 4}}}", "f32[2,2,1] {{{5}, {6}}, {{7}, {8}}}"}, []string{"f32[2,1,1] {{{17}}, {{53}}}"}},
		// Batch dimension in the middle and two contracting dimensions: the operands are transposed first.
		{"batch-middle-two-contracting", `ENTRY e {
  a = f32[2,2,2] parameter(0)
  b = f32[2,2,2] parameter(1)
  ROOT d = f32[2] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={2}, lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
}`, []string{"f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}", "f32[2,2,2] {{{1, 0}, {0, 1}}, {{1, 1}, {1, 1}}}"},
			// batch 0: a[:,0,:] = {1,2,5,6} with b[:,:,0] = {1,0,1,1}: 1+5+6 = 12; batch 1: {3,4,7,8}.{0,1,1,1} = 19
			[]string{"f32[2] {12, 19}"}},
		{"vector-vector", `ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`, []string{"f32[3] {1, 2, 3}", "f32[3] {4, 5, 6}"}, []string{"f32[] 32"}},
		{"outer", `ENTRY e {
  a = s32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT d = s32[2,3] dot(a, b)
}`, []string{"s32[2] {1, 2}", "s32[3] {3, 4, 5}"}, []string{"s32[2,3] {{3, 4, 5}, {6, 8, 10}}"}},
		// FP8 operands with an f32 result are converted exactly and accumulated in float32.
		{"f8-preferred-f32", `ENTRY e {
  a = f8e4m3fn[1,2] parameter(0)
  b = f8e5m2[2,1] parameter(1)
  ROOT d = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{"f8e4m3fn[1,2] {{448, 0.001953125}}", "f8e5m2[2,1] {{57344}, {1}}"}, []string{"f32[1,1] {{25690112.001953125}}"}},
		// bf16 x bf16 -> bf16 accumulates in float32 and rounds once: 256 + 1 + 1 = 258 (exact in bf16),
		// where rounding every step would stay at 256.
		{"bf16-accumulates-f32", `ENTRY e {
  a = bf16[1,3] parameter(0)
  b = bf16[3,1] parameter(1)
  ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{"bf16[1,3] {{256, 1, 1}}", "bf16[3,1] {{1}, {1}, {1}}"}, []string{"bf16[1,1] {{258}}"}},
		{"s8-s32", `ENTRY e {
  a = s8[1,2] parameter(0)
  b = s8[2,1] parameter(1)
  ROOT d = s32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, []string{"s8[1,2] {{-128, 127}}", "s8[2,1] {{127}, {127}}"}, []string{"s32[1,1] {{-127}}"}},
		{"f64", `ENTRY e {
  a = f64[2,2] parameter(0)
  b = f64[2,2] parameter(1)
  ROOT d = f64[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, []string{"f64[2,2] {{1, 2}, {3, 4}}", "f64[2,2] {{1e-20, 1}, {1, 0}}"}, []string{"f64[2,2] {{2, 1}, {4, 3}}"}},
	})
}

func TestConvolution(t *testing.T) {
	runCases(t, []opCase{
		{"1d-valid", `ENTRY e {
  x = f32[1,5,1] parameter(0)
  k = f32[3,1,1] parameter(1)
  ROOT c = f32[1,3,1] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f
}`, []string{"f32[1,5,1] {{{1}, {2}, {3}, {4}, {5}}}", "f32[3,1,1] {{{1}}, {{0}}, {{-1}}}"}, []string{"f32[1,3,1] {{{-2}, {-2}, {-2}}}"}},
		{"1d-pad-stride-reversal", `ENTRY e {
  x = f32[1,1,4] parameter(0)
  k = f32[1,1,2] parameter(1)
  // Padded input {0, 1, 2, 3, 4, 0}, windows {0, 1}, {2, 3}, {4, 0}, reversed kernel {1, 10}.
  ROOT c = f32[1,1,3] convolution(x, k), window={size=2 stride=2 pad=1_1 rhs_reversal=1}, dim_labels=bf0_oi0->bf0
}`, []string{"f32[1,1,4] {{{1, 2, 3, 4}}}", "f32[1,1,2] {{{10, 1}}}"}, []string{"f32[1,1,3] {{{10, 32, 4}}}"}},
		// Two feature groups: output feature 0 sees input feature 0, output feature 1 input feature 1.
		{"feature-groups", `ENTRY e {
  x = f32[1,2,2] parameter(0)
  k = f32[1,1,2] parameter(1)
  ROOT c = f32[1,2,2] convolution(x, k), window={size=1}, dim_labels=b0f_0io->b0f, feature_group_count=2
}`, []string{"f32[1,2,2] {{{1, 2}, {3, 4}}}", "f32[1,1,2] {{{10, 100}}}"}, []string{"f32[1,2,2] {{{10, 200}, {30, 400}}}"}},
		// Two batch groups: output feature f uses input batch f (the batch is split among the features).
		{"batch-groups", `ENTRY e {
  x = f32[2,1,1] parameter(0)
  k = f32[1,1,2] parameter(1)
  ROOT c = f32[1,1,2] convolution(x, k), window={size=1}, dim_labels=b0f_0io->b0f, batch_group_count=2
}`, []string{"f32[2,1,1] {{{3}}, {{5}}}", "f32[1,1,2] {{{10, 100}}}"}, []string{"f32[1,1,2] {{{30, 500}}}"}},
		{"2d", `ENTRY e {
  x = f32[1,1,3,3] parameter(0)
  k = f32[1,1,2,2] parameter(1)
  ROOT c = f32[1,1,2,2] convolution(x, k), window={size=2x2}, dim_labels=bf01_oi01->bf01
}`, []string{"f32[1,1,3,3] {{{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}}}", "f32[1,1,2,2] {{{{1, 0}, {0, 1}}}}"}, []string{"f32[1,1,2,2] {{{{6, 8}, {12, 14}}}}"}},
		{"s8-saturates", `ENTRY e {
  x = s8[1,2,1] parameter(0)
  k = s8[2,1,1] parameter(1)
  ROOT c = s8[1,1,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
}`, []string{"s8[1,2,1] {{{100}, {100}}}", "s8[2,1,1] {{{1}}, {{1}}}"}, []string{"s8[1,1,1] {{{127}}}"}},
	})
}

// countingMatMuler records calls, to check that dots go through Options.MatMuler.
type countingMatMuler struct{ calls int }

func (c *countingMatMuler) MatMulBatched(count int, cm gemm.Matrix, strideC int, a gemm.Matrix, strideA int, b gemm.Matrix, strideB int, alpha, beta float32) {
	c.calls++
	gemm.MatMulBatched(count, cm, strideC, a, strideA, b, strideB, alpha, beta)
}

func TestMatMuler(t *testing.T) {
	m := parseModule(t, `ENTRY e {
  a = bf16[4,8] parameter(0)
  b = bf16[8,3] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`)
	args, _ := RandomInputs(m, 3)
	g := &countingMatMuler{}
	r, err := Run(m, args, Options{MatMuler: g})
	if err != nil {
		t.Fatal(err)
	}
	if g.calls != 1 {
		t.Errorf("MatMuler called %d times, want 1", g.calls)
	}
	// Compare with a float64 reference: bf16 products are exact in float32 and the sums of 8 terms are
	// close.
	a, b := args[0].Array.Float64s(), args[1].Array.Float64s()
	got := r.Array.Float32s()
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			var s float64
			for k := 0; k < 8; k++ {
				s += a[i*8+k] * b[k*3+j]
			}
			if d := float64(got[i*3+j]) - s; d > 1e-5 || d < -1e-5 {
				t.Errorf("d[%d,%d] = %g, want %g", i, j, got[i*3+j], s)
			}
		}
	}
}

// BenchmarkDotF32_1024 measures a 1024x1024x1024 float32 dot through the interpreter and reports GFLOP/s.
func BenchmarkDotF32_1024(b *testing.B) {
	const n = 1024
	m, err := parseBench(fmt.Sprintf(`ENTRY e {
  a = f32[%d,%d] parameter(0)
  b = f32[%d,%d] parameter(1)
  ROOT d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, n, n, n, n, n, n))
	if err != nil {
		b.Fatal(err)
	}
	args, err := RandomInputs(m, 1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Run(m, args, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(m, args, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
