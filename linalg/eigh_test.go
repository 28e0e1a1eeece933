package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The tolerances below are multiples of float64's ε = 2⁻⁵² scaled by the dimension and by the matrix's
// size: Householder tridiagonalisation, Jacobi and QR sweeps are backward stable, with backward errors
// growing at most linearly with n in practice, so a residual or an orthogonality defect above
// esSlack·n·ε (relative to the matrix) means an error, not rounding.
const (
	esEps   = 0x1p-52
	esSlack = 8
)

// esMaxAbs is the largest magnitude in x (0 for an empty x).
func esMaxAbs[T Scalar](x []T) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Hypot(re(v), im(v)))
	}
	return m
}

// esAdjoint returns the n×m conjugate transpose of the m×n row-major x.
func esAdjoint[T Scalar](x []T, m, n int) []T {
	z := transposeOf(x, m, n)
	for i, v := range z {
		z[i] = conj(v)
	}
	return z
}

// esColumnOrthoErr is max |QᴴQ − I| for the m×c row-major q.
func esColumnOrthoErr[T Scalar](q []T, m, c int) float64 {
	g := matMul(esAdjoint(q, m, c), q, c, m, c)
	for i := 0; i < c; i++ {
		g[i*c+i] -= 1
	}
	return esMaxAbs(g)
}

// esRandomOrthogonal returns an n×n orthogonal matrix, the product of n Householder reflections
// I − 2·h·hᵀ with random unit vectors h.
func esRandomOrthogonal(r *rand.Rand, n int) []float64 {
	q := make([]float64, n*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
	}
	h := make([]float64, n)
	for range n {
		nrm := 0.0
		for i := range h {
			h[i] = r.NormFloat64()
			nrm += h[i] * h[i]
		}
		nrm = math.Sqrt(nrm)
		for i := range h {
			h[i] /= nrm
		}
		// q ← q·(I − 2hhᵀ)
		for i := 0; i < n; i++ {
			row := q[i*n : i*n+n]
			dot := 0.0
			for j, v := range row {
				dot += v * h[j]
			}
			for j := range row {
				row[j] -= 2 * dot * h[j]
			}
		}
	}
	return q
}

// esRandomSymmetric returns an n×n symmetric matrix with entries uniform in [−1, 1).
func esRandomSymmetric(r *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			x := 2*r.Float64() - 1
			a[i*n+j], a[j*n+i] = x, x
		}
	}
	return a
}

// esLargestIsPositive reports whether the first component of largest magnitude among the given ones
// is real and positive (or zero).
func esLargestIsPositive[T Scalar](x []T) bool {
	best, big := 0, -1.0
	for i, v := range x {
		if a := math.Hypot(re(v), im(v)); a > big {
			best, big = i, a
		}
	}
	return len(x) == 0 || (re(x[best]) >= 0 && im(x[best]) == 0)
}

// esColumn returns column j of the m×c row-major x.
func esColumn[T Scalar](x []T, m, c, j int) []T {
	col := make([]T, m)
	for i := range col {
		col[i] = x[i*c+j]
	}
	return col
}

// esCheckEigh checks the eigendecomposition w, v of the full symmetric or Hermitian a: residual
// ‖a·v − v·diag(w)‖ and ‖vᴴv − I‖ within esSlack·n·ε (relative to max |a|), ascending w, and the sign
// or phase convention.
func esCheckEigh[T Scalar](t *testing.T, a []T, n int, w []float64, v []T) {
	t.Helper()
	if len(w) != n || len(v) != n*n {
		t.Fatalf("len(w) = %d, len(v) = %d, want %d, %d", len(w), len(v), n, n*n)
	}
	scale := esMaxAbs(a)
	tol := esSlack * float64(n) * esEps
	av := matMul(a, v, n, n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			av[i*n+j] -= v[i*n+j] * fromReal[T](w[j])
		}
	}
	if r := esMaxAbs(av); r > tol*scale {
		t.Errorf("residual max|a·v − v·diag(w)| = %g, want ≤ %g", r, tol*scale)
	}
	if o := esColumnOrthoErr(v, n, n); o > tol {
		t.Errorf("max|vᵀv − I| = %g, want ≤ %g", o, tol)
	}
	if !slices.IsSorted(w) {
		t.Errorf("eigenvalues not ascending: %v", w)
	}
	for j := 0; j < n; j++ {
		if !esLargestIsPositive(esColumn(v, n, n, j)) {
			t.Errorf("eigenvector %d breaks the sign convention", j)
		}
	}
}

