package interp

import (
	"fmt"
	"math/cmplx"
	"slices"
	"strings"
	"testing"
)

// TestTriangularSolve solves with each side, triangle and transposition against a hand-computed answer.
func TestTriangularSolve(t *testing.T) {
	const a = "f64[2,2] {{2, 9}, {1, 4}}" // lower triangle {{2, 0}, {1, 4}}, upper {{2, 9}, {0, 4}}
	for _, tc := range []struct {
		attrs string
		b     string
		want  []float64
	}{
		{"left_side=true, lower=true, transpose_a=NO_TRANSPOSE", "f64[2,1] {{2}, {9}}", []float64{1, 2}},                     // 2x=2; x+4y=9
		{"left_side=true, lower=false, transpose_a=NO_TRANSPOSE", "f64[2,1] {{20}, {8}}", []float64{1, 2}},                   // 2x+9y=20; 4y=8
		{"left_side=true, lower=true, transpose_a=TRANSPOSE", "f64[2,1] {{4}, {8}}", []float64{1, 2}},                        // 2x+y=4; 4y=8
		{"left_side=false, lower=true, transpose_a=NO_TRANSPOSE", "f64[1,2] {{4, 8}}", []float64{1, 2}},                      // [x y] L: 2x+y=4, 4y=8
		{"left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE", "f64[2,1] {{1}, {3}}", []float64{1, 2}}, // x=1; x+y=3
		// Right side with more rows of b than a has (three rows [x y], each solved on its own): the
		// solution was transposed back as if it had a's shape.
		{"left_side=false, lower=false, transpose_a=NO_TRANSPOSE", "f64[3,2] {{2, 17}, {6, 43}, {10, 69}}", []float64{1, 2, 3, 4, 5, 6}}, // [x y] U: 2x, 9x+4y
		{"left_side=false, lower=true, transpose_a=NO_TRANSPOSE", "f64[3,2] {{4, 8}, {10, 16}, {16, 24}}", []float64{1, 2, 3, 4, 5, 6}},  // [x y] L: 2x+y, 4y
	} {
		src := "ENTRY e {\n  a = f64[2,2] parameter(0)\n  b = " + tc.b[:8] + " parameter(1)\n  ROOT x = " + tc.b[:8] +
			" triangular-solve(a, b), " + tc.attrs + "\n}"
		v, err := evalText(t, src, a, tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.attrs, err)
		}
		if got := v.Array.Float64s(); !slices.Equal(got, tc.want) {
			t.Errorf("%s, b %s: got %v, want %v", tc.attrs, tc.b, got, tc.want)
		}
	}
}

