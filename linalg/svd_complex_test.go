package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// esComplexWithSingularValues returns q1·diag(sigma)·q2ᴴ (m×n) for random unitary q1 (m×m) and q2
// (n×n).
func esComplexWithSingularValues(r *rand.Rand, m, n int, sigma []float64) []complex128 {
	q1, q2 := esRandomUnitary(r, m), esRandomUnitary(r, n)
	d := make([]complex128, m*n)
	for i, x := range sigma {
		d[i*n+i] = complex(x, 0)
	}
	return matMul(matMul(q1, d, m, m, n), esAdjoint(q2, n, n), m, n, n)
}

func TestSVDComplexKnown(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	cases := []esSVDCase[complex128]{
		// A diagonal matrix's singular values are the magnitudes of its diagonal.
		{"diagonal", 3, 3, []complex128{3i, 0, 0, 0, -1 + 1i, 0, 0, 0, 0}, []float64{3, math.Sqrt2, 0}},
		{"1x1", 1, 1, []complex128{3 - 4i}, []float64{5}},
		// [[1, i], [i, −1]] = (1, i)ᵀ·(1, i): rank one, σ = ‖(1, i)‖² = 2.
		{"rank one", 2, 2, []complex128{1, 1i, 1i, -1}, []float64{2, 0}},
		// A unitary matrix: all singular values 1.
		{"unitary", 5, 5, esRandomUnitary(r, 5), []float64{1, 1, 1, 1, 1}},
	}
	// Built as q1·diag(σ)·q2ᴴ with chosen σ.
	for _, tc := range esChosenSpectra {
		a := esComplexWithSingularValues(r, tc.m, tc.n, tc.sigma)
		cases = append(cases, esSVDCase[complex128]{fmt.Sprintf("built %dx%d", tc.m, tc.n), tc.m, tc.n, a, tc.sigma})
	}
	for _, tc := range cases {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/full=%v", tc.name, full), func(t *testing.T) {
				esCheckSVDScaled(t, SVDComplex, tc.a, tc.m, tc.n, full, tc.s)
			})
		}
	}

	// The diagonal case needs no rotation: u = I, and vt's rows carry the phases.
	s, u, vt, _ := SVDComplex(cases[0].a, 3, 3, true, false)
	wantU := []complex128{1, 0, 0, 0, 1, 0, 0, 0, 1}
	wantVt := []complex128{1i, 0, 0, 0, complex(-1/math.Sqrt2, 1/math.Sqrt2), 0, 0, 0, 1}
	if s[0] != 3 || maxDiff(u, wantU) != 0 || maxDiff(vt, wantVt) > esEps {
		t.Errorf("diagonal: s, u, vt = %v, %v, %v, want %v, %v", s, u, vt, wantU, wantVt)
	}
}

// TestSVDComplexMatchesReal: a real matrix gives SVDFloat's singular values to rounding.
func TestSVDComplexMatchesReal(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, sh := range [][2]int{{1, 1}, {3, 3}, {8, 5}, {5, 8}, {30, 30}} {
		m, n := sh[0], sh[1]
		a := esRandomMatrix(r, m, n)
		ac := make([]complex128, m*n)
		for i, x := range a {
			ac[i] = complex(x, 0)
		}
		sr, _, _, _ := SVDFloat(a, m, n, false, false)
		s, u, vt, ok := SVDComplex(ac, m, n, true, false)
		if !ok {
			t.Fatalf("%dx%d: not ok", m, n)
		}
		esCheckSVD(t, ac, m, n, false, s, u, vt)
		if d := maxDiff(s, sr); d > esSlack*float64(max(m, n))*esEps*esMaxAbs(a) {
			t.Errorf("%dx%d: singular values differ from SVDFloat's by %g", m, n, d)
		}
	}
}

func TestSVDComplexRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, sh := range esRandomShapes(r) {
		m, n := sh[0], sh[1]
		a := randomComplex(r, m*n)
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			esCheckSVDModes(t, SVDComplex, a, m, n)
		})
	}
}