// esIdentity returns the n×n identity matrix.
func esIdentity[T Scalar](n int) []T {
	a := make([]T, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = fromReal[T](1)
	}
	return a
}

// esTriangle returns a copy of the full symmetric or Hermitian a with the triangle that lower does not
// name set to NaN.
func esTriangle[T Scalar](a []T, n int, lower bool) []T {
	b := slices.Clone(a)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if (lower && j > i) || (!lower && j < i) {
				b[i*n+j] = eighFromParts[T](math.NaN(), math.NaN())
			}
		}
	}
	return b
}

func TestEighFloatKnown(t *testing.T) {
	type eigCase struct {
		name string
		n    int
		a    []float64
		w    []float64   // expected eigenvalues, ascending
		vecs [][]float64 // expected eigenvectors (up to sign), or nil where not unique
	}
	var cases []eigCase

	// Diagonal matrices: the eigenvalues are the diagonal, sorted, and the eigenvectors the unit
	// vectors; nothing needs rotating, so both are exact.
	cases = append(cases, eigCase{
		name: "diagonal",
		n:    4,
		a:    []float64{3, 0, 0, 0, 0, -1, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0.5},
		w:    []float64{-1, 0.5, 3, 7},
		vecs: [][]float64{{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 0, 1, 0}},
	})

	// [[3, 2], [2, 0]]: λ = (3+0)/2 ∓ √(((3−0)/2)² + 2²) = 1.5 ∓ 2.5 = −1, 4, with eigenvectors
	// (b, λ − a) = (2, −4) ∝ (1, −2) and (2, 1), normalised by √5.
	r5 := math.Sqrt(5)
	cases = append(cases, eigCase{
		name: "2x2 closed form",
		n:    2,
		a:    []float64{3, 2, 2, 0},
		w:    []float64{-1, 4},
		vecs: [][]float64{{-1 / r5, 2 / r5}, {2 / r5, 1 / r5}},
	})

	// The n×n tridiagonal Toeplitz matrix with α on the diagonal and β beside it has eigenvalues
	// α + 2β·cos(kπ/(n+1)) with eigenvectors (sin(jkπ/(n+1)))_j, k, j = 1..n; for β < 0 they rise
	// with k, for β > 0 they fall.
	for _, tc := range []struct {
		n           int
		alpha, beta float64
	}{{2, 2, -1}, {5, 2, -1}, {12, 0.5, 3}, {40, -1, 0.25}} {
		n := tc.n
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			a[i*n+i] = tc.alpha
			if i+1 < n {
				a[i*n+i+1], a[(i+1)*n+i] = tc.beta, tc.beta
			}
		}
		var w []float64
		var vecs [][]float64
		for idx := 1; idx <= n; idx++ {
			k := idx
			if tc.beta > 0 {
				k = n + 1 - idx
			}
			theta := float64(k) * math.Pi / float64(n+1)
			w = append(w, tc.alpha+2*tc.beta*math.Cos(theta))
			vec := make([]float64, n)
			for j := range vec {
				vec[j] = math.Sin(float64(j+1) * theta)
			}
			vecs = append(vecs, vec)
		}
		cases = append(cases, eigCase{name: fmt.Sprintf("toeplitz n=%d", n), n: n, a: a, w: w, vecs: vecs})
	}

	// x·xᵀ has the eigenvalue ‖x‖² with eigenvector x, and 0 on x's orthogonal complement.
	x := []float64{1, -2, 0.5, 3, 1}
	rank1 := matMul(x, x, 5, 1, 5)
	cases = append(cases, eigCase{
		name: "rank one",
		n:    5,
		a:    rank1,
		w:    []float64{0, 0, 0, 0, 15.25},
		vecs: [][]float64{nil, nil, nil, nil, x},
	})

	for _, tc := range cases {
		for _, lower := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/lower=%v", tc.name, lower), func(t *testing.T) {
				w, v, ok := EighFloat(esTriangle(tc.a, tc.n, lower), tc.n, lower, true)
				if !ok {
					t.Fatal("not ok")
				}
				esCheckEigh(t, tc.a, tc.n, w, v)
				scale := esMaxAbs(tc.a)
				tol := esSlack * float64(tc.n) * esEps
				if d := maxDiff(w, tc.w); d > tol*scale {
					t.Errorf("w = %v, want %v (diff %g)", w, tc.w, d)
				}
				for j, want := range tc.vecs {
					if want == nil {
						continue
					}
					got := esColumn(v, tc.n, tc.n, j)
					nrm := norm2(want)
					// Same up to sign, then the sign from the convention on the computed vector.
					dot := 0.0
					for i := range got {
						dot += got[i] * want[i] / nrm
					}
					if math.Abs(math.Abs(dot)-1) > tol {
						t.Errorf("eigenvector %d = %v, want ±%v/%g", j, got, want, nrm)
					}
				}
			})
		}
	}

	// The diagonal case needs no rotation at all: exact results.
	w, v, _ := EighFloat(cases[0].a, 4, true, true)
	if !slices.Equal(w, cases[0].w) {
		t.Errorf("diagonal: w = %v, want exactly %v", w, cases[0].w)
	}
	for j, want := range cases[0].vecs {
		if got := esColumn(v, 4, 4, j); !slices.Equal(got, want) {
			t.Errorf("diagonal: eigenvector %d = %v, want exactly %v", j, got, want)
		}
	}
	// The 2×2 case, sign included: (−1, 2)/√5 has its largest component positive.
	_, v, _ = EighFloat(cases[1].a, 2, true, true)
	for j, want := range cases[1].vecs {
		if d := maxDiff(esColumn(v, 2, 2, j), want); d > 4*esEps {
			t.Errorf("2x2: eigenvector %d = %v, want %v", j, esColumn(v, 2, 2, j), want)
		}
	}
}

