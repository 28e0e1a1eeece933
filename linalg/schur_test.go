package linalg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// Tolerances. A Householder reduction followed by a QR iteration whose steps are orthogonal
// transformations computes z and t with ‖a - z·t·zᵀ‖ and ‖zᵀz - I‖ of order c·n·ε·‖a‖ for a modest c
// (Golub and Van Loan, Matrix Computations, §7.5.6); ε = 2⁻⁵² ≈ 2.2e-16. The bounds below use c = 10 for the
// Schur residual and orthogonality, which the seeded matrices meet with a margin of a few (the largest
// ratio seen is printed by -v). Eigenvector residuals ‖a·v - λ·v‖ of back-substitution on t are of the same
// order (the pivot guard perturbs t by at most ε·max|t|).
const (
	schurTC = 10.0 // the c in c·n·ε
	schurTE = 0x1p-52
)

// schurTFrob is the Frobenius norm of x (the Euclidean norm of a vector), scaled against overflow.
func schurTFrob[T Scalar](x []T) float64 {
	m := schurMaxPart(x)
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for _, v := range x {
		a, b := re(v)/m, im(v)/m
		s += a*a + b*b
	}
	return m * math.Sqrt(s)
}

// schurTConjTranspose is the conjugate transpose of the n×n x (the transpose of a real one).
func schurTConjTranspose[T Scalar](x []T, n int) []T {
	y := transposeOf(x, n, n)
	for i := range y {
		y[i] = conj(y[i])
	}
	return y
}

// schurTResidual is ‖a - z·t·zᴴ‖_F and ‖zᴴz - I‖_F.
func schurTResidual[T Scalar](a, t, z []T, n int) (res, orth float64) {
	zh := schurTConjTranspose(z, n)
	r := matMul(matMul(z, t, n, n, n), zh, n, n, n)
	for i := range r {
		r[i] = a[i] - r[i]
	}
	q := matMul(zh, z, n, n, n)
	for i := 0; i < n; i++ {
		q[i*n+i]--
	}
	return schurTFrob(r), schurTFrob(q)
}

// schurTScale returns a and t times 2⁻ᵉ, where the largest part of an entry of a is in [2ᵉ⁻¹, 2ᵉ) (e = 0
// for a zero a).
func schurTScale[T Scalar](a, t []T) (as, ts []T, e int) {
	if amax := schurMaxPart(a); amax > 0 {
		_, e = math.Frexp(amax)
	}
	as, ts = make([]T, len(a)), make([]T, len(t))
	for i := range a {
		as[i] = schurLdexp(a[i], -e)
	}
	for i := range t {
		ts[i] = schurLdexp(t[i], -e)
	}
	return as, ts, e
}

// schurTStructure reports what is wrong with t's shape (or "" when nothing): zeros below the subdiagonal,
// no two adjacent nonzero subdiagonal entries, each 2×2 block standard, and wr, wi read off t.
func schurTStructure(t, wr, wi []float64, n int) string {
	for i := 0; i < n; i++ {
		for j := 0; j+1 < i; j++ {
			if t[i*n+j] != 0 {
				return "nonzero below the subdiagonal"
			}
		}
	}
	for i := 0; i < n; i++ {
		if i+1 < n && t[(i+1)*n+i] != 0 {
			if i+2 < n && t[(i+2)*n+i+1] != 0 {
				return "two adjacent nonzero subdiagonal entries"
			}
			b, c := t[i*n+i+1], t[(i+1)*n+i]
			if t[i*n+i] != t[(i+1)*n+i+1] || b == 0 || (b > 0) == (c > 0) {
				return "2×2 block not in standard form"
			}
			w := math.Sqrt(math.Abs(b)) * math.Sqrt(math.Abs(c))
			if wr[i] != t[i*n+i] || wr[i+1] != t[i*n+i] || wi[i] <= 0 || wi[i+1] != -wi[i] ||
				math.Abs(wi[i]-w) > 4*schurTE*w {
				return "wr, wi do not match a 2×2 block"
			}
			i++
			continue
		}
		if wr[i] != t[i*n+i] || wi[i] != 0 {
			return "wr, wi do not match a 1×1 block"
		}
	}
	return ""
}

