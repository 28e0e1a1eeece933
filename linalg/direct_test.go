package linalg

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLUHandComputed factors a 3×3 matrix whose elimination was done by hand: column 0 pivots on row 2
// (|6| largest), column 1 on the row holding 4 after the first step.
func TestLUHandComputed(t *testing.T) {
	// a = [[2,1,1],[4,3,3],[8,7,9]]. Step 0: pivot row 2 (8); rows become [8,7,9], [4,3,3]→l=1/2,
	// [2,1,1]→l=1/4 (after the swap row 2 holds the old row 0). Remainders: [3-3.5, 3-4.5] = [-0.5,-1.5],
	// [1-1.75, 1-2.25] = [-0.75,-1.25]. Step 1: pivot |-0.75| > |-0.5|, swap rows 1 and 2; l = (-0.5)/(-0.75)
	// = 2/3; U[2][2] = -1.5 - (2/3)(-1.25) = -2/3.
	a := []float64{2, 1, 1, 4, 3, 3, 8, 7, 9}
	ipiv, info := LU(a, 3, 3)
	if info != 0 || !slices.Equal(ipiv, []int{2, 2, 2}) {
		t.Fatalf("ipiv %v info %d, want [2 2 2] 0", ipiv, info)
	}
	want := []float64{8, 7, 9, 0.25, -0.75, -1.25, 0.5, 2.0 / 3, -2.0 / 3}
	if d := maxDiff(a, want); d > 1e-15 {
		t.Errorf("LU = %v, want %v", a, want)
	}
	if p := PivotsToPermutation(ipiv, 3); !slices.Equal(p, []int{2, 0, 1}) {
		t.Errorf("permutation %v, want [2 0 1]", p)
	}
}

// TestLUTiesAndZeros: the first of equal magnitudes is the pivot (LAPACK's iamax); an exactly zero pivot
// gives info at its column, 1-based, and the factorization goes on.
func TestLUTiesAndZeros(t *testing.T) {
	a := []float64{-3, 1, 3, 2}
	ipiv, _ := LU(a, 2, 2)
	if ipiv[0] != 0 {
		t.Errorf("tie: pivot row %d, want 0", ipiv[0])
	}
	s := []float64{0, 1, 2, 0, 0, 3, 0, 0, 4} // column 0 zero: info 1; then column 1 zero below: info stays 1
	ipiv, info := LU(s, 3, 3)
	if info != 1 || !slices.Equal(ipiv, []int{0, 1, 2}) {
		t.Errorf("singular: ipiv %v info %d, want [0 1 2] 1", ipiv, info)
	}
	z := []complex128{1 + 1i, 0, 2, 1} // abs1(1+1i) = 2 ties |2|: row 0 stays
	ipiv, _ = LU(z, 2, 2)
	if ipiv[0] != 0 {
		t.Errorf("complex tie: pivot row %d, want 0", ipiv[0])
	}
}

// TestLUPivotedModulus: with modulus pivoting, 3 beats 2+2i (|2+2i| = 2.83 < 3 <= |2| + |2|), and real
// matrices pivot as with |x|.
func TestLUPivotedModulus(t *testing.T) {
	for _, tc := range []struct {
		modulus bool
		want    int
	}{{false, 1}, {true, 0}} {
		a := []complex128{3, 1, 2 + 2i, 1}
		ipiv, _ := LUPivoted(a, 2, 2, tc.modulus)
		if ipiv[0] != tc.want {
			t.Errorf("modulus %v: pivot row %d, want %d", tc.modulus, ipiv[0], tc.want)
		}
	}
	a, b := []float64{1, 2, -5, 3, 4, 1, 2, 0, 9}, []float64{1, 2, -5, 3, 4, 1, 2, 0, 9}
	p1, _ := LU(a, 3, 3)
	p2, _ := LUPivoted(b, 3, 3, true)
	if !slices.Equal(p1, p2) || !slices.Equal(a, b) {
		t.Errorf("real matrix: %v %v and %v %v", p1, a, p2, b)
	}
}

