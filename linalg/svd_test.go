package linalg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// esCheckSVD checks SVDFloat's or SVDComplex's results for the m×n a: shapes, descending non-negative
// s, the reconstruction ‖a − u·diag(s)·vt‖ and the orthonormality of u's columns and vt's rows within
// esSlack·max(m,n)·ε (relative to max |a|; for the scale-free orthonormality, absolute), and the sign
// or phase convention.
func esCheckSVD[T Scalar](t *testing.T, a []T, m, n int, full bool, s []float64, u, vt []T) {
	t.Helper()
	k := min(m, n)
	ucols, vrows := k, k
	if full {
		ucols, vrows = m, n
	}
	if len(s) != k || len(u) != m*ucols || len(vt) != vrows*n {
		t.Fatalf("len(s), len(u), len(vt) = %d, %d, %d, want %d, %d, %d", len(s), len(u), len(vt), k, m*ucols, vrows*n)
	}
	tol := esSlack * float64(max(m, n)) * esEps
	for j := range s {
		if s[j] < 0 || (j > 0 && s[j] > s[j-1]) {
			t.Fatalf("s not descending and non-negative: %v", s)
		}
	}
	us := make([]T, m*k)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			us[i*k+j] = u[i*ucols+j] * fromReal[T](s[j])
		}
	}
	rec := matMul(us, vt[:k*n], m, k, n)
	if d := maxDiff(rec, a); d > tol*esMaxAbs(a) {
		t.Errorf("max|a − u·diag(s)·vt| = %g, want ≤ %g", d, tol*esMaxAbs(a))
	}
	if o := esColumnOrthoErr(u, m, ucols); o > tol {
		t.Errorf("max|uᵀu − I| = %g, want ≤ %g", o, tol)
	}
	if o := esColumnOrthoErr(esAdjoint(vt, vrows, n), n, vrows); o > tol {
		t.Errorf("max|vt·vtᴴ − I| = %g, want ≤ %g", o, tol)
	}
	for j := 0; j < k; j++ {
		if !esLargestIsPositive(esColumn(u, m, ucols, j)) {
			t.Errorf("column %d of u breaks the sign convention", j)
		}
	}
}

// esWithSingularValues returns q1·diag(sigma)·q2ᵀ (m×n) for random orthogonal q1 (m×m) and q2 (n×n),
// and q1, q2.
func esWithSingularValues(r *rand.Rand, m, n int, sigma []float64) (a, q1, q2 []float64) {
	q1, q2 = esRandomOrthogonal(r, m), esRandomOrthogonal(r, n)
	d := make([]float64, m*n)
	for i, x := range sigma {
		d[i*n+i] = x
	}
	a = matMul(matMul(q1, d, m, m, n), transposeOf(q2, n, n), m, n, n)
	return a, q1, q2
}

// esSVDCase is a matrix with known singular values.
type esSVDCase[T Scalar] struct {
	name string
	m, n int
	a    []T
	s    []float64
}