// schurTVectorCheck checks the eigenvectors of a for the eigenvalues lam: residual ‖a·v - λ·v‖ (right) or
// ‖uᴴ·a - λ·uᴴ‖ (left) within tol·‖a‖_F, norm 1, a component of largest magnitude real and positive, and
// for a real a (realInput) real vectors for real λ and conjugate vectors for a conjugate pair. It returns the
// largest residual relative to ‖a‖_F.
func schurTVectorCheck(t *testing.T, a []complex128, n int, lam, v []complex128, left, realInput bool, tol float64) float64 {
	t.Helper()
	anorm := schurTFrob(a)
	worst := 0.0
	col := make([]complex128, n)
	r := make([]complex128, n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			col[i] = v[i*n+j]
		}
		for i := 0; i < n; i++ {
			var s complex128
			for k := 0; k < n; k++ {
				if left {
					s += cmplx.Conj(col[k]) * a[k*n+i] // (uᴴa)_i
				} else {
					s += a[i*n+k] * col[k]
				}
			}
			if left {
				r[i] = s - lam[j]*cmplx.Conj(col[i])
			} else {
				r[i] = s - lam[j]*col[i]
			}
		}
		res := schurTFrob(r)
		if anorm > 0 {
			worst = max(worst, res/anorm)
		}
		if res > tol*anorm {
			t.Errorf("left=%v vector %d (λ = %v): residual %.3g > %.3g·‖a‖ = %.3g", left, j, lam[j], res, tol, tol*anorm)
		}
		if d := math.Abs(schurTFrob(col) - 1); d > 4*float64(n)*schurTE {
			t.Errorf("left=%v vector %d: |‖v‖ - 1| = %.3g", left, j, d)
		}
		big := 0.0
		for _, c := range col {
			big = max(big, cmplx.Abs(c))
		}
		// The largest up to the 2⁻⁵⁰ = 4ε of schurNormalize's ties and the roundings of the normalisation.
		found := false
		for _, c := range col {
			if imag(c) == 0 && real(c) > 0 && real(c) >= big*(1-8*schurTE) {
				found = true
			}
		}
		if !found {
			t.Errorf("left=%v vector %d: no component of largest magnitude is real and positive: %v", left, j, col)
		}
		if !realInput {
			continue
		}
		if imag(lam[j]) == 0 {
			for _, c := range col {
				if imag(c) != 0 {
					t.Errorf("left=%v vector %d of real λ has a complex component", left, j)
					break
				}
			}
		} else if imag(lam[j]) < 0 {
			for i := 0; i < n; i++ {
				if col[i] != cmplx.Conj(v[i*n+j-1]) {
					t.Errorf("left=%v vector %d is not the conjugate of vector %d", left, j, j-1)
					break
				}
			}
		}
	}
	return worst
}

// schurTPairs returns the eigenvalues wr + i·wi, scaled by 2⁻ᵉ.
func schurTPairs(wr, wi []float64, e int) []complex128 {
	lam := make([]complex128, len(wr))
	for i := range wr {
		lam[i] = complex(math.Ldexp(wr[i], -e), math.Ldexp(wi[i], -e))
	}
	return lam
}

// schurTCheck runs SchurFloat (with and without vectors) and EigFloat (both vectors) on a and checks
// everything that holds for any input: residuals within tolerance, structure, agreement of the calls bit
// for bit; c is the constant in the bounds c·n·ε·‖a‖. It returns the worst residual ratios relative to
// n·ε·‖a‖ (Schur, orthogonality, vectors).
func schurTCheck(t *testing.T, a []float64, n int, checkVectors bool, c float64) (worst [3]float64) {
	t.Helper()
	a0 := append([]float64(nil), a...)
	tt, z, wr, wi, ok := SchurFloat(a, n, true)
	if !ok {
		t.Fatalf("SchurFloat: not ok")
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(a0[i]) {
			t.Fatalf("SchurFloat modified a")
		}
	}
	as, e, tol, ratios := schurTBounds(t, a, tt, z, n, c)
	worst[0], worst[1] = ratios[0], ratios[1]
	if msg := schurTStructure(tt, wr, wi, n); msg != "" {
		t.Errorf("t: %s\nt = %v", msg, tt)
	}
	t2, z2, wr2, wi2, ok2 := SchurFloat(a, n, false)
	if !ok2 || z2 != nil || !schurTSameBits(t2, tt) || !schurTSameBits(wr2, wr) || !schurTSameBits(wi2, wi) {
		t.Errorf("vectors=false: ok %v, z nil %v, or t, wr, wi differ from vectors=true", ok2, z2 == nil)
	}
	if !checkVectors {
		return worst
	}
	ewr, ewi, vl, vr, ok3 := EigFloat(a, n, true, true)
	if !ok3 || !schurTSameBits(ewr, wr) || !schurTSameBits(ewi, wi) {
		t.Fatalf("EigFloat: ok %v, or eigenvalues differ from SchurFloat's", ok3)
	}
	ac, lam := schurToComplex(as), schurTPairs(wr, wi, e)
	w1 := schurTVectorCheck(t, ac, n, lam, vr, false, true, tol)
	w2 := schurTVectorCheck(t, ac, n, lam, vl, true, true, tol)
	worst[2] = max(w1, w2) / (float64(max(n, 1)) * schurTE)
	_, _, vl2, vr2, _ := EigFloat(a, n, false, true)
	_, _, vl3, vr3, _ := EigFloat(a, n, true, false)
	if vl2 != nil || vr3 != nil || !schurTSameBits(vr2, vr) || !schurTSameBits(vl3, vl) {
		t.Errorf("EigFloat with one side only: nil where not asked, else the same vectors bit for bit")
	}
	return worst
}

