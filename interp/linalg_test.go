package interp

import (
	"math/cmplx"
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
	} {
		src := "ENTRY e {\n  a = f64[2,2] parameter(0)\n  b = " + tc.b[:8] + " parameter(1)\n  ROOT x = " + tc.b[:8] +
			" triangular-solve(a, b), " + tc.attrs + "\n}"
		v, err := evalText(t, src, a, tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.attrs, err)
		}
		got := v.Array.Float64s()
		if len(got) != 2 || got[0] != tc.want[0] || got[1] != tc.want[1] {
			t.Errorf("%s: got %v, want %v", tc.attrs, got, tc.want)
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