// TestLUReconstructs checks P·a = L·U on random real and complex, square and rectangular matrices.
func TestLUReconstructs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bounds := map[string]float64{"real": 1, "complex": math.Sqrt2 * (1 + 1e-15)}
	for _, d := range [][2]int{{1, 1}, {5, 5}, {7, 3}, {3, 7}, {40, 40}} {
		m, n := d[0], d[1]
		check := func(name string, a0, a []complex128, ipiv []int) {
			k := min(m, n)
			l := make([]complex128, m*k)
			u := make([]complex128, k*n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					switch {
					case i > j && j < k:
						l[i*k+j] = a[i*n+j]
					case i <= j && i < k:
						u[i*n+j] = a[i*n+j]
					}
				}
				if i < k {
					l[i*k+i] = 1
				}
			}
			pa := slices.Clone(a0)
			for i, p := range ipiv {
				for c := 0; c < n; c++ {
					pa[i*n+c], pa[p*n+c] = pa[p*n+c], pa[i*n+c]
				}
			}
			if diff := maxDiff(matMul(l, u, m, k, n), pa); diff > 1e-13*float64(n) {
				t.Errorf("%s %dx%d: |P a - L U| = %g", name, m, n, diff)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < min(i, k); j++ {
					// The pivot is largest in abs1, so |l| <= abs1(x)/|p| <= abs1(p)/|p| <= √2 (1 for real).
					if bound := bounds[name]; cmplx.Abs(l[i*k+j]) > bound {
						t.Errorf("%s %dx%d: |L[%d][%d]| = %g > %g", name, m, n, i, j, cmplx.Abs(l[i*k+j]), bound)
					}
				}
			}
		}
		x := randomReal(r, m*n)
		a := slices.Clone(x)
		ipiv, _ := LU(a, m, n)
		toC := func(v []float64) []complex128 {
			c := make([]complex128, len(v))
			for i := range v {
				c[i] = complex(v[i], 0)
			}
			return c
		}
		check("real", toC(x), toC(a), ipiv)
		z := randomComplex(r, m*n)
		b := slices.Clone(z)
		ipiv, _ = LU(b, m, n)
		check("complex", z, b, ipiv)
	}
}

// TestCholeskyHandComputed uses the matrix of XLA's own cholesky test data
// (xla/tools/tests/data/cholesky.hlo): [[1,2,3],[2,20,26],[3,26,70]] = L·Lᵀ with L = [[1,0,0],[2,4,0],
// [3,5,6]] (1·1; 2·2+4·4 = 20; 3·2+5·4 = 26; 9+25+36 = 70).
func TestCholeskyHandComputed(t *testing.T) {
	a := []float64{1, 2, 3, 2, 20, 26, 3, 26, 70}
	lo := slices.Clone(a)
	if info := Cholesky(lo, 3, true); info != 0 {
		t.Fatalf("info %d", info)
	}
	// The upper triangle is left as it was.
	if want := []float64{1, 2, 3, 2, 4, 26, 3, 5, 6}; !slices.Equal(lo, want) {
		t.Errorf("lower: %v, want %v", lo, want)
	}
	up := slices.Clone(a)
	Cholesky(up, 3, false)
	if want := []float64{1, 2, 3, 2, 4, 5, 3, 26, 6}; !slices.Equal(up, want) {
		t.Errorf("upper: %v, want %v", up, want)
	}
	th := slices.Clone(a)
	CholeskyThrough(th, 3, true)
	if want := []float64{1, 0, 0, 2, 4, 0, 3, 5, 6}; !slices.Equal(th, want) {
		t.Errorf("through: %v, want %v", th, want)
	}
}

// TestCholeskyNotPositive: LAPACK's info is the column where the remainder is not positive, that value
// is left on the diagonal and the later columns untouched; the uninterrupted form spreads NaN instead.
func TestCholeskyNotPositive(t *testing.T) {
	a := []float64{4, 0, 0, 2, 1, 0, 1, 7, 3} // lower: [[4],[2,1],[1,7,3]]; column 1: 1 - 1 = 0
	b := slices.Clone(a)
	if info := Cholesky(b, 3, true); info != 2 {
		t.Fatalf("info %d, want 2", info)
	}
	if want := []float64{2, 0, 0, 1, 0, 0, 0.5, 7, 3}; !slices.Equal(b, want) {
		t.Errorf("stopped factor %v, want %v", b, want)
	}
	n := []float64{-1, 0, 5, 1}
	CholeskyThrough(n, 2, true)
	if !math.IsNaN(n[0]) || !math.IsNaN(n[2]) || !math.IsNaN(n[3]) || n[1] != 0 {
		t.Errorf("through a negative pivot: %v, want NaN, 0, NaN, NaN", n)
	}
}