// schurTBounds checks ‖a - z·t·zᴴ‖_F ≤ c·n·ε·‖a‖_F + floor and ‖zᴴz - I‖_F ≤ c·n·ε for the Schur form t, z of
// a. The checks run on a and t scaled by the same power of two, 2⁻ᵉ with the largest part of an entry of a
// in [2ᵉ⁻¹, 2ᵉ), so that they cannot overflow or underflow themselves. An entry of t below the normal range
// carries an absolute error up to 2⁻¹⁰⁷⁴ from its rounding, and so does an entry of a far below the
// largest once scaled: floor = n·(2⁻¹⁰⁷⁴⁻ᵉ + 2⁻¹⁰⁷⁴). It returns the scaled a, e, the tolerance relative to
// ‖a‖_F for eigenvector residuals (c·n·ε + floor/‖a‖_F), and the Schur and unitarity residuals relative to
// n·ε·‖a‖_F and n·ε.
func schurTBounds[T Scalar](t *testing.T, a, tt, z []T, n int, c float64) (as []T, e int, tol float64, ratios [2]float64) {
	t.Helper()
	as, ts, e := schurTScale(a, tt)
	anorm := schurTFrob(as)
	unit := float64(max(n, 1)) * schurTE
	floor := float64(n) * (math.Ldexp(1, -1074-e) + 0x1p-1074)
	res, orth := schurTResidual(as, ts, z, n)
	if res > c*unit*anorm+floor {
		t.Errorf("‖a - z·t·zᴴ‖ = %.3g > %g·n·ε·‖a‖ = %.3g for a = %v", res, c, c*unit*anorm+floor, a)
	}
	if orth > c*unit {
		t.Errorf("‖zᴴz - I‖ = %.3g > %g·n·ε = %.3g", orth, c, c*unit)
	}
	if anorm > 0 {
		ratios[0] = res / (unit * anorm)
	}
	ratios[1] = orth / unit
	return as, e, c*unit + floor/max(anorm, 0x1p-1022), ratios
}

// schurTOverflowed reports whether t holds an infinity or a NaN, failing unless the largest part of an
// entry of a, amax, is within a factor 16 of the largest float64 (where t can overflow, as documented).
func schurTOverflowed[T Scalar](t *testing.T, tt []T, amax float64) bool {
	t.Helper()
	if m := schurMaxPart(tt); !math.IsInf(m, 0) && !math.IsNaN(m) {
		return false
	}
	if amax < math.MaxFloat64/16 {
		t.Fatalf("t = %v for a largest part %g", tt, amax)
	}
	return true
}

// schurTSameBits reports whether x and y hold the same numbers bit for bit (both parts of complex ones).
func schurTSameBits[T Scalar](x, y []T) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(re(x[i])) != math.Float64bits(re(y[i])) ||
			math.Float64bits(im(x[i])) != math.Float64bits(im(y[i])) {
			return false
		}
	}
	return true
}

// schurTMatch pairs each wanted eigenvalue with the nearest unused computed one and returns the largest
// distance.
func schurTMatch(wr, wi []float64, want []complex128) float64 {
	used := make([]bool, len(wr))
	worst := 0.0
	for _, w := range want {
		best, bi := math.Inf(1), -1
		for i := range wr {
			if d := cmplx.Abs(complex(wr[i], wi[i]) - w); !used[i] && d < best {
				best, bi = d, i
			}
		}
		if bi < 0 {
			return math.Inf(1)
		}
		used[bi] = true
		worst = max(worst, best)
	}
	return worst
}

func schurTRandom(r *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	return a
}