// TestCublasTriangularSolve: the call XLA's GPU compiler makes of a triangular-solve gives the
// instruction's bits for every side, triangle, transposition and diagonal (its column-major layouts, as
// the compiler assigns them), a workspace of zeros, and refuses a malformed configuration.
func TestCublasTriangularSolve(t *testing.T) {
	a := "c64[2,3,3] {{{(2,1), (9,9), (9,9)}, {(1,-1), (4,0), (9,9)}, {(3,0), (0.5,2), (-1,1)}}, {{(1,0), (2,0), (3,0)}, {(5,5), (2,-1), (1,1)}, {(-3,1), (7,0), (0.25,0)}}}"
	for _, left := range []bool{true, false} {
		for _, lower := range []bool{true, false} {
			for _, trans := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
				for _, unit := range []bool{false, true} {
					bShape, b := "c64[2,3,2]", "c64[2,3,2] {{{(1,0), (2,1)}, {(0,3), (-1,0)}, {(4,4), (0.5,-2)}}, {{(7,0), (1,1)}, {(2,2), (3,-3)}, {(-1,-1), (6,0)}}}"
					if !left {
						bShape, b = "c64[2,2,3]", "c64[2,2,3] {{{(1,0), (2,1), (0,3)}, {(-1,0), (4,4), (0.5,-2)}}, {{(7,0), (1,1), (2,2)}, {(3,-3), (-1,-1), (6,0)}}}"
					}
					attrs := fmt.Sprintf("left_side=%v, lower=%v, unit_diagonal=%v, transpose_a=%s", left, lower, unit, trans)
					want, err := evalText(t, "ENTRY e {\n  a = c64[2,3,3] parameter(0)\n  b = "+bShape+" parameter(1)\n  ROOT x = "+bShape+" triangular-solve(a, b), "+attrs+"\n}", a, b)
					if err != nil {
						t.Fatal(err)
					}
					cfg := fmt.Sprintf(`{"left_side":%v,"lower":%v,"transpose_a":"%s","unit_diagonal":%v}`, left, lower, trans, unit)
					colMajor := strings.Replace(bShape, "]", "]{1,2,0}", 1)
					got, err := evalText(t, "ENTRY e {\n  a = c64[2,3,3]{1,2,0} parameter(0)\n  b = "+colMajor+" parameter(1)\n  ROOT x = ("+colMajor+", s8[0]{0}) custom-call(a, b), custom_call_target=\"__cublas$triangularSolve\", backend_config="+cfg+"\n}", a, b)
					if err != nil {
						t.Fatalf("%s: %v", cfg, err)
					}
					if !got.Tuple[0].Array.Equal(want.Array) || got.Tuple[1].Array.NumElements() != 0 {
						t.Errorf("%s: got %s, want %s", cfg, describe(got), describe(want))
					}
				}
			}
		}
	}
	for _, tc := range []struct{ result, cfg, msg string }{
		{"(f64[2,1], s8[4])", `{"left_side":true,"lower":true,"transpose_a":"SIDEWAYS"}`, "transpose_a"},
		{"(f64[2,1], s8[4])", `{"left_side":true,"lower":true,"transpose":"TRANSPOSE"}`, "unknown field"},
		{"(f64[2,1], s8[4])", `{"left_side":"yes"}`, "backend_config"},
		{"(f64[2,1], s8[4])", `{"left_side":true,"lower":true}`, "no transpose_a"},
		{"f64[2,1]", `{"left_side":true,"lower":true,"transpose_a":"NO_TRANSPOSE"}`, "workspace"},
		{"(f64[1,2], s8[4])", `{"left_side":true,"lower":true,"transpose_a":"NO_TRANSPOSE"}`, "declares"},
		{"(f64[2,1], s8[4])", ``, "without a backend_config"},
	} {
		src := "ENTRY e {\n  a = f64[2,2] parameter(0)\n  b = f64[2,1] parameter(1)\n  ROOT x = " + tc.result + ` custom-call(a, b), custom_call_target="__cublas$triangularSolve"`
		if tc.cfg != "" {
			src += ", backend_config=" + tc.cfg
		}
		_, err := evalText(t, src+"\n}", "f64[2,2] {{2, 0}, {1, 4}}", "f64[2,1] {{2}, {9}}")
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %s: got %v, want an error naming %q", tc.result, tc.cfg, err, tc.msg)
		}
	}
}

// TestFFT runs the four transforms on small inputs with known spectra.
func TestFFT(t *testing.T) {
	near := func(got []complex128, want []complex128) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if cmplx.Abs(got[i]-want[i]) > 1e-12 {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		name, src, arg string
		want           []complex128
	}{
		{"fft", "ENTRY e {\n  x = c128[4] parameter(0)\n  ROOT f = c128[4] fft(x), fft_type=FFT, fft_length={4}\n}",
			"c128[4] {(1,0), (2,0), (3,0), (4,0)}", []complex128{10, -2 + 2i, -2, -2 - 2i}},
		{"ifft", "ENTRY e {\n  x = c128[4] parameter(0)\n  ROOT f = c128[4] fft(x), fft_type=IFFT, fft_length={4}\n}",
			"c128[4] {(10,0), (-2,2), (-2,0), (-2,-2)}", []complex128{1, 2, 3, 4}},
		{"rfft", "ENTRY e {\n  x = f64[4] parameter(0)\n  ROOT f = c128[3] fft(x), fft_type=RFFT, fft_length={4}\n}",
			"f64[4] {1, 2, 3, 4}", []complex128{10, -2 + 2i, -2}},
		{"irfft", "ENTRY e {\n  x = c128[3] parameter(0)\n  ROOT f = f64[4] fft(x), fft_type=IRFFT, fft_length={4}\n}",
			"c128[3] {(10,0), (-2,2), (-2,0)}", []complex128{1, 2, 3, 4}},
		{"fft2d", "ENTRY e {\n  x = c128[2,2] parameter(0)\n  ROOT f = c128[2,2] fft(x), fft_type=FFT, fft_length={2,2}\n}",
			"c128[2,2] {{(1,0), (2,0)}, {(3,0), (4,0)}}", []complex128{10, -2, -4, 0}},
	} {
		v, err := evalText(t, tc.src, tc.arg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := asComplex(v.Array)
		if !near(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