// TestCholeskyReconstructs checks a = L·Lᴴ (and Uᴴ·U) on random Hermitian positive definite matrices,
// real and complex, reading only the named triangle (NaN in the other).
func TestCholeskyReconstructs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 9, 30} {
		g := randomComplex(r, n*n)
		h := make([]complex128, n*n) // g·gᴴ + n·I
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					h[i*n+j] += g[i*n+k] * cmplx.Conj(g[j*n+k])
				}
			}
			h[i*n+i] = complex(real(h[i*n+i])+float64(n), 0)
		}
		for _, lower := range []bool{true, false} {
			a := slices.Clone(h)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if lower && j > i || !lower && j < i {
						a[i*n+j] = cmplx.NaN()
					}
				}
			}
			if info := Cholesky(a, n, lower); info != 0 {
				t.Fatalf("n=%d lower=%v: info %d", n, lower, info)
			}
			l := make([]complex128, n*n) // the factor as L
			lh := make([]complex128, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					v := a[i*n+j]
					if !lower {
						v = cmplx.Conj(a[j*n+i])
					}
					l[i*n+j], lh[j*n+i] = v, cmplx.Conj(v)
				}
			}
			if d := maxDiff(matMul(l, lh, n, n, n), h); d > 1e-13*float64(n*n) {
				t.Errorf("n=%d lower=%v: |a - L Lᴴ| = %g", n, lower, d)
			}
		}
	}
}

// TestQRHandComputed: [[3,1],[4,2]]: alpha 3, x = (4), beta = -5, tau = 8/5, v = 4/(3+5) = 1/2; the
// second column becomes (1 - 3.2, 2 - 1.6) = (-2.2, 0.4); the last reflector is the identity (tau 0).
// Q = I - tau·v·vᵀ = [[-0.6,-0.8],[-0.8,0.6]].
func TestQRHandComputed(t *testing.T) {
	a := []float64{3, 1, 4, 2}
	tau := QR(a, 2, 2)
	if d := maxDiff(a, []float64{-5, -2.2, 0.5, 0.4}); d > 1e-15 {
		t.Errorf("QR = %v", a)
	}
	if d := maxDiff(tau, []float64{1.6, 0}); d > 1e-15 {
		t.Errorf("tau = %v", tau)
	}
	q := HouseholderProduct(a, 2, 2, tau)
	if d := maxDiff(q, []float64{-0.6, -0.8, -0.8, 0.6}); d > 1e-15 {
		t.Errorf("Q = %v", q)
	}
	// A zero column below a negative diagonal: no reflection, R keeps the sign.
	b := []float64{-2, 0}
	if tau := QR(b, 2, 1); tau[0] != 0 || b[0] != -2 {
		t.Errorf("zero below: tau %v, R %v", tau, b)
	}
}

// TestQRReconstructs checks Q·R = a and Qᴴ·Q = I for real and complex, tall, square and wide matrices,
// and that R's diagonal is real for complex input.
func TestQRReconstructs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range [][2]int{{1, 1}, {6, 6}, {9, 4}, {4, 9}, {35, 20}} {
		m, n := d[0], d[1]
		k := min(m, n)
		a0 := randomComplex(r, m*n)
		a := slices.Clone(a0)
		tau := QR(a, m, n)
		// Q: the first k columns (m×k), from the reflectors in a's first k columns; R: k×n.
		ak := make([]complex128, m*k)
		for i := 0; i < m; i++ {
			copy(ak[i*k:i*k+k], a[i*n:i*n+k])
		}
		q := HouseholderProduct(ak, m, k, tau)
		rr := make([]complex128, k*n)
		for i := 0; i < k; i++ {
			for j := i; j < n; j++ {
				rr[i*n+j] = a[i*n+j]
			}
			if imag(rr[i*n+i]) != 0 {
				t.Errorf("%dx%d: R[%d][%d] = %v not real", m, n, i, i, rr[i*n+i])
			}
		}
		if diff := maxDiff(matMul(q, rr, m, k, n), a0); diff > 1e-13*float64(m+n) {
			t.Errorf("%dx%d: |Q R - a| = %g", m, n, diff)
		}
		qh := make([]complex128, k*m)
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				qh[j*m+i] = cmplx.Conj(q[i*k+j])
			}
		}
		eye := make([]complex128, k*k)
		for i := 0; i < k; i++ {
			eye[i*k+i] = 1
		}
		if diff := maxDiff(matMul(qh, q, k, m, k), eye); diff > 1e-14*float64(m) {
			t.Errorf("%dx%d: |Qᴴ Q - I| = %g", m, n, diff)
		}
	}
}