// TestSchurKnownAnswers checks eigenvalues known in closed form, and the Schur form itself where the input
// already is one.
func TestSchurKnownAnswers(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	// Q = I - 2·q·qᵀ/‖q‖², q = (1, 2, 0, -1, 1): an exact orthogonal similarity for the block diagonal case.
	q := []float64{1, 2, 0, -1, 1}
	house := make([]float64, 25)
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			house[i*5+j] = -2 * q[i] * q[j] / 7
		}
		house[i*5+i]++
	}
	block := []float64{
		1, 2, 0, 0, 0,
		-3, 1, 0, 0, 0,
		0, 0, 5, 0, 0,
		0, 0, 0, 2, 1,
		0, 0, 0, 1, 2,
	}
	blockWant := []complex128{complex(1, math.Sqrt(6)), complex(1, -math.Sqrt(6)), 5, 1, 3}
	cases := []struct {
		name string
		a    []float64
		n    int
		want []complex128
		tol  float64 // on the eigenvalues, absolute
		// exact: the input is already in Schur form, so t = a and z = I bit for bit.
		exact bool
	}{
		// An upper triangular matrix's eigenvalues are its diagonal; it is its own Schur form.
		{"upper triangular", []float64{4, 1, -2, 3, 0, -1, 5, 2, 0, 0, 2.5, 7, 0, 0, 0, -3}, 4,
			[]complex128{4, -1, 2.5, -3}, 0, true},
		// [[a, b], [-b, a]] has eigenvalues a ± b·i (characteristic polynomial (λ-a)² + b²) and is in
		// standard form already.
		{"rotation-like", []float64{0.5, 2, -2, 0.5}, 2, []complex128{complex(0.5, 2), complex(0.5, -2)}, 0, true},
		// The companion matrix of p(x) = (x-1)(x-2)(x-3)(x²+1) = x⁵ - 6x⁴ + 12x³ - 12x² + 11x - 6 (first row
		// the negated coefficients, ones below the diagonal) has p's roots as eigenvalues. The roots are
		// simple, with condition numbers of order 10², hence the tolerance of 10²·n·ε·‖a‖.
		{"companion", []float64{
			6, -12, 12, -11, 6,
			1, 0, 0, 0, 0,
			0, 1, 0, 0, 0,
			0, 0, 1, 0, 0,
			0, 0, 0, 1, 0,
		}, 5, []complex128{1, 2, 3, 1i, -1i}, 1e-11, false},
		// Block diagonal: the eigenvalues of [[1, 2], [-3, 1]] are 1 ± √6·i, of [5] 5, of [[2, 1], [1, 2]] 1
		// and 3.
		{"block diagonal", block, 5, blockWant, 1e-14, false},
		// The same blocks under the orthogonal similarity Q·B·Qᵀ, Q a reflection: same eigenvalues.
		{"block diagonal rotated", matMul(matMul(house, block, 5, 5, 5), house, 5, 5, 5), 5, blockWant, 1e-13, false},
		// The cyclic permutation has characteristic polynomial λ³ - 1: the cube roots of unity.
		{"cube roots of unity", []float64{0, 1, 0, 0, 0, 1, 1, 0, 0}, 3,
			[]complex128{1, complex(-0.5, s3), complex(-0.5, -s3)}, 1e-15, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schurTCheck(t, c.a, c.n, true, schurTC)
			tt, z, wr, wi, _ := SchurFloat(c.a, c.n, true)
			if d := schurTMatch(wr, wi, c.want); d > c.tol {
				t.Errorf("eigenvalues %v + i·%v, want %v: distance %.3g > %.3g", wr, wi, c.want, d, c.tol)
			}
			if c.exact {
				schurTUnchanged(t, c.a, tt, z, c.n)
			}
		})
	}
}

// schurTUnchanged checks that the Schur form of a matrix already in Schur form is t = a, z = I, bit for bit.
func schurTUnchanged[T Scalar](t *testing.T, a, tt, z []T, n int) {
	t.Helper()
	if !schurTSameBits(tt, a) || !schurTSameBits(z, schurTIdentity[T](n)) {
		t.Errorf("t = %v, z = %v, want a and I exactly", tt, z)
	}
}

// schurTRandomSizes runs check on three seeded random matrices (made by random from r and n) of each size
// 1..30 and 80, and logs the largest ratios it returns to n·ε·‖a‖ (Schur, orthogonality, eigenvectors).
func schurTRandomSizes[T Scalar](t *testing.T, r *rand.Rand, random func(r *rand.Rand, n int) []T,
	check func(t *testing.T, a []T, n int) [3]float64) {
	sizes := []int{}
	for n := 1; n <= 30; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 80)
	var worst [3]float64
	for _, n := range sizes {
		for rep := 0; rep < 3; rep++ {
			a := random(r, n)
			t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
				w := check(t, a, n)
				for i := range w {
					worst[i] = max(worst[i], w[i])
				}
			})
		}
	}
	t.Logf("largest ratios to n·ε·‖a‖: Schur %.2f, orthogonality %.2f, eigenvectors %.2f", worst[0], worst[1], worst[2])
}