func TestSVDComplexHard(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	base := randomComplex(r, 4*6)
	baseS, baseU, baseVt, _ := SVDComplex(base, 4, 6, true, true)
	for _, tc := range []esSVDCase[complex128]{
		{"zero", 3, 5, make([]complex128, 15), make([]float64, 3)},
		{"imaginary identity", 4, 4, []complex128{1i, 0, 0, 0, 0, 1i, 0, 0, 0, 0, 1i, 0, 0, 0, 0, 1i}, []float64{1, 1, 1, 1}},
		{"row", 1, 3, []complex128{3i, 0, -4}, []float64{5}},
		{"column", 3, 1, []complex128{0, 4 - 3i, 0}, []float64{5}},
		{"huge", 4, 6, esPow2Scaled(base, 996), esPow2Scaled(baseS, 996)},
		{"1e300", 4, 6, []complex128{1e300, 1e300i, 0, 0, 0, 0, -1e300i, 1e300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []float64{2e300, 0, 0, 0}},
		{"1e-300", 2, 2, []complex128{1e-300, 1e-300i, 1e-300i, -1e-300}, []float64{2e-300, 0}},
		{"largest", 2, 2, []complex128{complex(math.MaxFloat64, math.MaxFloat64), 0, 0, math.MaxFloat64 / 2}, []float64{math.Inf(1), math.MaxFloat64 / 2}},
	} {
		for _, full := range []bool{false, true} {
			if tc.name == "largest" {
				// √2·MaxFloat64 overflows: s[0] is +Inf, the rest is finite.
				s, _, _, ok := SVDComplex(tc.a, 2, 2, false, full)
				if !ok || !slices.Equal(s, tc.s) {
					t.Errorf("largest: ok = %v, s = %v, want %v", ok, s, tc.s)
				}
				continue
			}
			t.Run(fmt.Sprintf("%s/full=%v", tc.name, full), func(t *testing.T) {
				esCheckSVDScaled(t, SVDComplex, tc.a, tc.m, tc.n, full, tc.s)
			})
		}
	}

	identity := esIdentity[complex128]
	if _, u, vt, _ := SVDComplex(make([]complex128, 12), 3, 4, true, true); !slices.Equal(u, identity(3)) || !slices.Equal(vt, identity(4)) {
		t.Errorf("zero: u = %v, vt = %v, want identities", u, vt)
	}
	// Scaling by a power of two scales the results exactly.
	for _, k := range []int{-1000, -300, 9, 300, 1000} {
		s, u, vt, ok := SVDComplex(esPow2Scaled(base, k), 4, 6, true, true)
		if !ok || !slices.Equal(s, esPow2Scaled(baseS, k)) || !slices.Equal(u, baseU) || !slices.Equal(vt, baseVt) {
			t.Errorf("2^%d: results not scaled exactly", k)
		}
	}
	for _, sh := range [][2]int{{0, 0}, {0, 3}, {2, 0}} {
		s, u, vt, ok := SVDComplex(nil, sh[0], sh[1], true, true)
		if !ok || len(s) != 0 || !slices.Equal(u, identity(sh[0])) || !slices.Equal(vt, identity(sh[1])) {
			t.Errorf("empty %dx%d: ok = %v, s, u, vt = %v, %v, %v", sh[0], sh[1], ok, s, u, vt)
		}
	}
	for _, bad := range []complex128{complex(math.NaN(), 0), complex(1, math.NaN()), complex(0, math.Inf(1)), complex(math.Inf(-1), 0)} {
		for _, uv := range []bool{false, true} {
			a := slices.Clone(base)
			a[3*6+5] = bad
			s, u, vt, ok := SVDComplex(a, 4, 6, uv, true)
			if ok || len(s) != 4 || !esAllNaN(slices.Concat(s, eighFloatsOf(u), eighFloatsOf(vt))) || (uv && len(u) != 16) {
				t.Errorf("%v, uv=%v: ok = %v, s = %v, or results not NaN", bad, uv, ok, s)
			}
		}
	}
}

// FuzzComplexEighSVD checks SVDComplex on complex matrices of up to 6×6 read from the fuzz data (the
// first two bytes the shape, then real and imaginary parts as esFuzzValues reads them), and
// EighComplex on their leading square blocks (esFuzzCheck).
func FuzzComplexEighSVD(f *testing.F) {
	f.Add([]byte{2, 2, 10, 20, 30, 40, 50, 60, 70, 80})
	f.Add([]byte{3, 3, 0x80, 0x81, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89})
	f.Add([]byte{6, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x8c, 0x8d, 0x8e, 0x8f, 100, 90, 0x83, 0x83, 0x84})
	f.Add([]byte{4, 4, 0x8b, 0x8b, 0x8b, 0x8b, 0x8d, 0x8d, 0x8d, 0x8d, 0x8b, 0x8b, 0x8b, 0x8b, 0x88, 0x88})
	f.Add([]byte{5, 5, 64, 64, 72, 64, 64, 72, 64, 64, 56, 56, 64, 64, 64, 64, 72, 72})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		m, n := int(data[0]%7), int(data[1]%7)
		parts := esFuzzValues(data[2:], 2*m*n)
		a := make([]complex128, m*n)
		for i := range a {
			a[i] = complex(parts[2*i], parts[2*i+1])
		}
		esFuzzCheck(t, a, m, n, SVDComplex, EighComplex)
	})
}

func BenchmarkSVDComplex(b *testing.B) {
	const n = 128
	a := randomComplex(rand.New(rand.NewPCG(39, 40)), n*n)
	for b.Loop() {
		SVDComplex(a, n, n, true, false)
	}
}