// esCheckEighModes runs eigh on the full symmetric or Hermitian n×n a from either triangle, NaN in the
// other, with and without vectors, and checks the result (esCheckEigh), that both triangles and
// vectors=false give the same bits, and that a is not modified.
func esCheckEighModes[T Scalar](t *testing.T, eigh esEighFunc[T], a []T, n int) {
	t.Helper()
	wl, vl, ok := eigh(esTriangle(a, n, true), n, true, true)
	if !ok {
		t.Fatal("lower: not ok")
	}
	esCheckEigh(t, a, n, wl, vl)

	// The upper triangle of the same matrix gives the same full matrix, hence the same bits.
	wu, vu, ok := eigh(esTriangle(a, n, false), n, false, true)
	if !ok || !slices.Equal(wl, wu) || !slices.Equal(vl, vu) {
		t.Errorf("upper triangle: ok = %v, results differ from the lower triangle's", ok)
	}

	// Eigenvalues alone: the same bits, and no vectors.
	w, v, ok := eigh(a, n, true, false)
	if !ok || v != nil || !slices.Equal(w, wl) {
		t.Errorf("vectors=false: ok = %v, v = %v, w equal = %v", ok, v != nil, slices.Equal(w, wl))
	}

	// a is not modified.
	b := slices.Clone(a)
	eigh(b, n, true, true)
	if !slices.Equal(a, b) {
		t.Error("a modified")
	}
}

// esRandomSizes returns the sizes the random tests try: 100 twice, and 1 to 40.
func esRandomSizes() []int {
	sizes := []int{100, 100}
	for n := 1; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	return sizes
}

func TestEighFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range esRandomSizes() {
		a := esRandomSymmetric(r, n)
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			esCheckEighModes(t, EighFloat, a, n)
		})
	}
}