// TestSchurRandom checks the properties on seeded random matrices of sizes 1..30 and 80, entries standard
// normal (so about half the eigenvalues come in complex pairs).
func TestSchurRandom(t *testing.T) {
	schurTRandomSizes(t, rand.New(rand.NewPCG(1, 2)), schurTRandom, func(t *testing.T, a []float64, n int) [3]float64 {
		return schurTCheck(t, a, n, true, schurTC)
	})
}

// TestSchurPowerOfTwoScaling: scaling a by 2ᵏ scales t and the eigenvalues by 2ᵏ and leaves z and the
// eigenvectors alone, bit for bit, since the input is first scaled by a power of two anyway; even at
// 2±¹⁰⁰⁰, where the entries are near the ends of the float64 range.
func TestSchurPowerOfTwoScaling(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 12} {
		a := schurTRandom(r, n)
		t0, z0, wr0, wi0, _ := SchurFloat(a, n, true)
		_, _, _, vr0, _ := EigFloat(a, n, false, true)
		for _, k := range []int{-1000, -3, 7, 1000} {
			s := make([]float64, len(a))
			for i, v := range a {
				s[i] = math.Ldexp(v, k)
			}
			tk, zk, wrk, wik, ok := SchurFloat(s, n, true)
			_, _, _, vrk, _ := EigFloat(s, n, false, true)
			if !ok || !schurTSameBits(zk, z0) || !schurTSameBits(vrk, vr0) {
				t.Fatalf("n=%d k=%d: ok %v, or z or the eigenvectors changed", n, k, ok)
			}
			for i := range tk {
				if tk[i] != math.Ldexp(t0[i], k) {
					t.Fatalf("n=%d k=%d: t[%d] = %g, want %g", n, k, i, tk[i], math.Ldexp(t0[i], k))
				}
			}
			for i := range wrk {
				if wrk[i] != math.Ldexp(wr0[i], k) || math.Abs(wik[i]-math.Ldexp(wi0[i], k)) > 2*schurTE*math.Abs(wik[i]) {
					t.Fatalf("n=%d k=%d: eigenvalue %d = %g+%gi, want 2^k·(%g+%gi)", n, k, i, wrk[i], wik[i], wr0[i], wi0[i])
				}
			}
		}
	}
}

// schurTIdentity is the n×n identity matrix.
func schurTIdentity[T Scalar](n int) []T {
	a := make([]T, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = 1
	}
	return a
}

// schurTTimes multiplies the entries of a by f in place and returns a.
func schurTTimes[T Scalar](a []T, f float64) []T {
	for i := range a {
		a[i] *= fromReal[T](f)
	}
	return a
}

// schurTJordan is the n×n Jordan block of eigenvalue lam (ones above the diagonal).
func schurTJordan[T Scalar](n int, lam T) []T {
	a := make([]T, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = lam
		if i+1 < n {
			a[i*n+i+1] = 1
		}
	}
	return a
}

// schurTCyclic is the n×n cyclic permutation matrix with its ones multiplied by phase: its eigenvalues are
// phase times the n-th roots of unity, all as far from the shift the trailing 2×2 block gives (0).
func schurTCyclic[T Scalar](n int, phase T) []T {
	a := make([]T, n*n)
	for i := 0; i < n; i++ {
		a[((i+1)%n)*n+i] = phase
	}
	return a
}

// schurTCase is a named n×n test matrix.
type schurTCase[T Scalar] struct {
	name string
	a    []T
	n    int
}