// esChosenSpectra are the shapes and singular values, zeros and repeated values included, that the
// known-value tests build matrices from.
var esChosenSpectra = []struct {
	m, n  int
	sigma []float64
}{
	{6, 6, []float64{5, 3, 3, 1, 0, 0}},
	{9, 4, []float64{2, 2, 2, 0.001}},
	{4, 9, []float64{7, 1, 0, 0}},
	{12, 7, []float64{10, 8, 8, 8, 1e-8, 0, 0}},
	{7, 12, []float64{1, 1, 1, 1, 1, 1, 1}},
	{1, 5, []float64{0.25}},
	{5, 1, []float64{0}},
	{30, 30, []float64{30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
}

func TestSVDFloatKnown(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := []esSVDCase[float64]{
		// aᵀa = [[25, 20], [20, 25]] has eigenvalues 45 and 5: σ = 3√5, √5.
		{"[[3,0],[4,5]]", 2, 2, []float64{3, 0, 4, 5}, []float64{3 * math.Sqrt(5), math.Sqrt(5)}},
		// A diagonal matrix's singular values are the magnitudes of its diagonal.
		{"diagonal", 4, 4, []float64{-3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, []float64{3, 2, 1, 0}},
		{"diagonal wide", 2, 3, []float64{0.5, 0, 0, 0, -4, 0}, []float64{4, 0.5}},
		{"diagonal tall", 3, 2, []float64{0, 0, 0, 7, 0, 0}, []float64{7, 0}},
		// A graded diagonal: one-sided Jacobi keeps the tiny value to full relative accuracy.
		{"graded", 2, 2, []float64{1, 0, 0, 1e-200}, []float64{1, 1e-200}},
		// Orthogonal columns of norms √2 and √2·10⁻²⁰⁰.
		{"graded columns", 2, 2, []float64{1, 1e-200, 1, -1e-200}, []float64{math.Sqrt2, math.Sqrt2 * 1e-200}},
		// Parallel columns, one 10⁻³⁰⁰ times the other: rank one, σ = √2·10³⁰⁰ and 0.
		{"parallel columns", 2, 2, []float64{1e300, 1, 1e300, 1}, []float64{math.Sqrt2 * 1e300, 0}},
		// x·yᵀ has the single singular value ‖x‖·‖y‖ = √15.25·√14.
		{"rank one", 5, 3, matMul([]float64{1, -2, 0.5, 3, 1}, []float64{1, 2, -3}, 5, 1, 3), []float64{math.Sqrt(15.25 * 14), 0, 0}},
	}
	// Built as q1·diag(σ)·q2ᵀ with chosen σ.
	for _, tc := range esChosenSpectra {
		a, _, _ := esWithSingularValues(r, tc.m, tc.n, tc.sigma)
		cases = append(cases, esSVDCase[float64]{fmt.Sprintf("built %dx%d", tc.m, tc.n), tc.m, tc.n, a, tc.sigma})
	}

	for _, tc := range cases {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/full=%v", tc.name, full), func(t *testing.T) {
				s, u, vt, ok := SVDFloat(tc.a, tc.m, tc.n, true, full)
				if !ok {
					t.Fatal("not ok")
				}
				scale := esMaxAbs(tc.a)
				_, e := math.Frexp(scale)
				f := math.Ldexp(1, -e)
				as, ss := slices.Clone(tc.a), slices.Clone(s)
				for i := range as {
					as[i] *= f
				}
				for i := range ss {
					ss[i] *= f
				}
				esCheckSVD(t, as, tc.m, tc.n, full, ss, u, vt)
				tol := esSlack * float64(max(tc.m, tc.n)) * esEps
				for j := range s {
					// Relative accuracy for the graded cases (exact columns), absolute otherwise.
					want := tc.s[j]
					if d := math.Abs(s[j] - want); d > tol*scale && d > tol*want {
						t.Errorf("s = %v, want %v", s, tc.s)
						break
					}
				}
			})
		}
	}

	// The graded examples are orthogonal already: their tiny singular values come out to a few ulps.
	for _, i := range []int{4, 5} {
		s, _, _, _ := SVDFloat(cases[i].a, 2, 2, true, false)
		if d := math.Abs(s[1]-cases[i].s[1]) / cases[i].s[1]; d > 4*esEps {
			t.Errorf("%s: s[1] = %g, want %g", cases[i].name, s[1], cases[i].s[1])
		}
	}
}

// esRandomMatrix returns an m×n matrix with entries uniform in [−1, 1).
func esRandomMatrix(r *rand.Rand, m, n int) []float64 {
	a := make([]float64, m*n)
	for i := range a {
		a[i] = 2*r.Float64() - 1
	}
	return a
}

// esSVDFunc is SVDFloat's or SVDComplex's signature.
type esSVDFunc[T Scalar] func(a []T, m, n int, uv, full bool) (s []float64, u, vt []T, ok bool)

// esCheckSVDModes runs svd on the m×n a with and without full and uv, and on aᴴ, and checks each
// result (esCheckSVD), that the thin results are the full ones' leading part and uv=false gives the same
// bits, that aᴴ has a's singular values, and that a is not modified.
func esCheckSVDModes[T Scalar](t *testing.T, svd esSVDFunc[T], a []T, m, n int) {
	t.Helper()
	s, u, vt, ok := svd(a, m, n, true, false)
	if !ok {
		t.Fatal("not ok")
	}
	esCheckSVD(t, a, m, n, false, s, u, vt)

	sf, uf, vtf, ok := svd(a, m, n, true, true)
	if !ok {
		t.Fatal("full: not ok")
	}
	esCheckSVD(t, a, m, n, true, sf, uf, vtf)
	// The first k columns of u and rows of vt, and s, do not depend on full.
	k := min(m, n)
	same := slices.Equal(s, sf) && slices.Equal(vt, vtf[:k*n])
	for i := 0; i < m && same; i++ {
		same = slices.Equal(u[i*k:i*k+k], uf[i*m:i*m+k])
	}
	if !same {
		t.Error("full and thin results differ in their common part")
	}

	s0, u0, vt0, ok := svd(a, m, n, false, true)
	if !ok || u0 != nil || vt0 != nil || !slices.Equal(s0, s) {
		t.Error("uv=false: different singular values, or vectors returned")
	}

	// The adjoint has the same singular values; its vectors are the others swapped.
	st, _, _, ok := svd(esAdjoint(a, m, n), n, m, false, false)
	if !ok || maxDiff(st, s) > esSlack*float64(max(m, n))*esEps*esMaxAbs(a) {
		t.Errorf("adjoint: s = %v, want %v", st, s)
	}

	b := slices.Clone(a)
	svd(b, m, n, true, true)
	if !slices.Equal(a, b) {
		t.Error("a modified")
	}
}

