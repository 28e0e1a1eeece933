package interp

import (
	"fmt"
	"math"
	"testing"

	"octet/gemm"
	"octet/hlo/parser"
)

// TestDotTyped checks dots of narrow operands with a float32 result, which package gemm multiplies
// without a float32 copy (decoding while packing, the bf16 kernel, the streaming kernels for few rows),
// against a float64 product of the same inputs: every layout the plan reads in place (transposed
// operands, batches) and one it copies (a permuted operand), through every kernel of this machine.
func TestDotTyped(t *testing.T) {
	cases := []struct{ lhs, rhs, dims, out string }{
		{"f8e4m3fn[33,70]", "f8e4m3fn[70,45]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32[33,45]"},
		{"f8e5m2[3,70]", "f8e4m3fn[70,130]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32[3,130]"},
		{"f32[1,40]", "s8[40,65]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32[1,65]"},
		{"bf16[70,5]", "f8e4m3fn[17,70]", "lhs_contracting_dims={0}, rhs_contracting_dims={1}", "f32[5,17]"},
		{"f8e4m3fn[2,9,30]", "f8e5m2[2,30,7]", "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}", "f32[2,9,7]"},
		{"f8e4m3fn[9,2,30]", "f8e4m3fn[2,30,7]", "lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}", "f32[2,9,7]"},
	}
	for _, kern := range gemm.Kernels() {
		prev := gemm.SetKernel(kern)
		for _, tc := range cases {
			m := parseModule(t, fmt.Sprintf(`ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT d = %s dot(a, b), %s
}`, tc.lhs, tc.rhs, tc.out, tc.dims))
			args, err := RandomInputs(m, 5)
			if err != nil {
				t.Fatal(err)
			}
			// The reference: the same dot of the operands converted to f64, in float64.
			m64 := parseModule(t, fmt.Sprintf(`ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  a64 = f64%s convert(a)
  b64 = f64%s convert(b)
  ROOT d = f64%s dot(a64, b64), %s
}`, tc.lhs, tc.rhs, dimsOf(tc.lhs), dimsOf(tc.rhs), dimsOf(tc.out), tc.dims))
			got, err := Run(m, args, Options{})
			if err != nil {
				t.Fatalf("%v: %s: %v", kern, tc.out, err)
			}
			want, err := Run(m64, args, Options{})
			if err != nil {
				t.Fatal(err)
			}
			g, w := got.Array.Float32s(), want.Array.Float64s()
			// Magnitudes stay below 2^10 here, with K <= 70: a float32 sum is within K*2^-24*sum|x|.
			for i := range w {
				if math.Abs(float64(g[i])-w[i]) > 70*0x1p-23*(math.Abs(w[i])+64) {
					t.Fatalf("%v: %s dot(%s, %s): element %d = %v, want %v", kern, tc.out, tc.lhs, tc.rhs, i, g[i], w[i])
				}
			}
		}
		gemm.SetKernel(prev)
	}
}

// dimsOf returns the "[...]" part of a shape.
func dimsOf(s string) string {
	for i := range s {
		if s[i] == '[' {
			return s[i:]
		}
	}
	return s
}

// BenchmarkDotFP8 times an FP8 dot with a float32 result through the interpreter and the same product
// through package gemm directly, as "octet bench gemm --a=f8e4m3fn --b=f8e4m3fn" times it: the ratio is
// what evaluating costs over the kernel.
func BenchmarkDotFP8(b *testing.B) {
	const n = 2048
	m, err := parser.ParseString("dot.hlo", fmt.Sprintf(`ENTRY e {
  a = f8e4m3fn[%d,%d] parameter(0)
  b = f8e4m3fn[%d,%d] parameter(1)
  ROOT d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, n, n, n, n, n, n))
	if err != nil {
		b.Fatal(err)
	}
	args, err := RandomInputs(m, 1)
	if err != nil {
		b.Fatal(err)
	}
	flop := 2 * float64(n) * float64(n) * float64(n)
	b.Run("interp", func(b *testing.B) {
		for b.Loop() {
			if _, err := Run(m, args, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("gemm", func(b *testing.B) {
		x, y := args[0].Array, args[1].Array
		ta := gemm.Typed{Type: x.Type, Data: x.Data, Rows: n, Cols: n, Stride: n}
		tb := gemm.Typed{Type: y.Type, Data: y.Data, Rows: n, Cols: n, Stride: n}
		c := gemm.NewMatrix(n, n, nil)
		for b.Loop() {
			gemm.MatMulTyped(c, ta, tb, 1, 0)
		}
		b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