// TestSchurHard covers the special and the difficult: zero, identity, defective, graded and extreme
// magnitudes, and the matrices on which an iteration with standard shifts only cycles forever.
func TestSchurHard(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	jordan := schurTJordan[float64]
	cyclic := func(n int) []float64 { return schurTCyclic(n, 1.0) }
	scaled := func(n int, f float64) []float64 { return schurTTimes(schurTRandom(r, n), f) }
	id := schurTIdentity[float64](6)
	// Graded: entries 10^(-(i+j)), eigenvalues spread over many orders of magnitude.
	graded := make([]float64, 64)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			graded[i*8+j] = math.Pow(10, -float64(i+j)) * float64(1+(i*3+j*5)%7)
		}
	}
	cases := []schurTCase[float64]{
		{"zero", make([]float64, 49), 7},
		{"identity", id, 6},
		// Defective: a single eigenvalue with one eigenvector; the vectors' residuals hold all the same.
		{"jordan 6", jordan(6, 2), 6},
		{"jordan 30", jordan(30, -1), 30},
		{"jordan 12 transposed", transposeOf(jordan(12, 0.5), 12, 12), 12},
		{"nilpotent jordan 20", jordan(20, 0), 20},
		// Cyclic permutations: standard shifts alone leave them unchanged (all eigenvalues on the unit
		// circle, equally far from any shift pair the trailing 2×2 block gives).
		{"cyclic 3", cyclic(3), 3},
		{"cyclic 4", cyclic(4), 4},
		{"cyclic 7", cyclic(7), 7},
		{"cyclic 16", cyclic(16), 16},
		// Ferguson's companion matrices of (x²-2)², (x+1)⁴ and (x+2)⁴, slow for EISPACK's hqr (Moler's reply,
		// NA Digest, Dec 1989): multiple, defective eigenvalues.
		{"companion (x²-2)²", []float64{0, 0, 0, -4, 1, 0, 0, 0, 0, 1, 0, 4, 0, 0, 1, 0}, 4},
		{"companion (x+1)⁴", []float64{0, 0, 0, -1, 1, 0, 0, -4, 0, 1, 0, -6, 0, 0, 1, -4}, 4},
		{"companion (x+2)⁴", []float64{0, 0, 0, -16, 1, 0, 0, -32, 0, 1, 0, -24, 0, 0, 1, -8}, 4},
		// Day's matrix (How the shifted QR algorithm fails to converge and how to fix it, 1996), which made
		// LAPACK 3.0's dlahqr fail: unbalanced, two conjugate pairs ±212 ± 6e5·i of equal modulus.
		{"Day's example", []float64{0, 90, 0, 300, -4e9, 0, -300, 0, 0, -300, 0, 4e9, 0, 0, -90, 0}, 4},
		{"graded", graded, 8},
		{"entries ~1e300", scaled(9, 1e300), 9},
		{"entries ~1e-300", scaled(9, 1e-300), 9},
		{"entries ~1e-310 (subnormal)", scaled(5, 1e-310), 5},
		{"1×1", []float64{-7.5}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schurTCheck(t, c.a, c.n, true, schurTC)
		})
	}
	// Day's matrix with its three magnitudes varied: the iteration on these converges slowly (a random
	// walk between the two pairs until one wins), but within the limit. With hundreds of iterations on a
	// 4×4 rather than a few, the rounding errors of the rotations add up to more, hence c = 40: errors
	// of independent sign grow like the square root of the count, √(300/3) = 10 times those of a few
	// iterations, and 4 is the margin kept for the random matrices.
	t.Run("Day's family", func(t *testing.T) {
		dr := rand.New(rand.NewPCG(11, 12))
		for k := 0; k < 50; k++ {
			a := 90 * math.Exp(dr.NormFloat64()*2)
			b := 300 * math.Exp(dr.NormFloat64()*2)
			c := 4e9 * math.Exp(dr.NormFloat64()*3)
			schurTCheck(t, []float64{0, a, 0, b, -c, 0, -b, 0, 0, -b, 0, c, 0, 0, -a, 0}, 4, true, 40)
		}
	})
	t.Run("zero exact", func(t *testing.T) {
		tt, z, wr, wi, ok := SchurFloat(make([]float64, 9), 3, true)
		want := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
		if !ok || !schurTSameBits(tt, make([]float64, 9)) || !schurTSameBits(z, want) ||
			!schurTSameBits(wr, make([]float64, 3)) || !schurTSameBits(wi, make([]float64, 3)) {
			t.Errorf("zero matrix: t %v z %v wr %v wi %v ok %v", tt, z, wr, wi, ok)
		}
	})
	t.Run("empty", func(t *testing.T) {
		tt, z, wr, wi, ok := SchurFloat(nil, 0, true)
		ewr, ewi, vl, vr, eok := EigFloat([]float64{}, 0, true, true)
		if !ok || !eok || len(tt)+len(z)+len(wr)+len(wi)+len(ewr)+len(ewi)+len(vl)+len(vr) != 0 || z == nil || vl == nil {
			t.Errorf("n = 0: want empty results and ok")
		}
	})
}