// esRandomShapes returns the shapes the random tests try: 100×100, 100×37, 23×100, and for n = 1 to
// 40, n×n and n×(a random width up to 40).
func esRandomShapes(r *rand.Rand) [][2]int {
	shapes := [][2]int{{100, 100}, {100, 37}, {23, 100}}
	for n := 1; n <= 40; n++ {
		shapes = append(shapes, [2]int{n, n}, [2]int{n, 1 + r.IntN(40)})
	}
	return shapes
}

func TestSVDFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sh := range esRandomShapes(r) {
		m, n := sh[0], sh[1]
		a := esRandomMatrix(r, m, n)
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			esCheckSVDModes(t, SVDFloat, a, m, n)
		})
	}
}

// esCheckSVDScaled runs svd on the m×n a, whose results must be finite, and checks them (esCheckSVD)
// against a scaled as svd scales it, by the power of two that brings its largest entry into [1/2, 1),
// and s against want.
func esCheckSVDScaled[T Scalar](t *testing.T, svd esSVDFunc[T], a []T, m, n int, full bool, want []float64) {
	t.Helper()
	s, u, vt, ok := svd(a, m, n, true, full)
	if !ok {
		t.Fatal("not ok")
	}
	if !esAllFinite(slices.Concat(s, eighFloatsOf(u), eighFloatsOf(vt))) {
		t.Fatalf("non-finite result: s = %v", s)
	}
	scale := esMaxAbs(a)
	as, ss := a, s
	if scale > 0 {
		_, e := math.Frexp(esMaxAbs(eighFloatsOf(a)))
		as, ss = esPow2Scaled(a, -e), esPow2Scaled(s, -e)
	}
	esCheckSVD(t, as, m, n, full, ss, u, vt)
	if d := maxDiff(s, want); d > esSlack*float64(max(m, n))*esEps*scale {
		t.Errorf("s = %v, want %v", s, want)
	}
}

// esAllFinite reports whether no element of x is NaN or infinite.
func esAllFinite(x []float64) bool {
	return !slices.ContainsFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
}