func TestEighFloatHard(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	identity := esIdentity[float64]
	// q·diag(d)·qᵀ for a random orthogonal q: eigenvalues d, with multiplicities.
	withSpectrum := func(d []float64) []float64 {
		n := len(d)
		q := esRandomOrthogonal(r, n)
		qd := slices.Clone(q)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				qd[i*n+j] *= d[j]
			}
		}
		a := matMul(qd, transposeOf(q, n, n), n, n, n)
		for i := 0; i < n; i++ { // exactly symmetric
			for j := 0; j < i; j++ {
				a[j*n+i] = a[i*n+j]
			}
		}
		return a
	}
	scaled := func(a []float64, f float64) []float64 {
		b := slices.Clone(a)
		for i := range b {
			b[i] *= f
		}
		return b
	}
	repeated := []float64{-2, 1, 1, 1, 3, 3, 5, 5, 5, 5}
	base := withSpectrum([]float64{-3, -1, 0.5, 2, 4, 4})
	baseW, _, _ := EighFloat(base, 6, true, false)

	for _, tc := range []struct {
		name string
		n    int
		a    []float64
		w    []float64 // expected eigenvalues, or nil
	}{
		{"1x1", 1, []float64{-2.5}, []float64{-2.5}},
		{"zero", 7, make([]float64, 49), make([]float64, 7)},
		{"identity", 9, identity(9), []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"repeated", 10, withSpectrum(repeated), repeated},
		{"huge", 6, scaled(base, 1e300), scaled(baseW, 1e300)},
		{"tiny", 6, scaled(base, 1e-300), scaled(baseW, 1e-300)},
		{"subnormal", 6, scaled(base, 1e-310), scaled(baseW, 1e-310)},
		{"largest", 2, []float64{math.MaxFloat64 / 2, 0, 0, -math.MaxFloat64 / 2}, []float64{-math.MaxFloat64 / 2, math.MaxFloat64 / 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, v, ok := EighFloat(tc.a, tc.n, true, true)
			if !ok {
				t.Fatal("not ok")
			}
			for _, x := range append(slices.Clone(w), v...) {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("non-finite result: w = %v", w)
				}
			}
			scale := esMaxAbs(tc.a)
			// The check in the scaled-down copy, where the residual cannot overflow or underflow.
			_, e := math.Frexp(scale)
			as, ws := scaled(tc.a, math.Ldexp(1, -e)), scaled(w, math.Ldexp(1, -e))
			if scale == 0 {
				as, ws = tc.a, w
			}
			esCheckEigh(t, as, tc.n, ws, v)
			tol := esSlack * float64(tc.n) * esEps * scale
			if tc.name == "subnormal" {
				// The entries are subnormal, rounded to multiples of 2⁻¹⁰⁷⁴: each moves an
				// eigenvalue by up to 2⁻¹⁰⁷⁵.
				tol += float64(tc.n*tc.n) * math.SmallestNonzeroFloat64
			}
			if d := maxDiff(w, tc.w); d > tol {
				t.Errorf("w = %v, want %v", w, tc.w)
			}
		})
	}

	// Scaling by a power of two is exact, so it scales the results exactly.
	t.Run("power of two scaling", func(t *testing.T) {
		w, v, _ := EighFloat(base, 6, true, true)
		for _, k := range []int{-1000, -500, 7, 500, 1000} {
			f := math.Ldexp(1, k)
			wk, vk, ok := EighFloat(scaled(base, f), 6, true, true)
			if !ok || !slices.Equal(wk, scaled(w, f)) || !slices.Equal(vk, v) {
				t.Errorf("2^%d: results not scaled exactly", k)
			}
		}
	})

	// A block at scale 1 beside an entry at 1e300: the block [[1, 2], [2, 1]] is iterated at its own
	// scale, so its eigenvalues −1 and 3 come out to rounding, not merely to 1e300·ε.
	t.Run("decoupled scales", func(t *testing.T) {
		w, _, ok := EighFloat([]float64{1e300, 0, 0, 0, 1, 2, 0, 2, 1}, 3, true, true)
		want := []float64{-1, 3, 1e300}
		for i := range want {
			if !ok || math.Abs(w[i]-want[i]) > 4*esEps*math.Abs(want[i]) {
				t.Errorf("w = %v, want %v", w, want)
				break
			}
		}
	})

	t.Run("empty", func(t *testing.T) {
		w, v, ok := EighFloat(nil, 0, true, true)
		if !ok || len(w) != 0 || len(v) != 0 {
			t.Errorf("n=0: w = %v, v = %v, ok = %v", w, v, ok)
		}
	})

	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, lower := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v lower=%v", bad, lower), func(t *testing.T) {
				n := 5
				a := esRandomSymmetric(r, n)
				a[3*n+1], a[1*n+3] = bad, bad
				for _, vectors := range []bool{true, false} {
					w, v, ok := EighFloat(a, n, lower, vectors)
					if ok || len(w) != n || (vectors && len(v) != n*n) || (!vectors && v != nil) {
						t.Fatalf("vectors=%v: ok = %v, len(w) = %d, len(v) = %d", vectors, ok, len(w), len(v))
					}
					for _, x := range slices.Concat(w, v) {
						if !math.IsNaN(x) {
							t.Fatalf("vectors=%v: result %v not NaN", vectors, x)
						}
					}
				}
				// Garbage in the unread triangle does not matter.
				b := slices.Clone(a)
				b[3*n+1], b[1*n+3] = 0.5, 0.5
				if lower {
					b[1*n+3] = bad
				} else {
					b[3*n+1] = bad
				}
				if _, _, ok := EighFloat(b, n, lower, true); !ok {
					t.Error("non-finite value in the unread triangle made it fail")
				}
			})
		}
	}
}

func BenchmarkEighFloat(b *testing.B) {
	const n = 256
	a := esRandomSymmetric(rand.New(rand.NewPCG(5, 6)), n)
	for b.Loop() {
		EighFloat(a, n, true, true)
	}
}