// TestSchurNonFinite: NaN or an infinity anywhere gives ok = false and NaN everywhere, z nil when not
// asked for.
func TestSchurNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, pos := range []int{0, 7, 15} {
			a := schurTRandom(rand.New(rand.NewPCG(7, uint64(pos))), 4)
			a[pos] = bad
			tt, z, wr, wi, ok := SchurFloat(a, 4, true)
			_, zn, _, _, okn := SchurFloat(a, 4, false)
			ewr, ewi, vl, vr, eok := EigFloat(a, 4, true, true)
			_, _, vln, _, _ := EigFloat(a, 4, false, true)
			if ok || okn || eok || zn != nil || vln != nil {
				t.Fatalf("%v at %d: ok %v %v %v, z nil %v, vl nil %v", bad, pos, ok, okn, eok, zn == nil, vln == nil)
			}
			for _, x := range [][]float64{tt, z, wr, wi, ewr, ewi} {
				if !schurTAllNaN(x) {
					t.Fatalf("%v at %d: a result is not NaN", bad, pos)
				}
			}
			if len(vl) != 16 || len(vr) != 16 || !schurTAllNaN(vl) || !schurTAllNaN(vr) {
				t.Fatalf("%v at %d: vectors of length %d, %d, or an entry not NaN", bad, pos, len(vl), len(vr))
			}
		}
	}
}

// schurTAllNaN reports whether every entry of x is NaN (both parts of a complex one).
func schurTAllNaN[T Scalar](x []T) bool {
	var zero T
	_, isComplex := any(zero).(complex128)
	for _, v := range x {
		if !math.IsNaN(re(v)) || isComplex && !math.IsNaN(im(v)) {
			return false
		}
	}
	return true
}

// TestSchurBadShape: a length that is not n·n panics with a message, real or complex.
func TestSchurBadShape(t *testing.T) {
	for _, f := range []func(){
		func() { SchurFloat(make([]float64, 5), 2, true) },
		func() { EigFloat(make([]float64, 4), -2, true, true) },
		func() { SchurComplex(make([]complex128, 5), 2, true) },
		func() { EigComplex(make([]complex128, 4), -2, true, true) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		}()
	}
}

// TestEigFloatHandComputed checks the vectors of a 2×2 matrix against ones computed by hand. For
// a = [[2, 1], [1, 2]] (eigenvalues 1 and 3) the right and left eigenvectors are (1, -1)/√2 and (1, 1)/√2,
// with a positive largest component: the first one of the two equal magnitudes is made positive. For
// [[0, -1], [1, 0]] (eigenvalues ±i), v = (1, -i)/√2 for i (a·v = (i, 1)/√2 = i·v), and the left vector
// is the same, as for any normal matrix: uᴴ = (1, i)/√2 and uᴴa = (i, -1)/√2 = i·uᴴ.
func TestEigFloatHandComputed(t *testing.T) {
	h := 1 / math.Sqrt2
	cases := []struct {
		name   string
		a      []float64
		wr, wi []float64
		vr, vl []complex128 // columns are the vectors
	}{
		{"symmetric", []float64{2, 1, 1, 2}, nil, nil, nil, nil},
		{"rotation", []float64{0, -1, 1, 0}, []float64{0, 0}, []float64{1, -1},
			[]complex128{complex(h, 0), complex(h, 0), complex(0, -h), complex(0, h)},
			[]complex128{complex(h, 0), complex(h, 0), complex(0, -h), complex(0, h)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wr, wi, vl, vr, ok := EigFloat(c.a, 2, true, true)
			if !ok {
				t.Fatal("not ok")
			}
			if c.wr == nil {
				// Order as the iteration gives it; check each vector against its eigenvalue.
				for j := 0; j < 2; j++ {
					var want []complex128
					switch {
					case math.Abs(wr[j]-1) < 1e-15:
						want = []complex128{complex(h, 0), complex(-h, 0)}
					case math.Abs(wr[j]-3) < 4e-15:
						want = []complex128{complex(h, 0), complex(h, 0)}
					default:
						t.Fatalf("eigenvalue %g, want 1 or 3", wr[j])
					}
					for i := 0; i < 2; i++ {
						if cmplx.Abs(vr[i*2+j]-want[i]) > 4*schurTE || cmplx.Abs(vl[i*2+j]-want[i]) > 4*schurTE {
							t.Errorf("vectors for %g: right (%v, %v), left (%v, %v), want %v", wr[j],
								vr[j], vr[2+j], vl[j], vl[2+j], want)
						}
					}
				}
				return
			}
			if !schurTSameBits(wr, c.wr) || !schurTSameBits(wi, c.wi) {
				t.Errorf("eigenvalues %v + i·%v, want %v + i·%v", wr, wi, c.wr, c.wi)
			}
			for i := range vr {
				if cmplx.Abs(vr[i]-c.vr[i]) > 4*schurTE || cmplx.Abs(vl[i]-c.vl[i]) > 4*schurTE {
					t.Errorf("vr %v, want %v; vl %v, want %v", vr, c.vr, vl, c.vl)
					break
				}
			}
		})
	}
}