func TestSVDFloatHard(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	base := esRandomMatrix(r, 5, 3)
	baseS, baseU, baseVt, _ := SVDFloat(base, 5, 3, true, true)
	scaled := func(a []float64, f float64) []float64 {
		b := slices.Clone(a)
		for i := range b {
			b[i] *= f
		}
		return b
	}
	identity := esIdentity[float64]

	for _, tc := range []esSVDCase[float64]{
		{"zero", 4, 6, make([]float64, 24), make([]float64, 4)},
		{"identity", 5, 5, identity(5), []float64{1, 1, 1, 1, 1}},
		{"1x1 negative", 1, 1, []float64{-2}, []float64{2}},
		{"row", 1, 4, []float64{0, 3, 0, -4}, []float64{5}},
		{"column", 4, 1, []float64{0, 3, 0, -4}, []float64{5}},
		{"huge", 5, 3, scaled(base, 1e300), scaled(baseS, 1e300)},
		{"tiny", 5, 3, scaled(base, 1e-300), scaled(baseS, 1e-300)},
		{"largest", 2, 2, []float64{math.MaxFloat64 / 4, math.MaxFloat64 / 4, -math.MaxFloat64 / 4, math.MaxFloat64 / 4}, []float64{math.MaxFloat64 / 4 * math.Sqrt2, math.MaxFloat64 / 4 * math.Sqrt2}},
	} {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/full=%v", tc.name, full), func(t *testing.T) {
				esCheckSVDScaled(t, SVDFloat, tc.a, tc.m, tc.n, full, tc.s)
			})
		}
	}

	t.Run("zero gives identity", func(t *testing.T) {
		_, u, vt, _ := SVDFloat(make([]float64, 12), 3, 4, true, true)
		if !slices.Equal(u, identity(3)) || !slices.Equal(vt, identity(4)) {
			t.Errorf("u = %v, vt = %v, want identities", u, vt)
		}
	})

	// Scaling by a power of two is exact, so it scales the results exactly.
	t.Run("power of two scaling", func(t *testing.T) {
		for _, k := range []int{-1000, -300, 9, 300, 1000} {
			f := math.Ldexp(1, k)
			s, u, vt, ok := SVDFloat(scaled(base, f), 5, 3, true, true)
			if !ok || !slices.Equal(s, scaled(baseS, f)) || !slices.Equal(u, baseU) || !slices.Equal(vt, baseVt) {
				t.Errorf("2^%d: results not scaled exactly", k)
			}
		}
	})

	for _, sh := range [][2]int{{0, 0}, {0, 3}, {3, 0}} {
		m, n := sh[0], sh[1]
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("empty %dx%d full=%v", m, n, full), func(t *testing.T) {
				s, u, vt, ok := SVDFloat(nil, m, n, true, full)
				if !ok || len(s) != 0 {
					t.Fatalf("ok = %v, s = %v", ok, s)
				}
				wantU, wantVt := []float64{}, []float64{}
				if full {
					wantU, wantVt = identity(m), identity(n)
				}
				if !slices.Equal(u, wantU) || !slices.Equal(vt, wantVt) {
					t.Errorf("u = %v, vt = %v, want %v, %v", u, vt, wantU, wantVt)
				}
			})
		}
	}

	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v full=%v", bad, full), func(t *testing.T) {
				m, n := 4, 6
				a := esRandomMatrix(r, m, n)
				a[2*n+5] = bad
				s, u, vt, ok := SVDFloat(a, m, n, true, full)
				ucols, vrows := 4, 4
				if full {
					ucols, vrows = m, n
				}
				if ok || len(s) != 4 || len(u) != m*ucols || len(vt) != vrows*n {
					t.Fatalf("ok = %v, len(s), len(u), len(vt) = %d, %d, %d", ok, len(s), len(u), len(vt))
				}
				for _, x := range slices.Concat(s, u, vt) {
					if !math.IsNaN(x) {
						t.Fatalf("result %v not NaN", x)
					}
				}
				s, u, vt, ok = SVDFloat(a, m, n, false, full)
				if ok || len(s) != 4 || !math.IsNaN(s[0]) || u != nil || vt != nil {
					t.Errorf("uv=false: ok = %v, s = %v", ok, s)
				}
			})
		}
	}
}

// esFuzzMatrix reads a matrix of at most 8×8 from data: the first two bytes give the shape, then the
// entries as esFuzzValues reads them.
func esFuzzMatrix(data []byte) (a []float64, m, n int) {
	if len(data) < 2 {
		return nil, 0, 0
	}
	m, n = int(data[0]%9), int(data[1]%9)
	return esFuzzValues(data[2:], m*n), m, n
}

// esFuzzValues reads count values from data (zeros once it runs out): each is a small multiple of 1/8
// when its leading byte is below 0x80, one of a set of special values (NaN, ±Inf, huge, tiny,
// subnormal) when below 0xa0, and the next 8 bytes' float64 otherwise.
func esFuzzValues(data []byte, count int) []float64 {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 1e-300, -1e-300,
		5e-324, math.MaxFloat64, -math.MaxFloat64, 0, math.Copysign(0, -1), 1e154, 1e-160, 3, -7}
	a := make([]float64, count)
	for i := range a {
		if len(data) == 0 {
			break
		}
		b := data[0]
		data = data[1:]
		switch {
		case b < 0x80:
			a[i] = (float64(b) - 64) / 8
		case b < 0xa0:
			a[i] = special[int(b)%len(special)]
		case len(data) >= 8:
			a[i] = math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
		}
	}
	return a
}

// esPow2Scaled returns x·2^e, element by element (both parts when complex), with math.Ldexp.
func esPow2Scaled[T Scalar](x []T, e int) []T {
	y := make([]T, len(x))
	for i, v := range x {
		y[i] = eighFromParts[T](math.Ldexp(re(v), e), math.Ldexp(im(v), e))
	}
	return y
}

// esAllNaN reports whether every element of x is NaN.
func esAllNaN(x []float64) bool {
	return !slices.ContainsFunc(x, func(v float64) bool { return !math.IsNaN(v) })
}