// schurTFuzzMatrix builds an n×n matrix (n ≤ 6) from fuzz bytes: n from the first byte, the entries by
// schurTFuzzValues.
func schurTFuzzMatrix(data []byte) ([]float64, int) {
	if len(data) == 0 {
		return nil, 0
	}
	n := int(data[0]) % 7
	return schurTFuzzValues(data[1:], n*n), n
}

// schurTFuzzValues returns k numbers from fuzz bytes: each takes a selector byte, then either a small
// integer or a whole float64 from the next 8 bytes (NaN, ±Inf, huge, subnormal included); zeros when the
// bytes run out.
func schurTFuzzValues(data []byte, k int) []float64 {
	a := make([]float64, k)
	for i := range a {
		if len(data) == 0 {
			break
		}
		sel := data[0]
		data = data[1:]
		switch {
		case sel < 160:
			a[i] = float64(int(sel%32) - 16)
		case sel < 224 || len(data) < 8:
			a[i] = float64(int(sel)-192) * math.Ldexp(1, int(sel%16)*64-512)
		default:
			a[i] = math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
		}
	}
	return a
}

// FuzzSchur: on any matrix of size up to 6, SchurFloat and EigFloat return; when ok, the Schur residual
// and orthogonality bounds hold relative to the largest |entry| (scaled by a power of two so that the
// check itself cannot overflow), t has the right structure, and the eigenvector residuals hold.
func FuzzSchur(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{4, 16, 16, 17, 16, 16, 16, 16, 17, 17, 16, 16, 16, 16, 17, 16, 16})
	nan := make([]byte, 9)
	nan[0] = 255
	binary.LittleEndian.PutUint64(nan[1:], math.Float64bits(math.NaN()))
	f.Add(append([]byte{2}, nan...))
	huge := []byte{3}
	for i := 0; i < 9; i++ {
		huge = append(huge, 255)
		huge = binary.LittleEndian.AppendUint64(huge, math.Float64bits(float64(i%3-1)*math.MaxFloat64/float64(i+1)))
	}
	f.Add(huge)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, n := schurTFuzzMatrix(data)
		tt, z, wr, wi, ok := SchurFloat(a, n, true)
		ewr, ewi, vl, vr, eok := EigFloat(a, n, true, true)
		finite := true
		amax := 0.0
		for _, v := range a {
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
			amax = max(amax, math.Abs(v))
		}
		if !finite {
			if ok || eok {
				t.Fatalf("ok with non-finite input")
			}
			return
		}
		if ok != eok || !schurTSameBits(wr, ewr) || !schurTSameBits(wi, ewi) {
			t.Fatalf("SchurFloat and EigFloat disagree")
		}
		if !ok {
			// Not converging within the limit is allowed but reported, so that the fuzzer shows it.
			t.Fatalf("no convergence on finite input %v", a)
		}
		if amax == 0 {
			return
		}
		if schurTOverflowed(t, tt, amax) {
			return
		}
		// c = 40 as for Day's family: a matrix the fuzzer finds may take hundreds of iterations.
		as, e, tol, _ := schurTBounds(t, a, tt, z, n, 40)
		if msg := schurTStructure(tt, wr, wi, n); msg != "" {
			// Unscaling by a large negative power of two can turn a block's tiny c to zero (the pair
			// then reads as real); everything else must hold.
			if e > -1000 {
				t.Fatalf("t: %s: %v", msg, tt)
			}
		}
		if e > -1000 && e < 1000 {
			ac, lam := schurToComplex(as), schurTPairs(wr, wi, e)
			schurTVectorCheck(t, ac, n, lam, vr, false, true, tol)
			schurTVectorCheck(t, ac, n, lam, vl, true, true, tol)
		}
	})
}

// BenchmarkSchurFloat times the Schur decomposition with vectors of a random 128×128 matrix.
func BenchmarkSchurFloat(b *testing.B) {
	a := schurTRandom(rand.New(rand.NewPCG(9, 9)), 128)
	for b.Loop() {
		SchurFloat(a, 128, true)
	}
}

// BenchmarkEigFloat times the eigenvalues and right eigenvectors of a random 128×128 matrix.
func BenchmarkEigFloat(b *testing.B) {
	a := schurTRandom(rand.New(rand.NewPCG(9, 9)), 128)
	for b.Loop() {
		EigFloat(a, 128, false, true)
	}
}