// esEighFunc is EighFloat's or EighComplex's signature.
type esEighFunc[T Scalar] func(a []T, n int, lower, vectors bool) (w []float64, v []T, ok bool)

// esFuzzCheck checks svd on the m×n a, and eigh on its leading square block from either triangle.
// Non-finite input must give ok = false and NaN results. Otherwise the results must be those of the
// matrix scaled by the power of two 2^−e that brings its largest real or imaginary part into
// [1/2, 1), scaled back by 2^e (the functions document that scaling, so this holds bit for bit, and it
// lets results that over- or underflow be checked), and the scaled problem's results must pass the
// residual, orthonormality, order and sign or phase checks.
func esFuzzCheck[T Scalar](t *testing.T, a []T, m, n int, svd esSVDFunc[T], eigh esEighFunc[T]) {
	exponent := func(x []T) int {
		_, e := math.Frexp(esMaxAbs(eighFloatsOf(x)))
		return e
	}
	for _, full := range []bool{false, true} {
		s, u, vt, ok := svd(a, m, n, true, full)
		if !esAllFinite(eighFloatsOf(a)) {
			if ok || !esAllNaN(slices.Concat(s, eighFloatsOf(u), eighFloatsOf(vt))) {
				t.Fatal("SVD: non-finite input, yet ok or results not NaN")
			}
			continue
		}
		e := exponent(a)
		as := esPow2Scaled(a, -e)
		ss, us, vts, oks := svd(as, m, n, true, full)
		if !ok || !oks {
			t.Fatalf("SVD of %v (%dx%d) failed", a, m, n)
		}
		if !slices.Equal(s, esPow2Scaled(ss, e)) || !slices.Equal(u, us) || !slices.Equal(vt, vts) {
			t.Fatalf("SVD of %v: results are not those of the scaled matrix", a)
		}
		esCheckSVD(t, as, m, n, full, ss, us, vts)
	}

	k := min(m, n)
	sq := make([]T, k*k)
	for i := 0; i < k; i++ {
		copy(sq[i*k:i*k+k], a[i*n:i*n+k])
	}
	for _, lower := range []bool{true, false} {
		w, v, ok := eigh(sq, k, lower, true)
		// The full matrix the named triangle stands for: the other triangle mirrored and
		// conjugated, the diagonal's imaginary parts dropped.
		h := slices.Clone(sq)
		for i := range h {
			r, c := i/k, i%k
			if (lower && c > r) || (!lower && c < r) {
				h[i] = conj(sq[c*k+r])
			} else if r == c {
				h[i] = fromReal[T](re(h[i]))
			}
		}
		if !esAllFinite(eighFloatsOf(h)) {
			if ok || !esAllNaN(slices.Concat(w, eighFloatsOf(v))) {
				t.Fatal("Eigh: non-finite input, yet ok or results not NaN")
			}
			continue
		}
		e := exponent(h)
		hs := esPow2Scaled(h, -e)
		ws, vs, oks := eigh(hs, k, true, true)
		if !ok || !oks {
			t.Fatalf("Eigh of %v (n=%d) failed", h, k)
		}
		if !slices.Equal(w, esPow2Scaled(ws, e)) || !slices.Equal(v, vs) {
			t.Fatalf("Eigh of %v: results are not those of the scaled matrix", h)
		}
		esCheckEigh(t, hs, k, ws, vs)
	}
}

// FuzzEighSVD checks SVDFloat on matrices of up to 8×8 read from the fuzz data, and EighFloat on
// their leading square blocks (esFuzzCheck).
func FuzzEighSVD(f *testing.F) {
	f.Add([]byte{2, 2, 10, 20, 30, 40})
	f.Add([]byte{3, 3, 0x80, 0x81, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89})
	f.Add([]byte{8, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x8c, 0x8d, 0x8e, 0x8f, 100, 90})
	f.Add([]byte{4, 4, 0x8b, 0x8b, 0x8b, 0x8b, 0x8d, 0x8d, 0x8d, 0x8d, 0x8b, 0x8b, 0x8b, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, m, n := esFuzzMatrix(data)
		esFuzzCheck(t, a, m, n, SVDFloat, EighFloat)
	})
}

func BenchmarkSVDFloat(b *testing.B) {
	const n = 256
	a := esRandomMatrix(rand.New(rand.NewPCG(13, 14)), n, n)
	for b.Loop() {
		SVDFloat(a, n, n, true, false)
	}
}
