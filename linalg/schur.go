package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
)

// schurUlp is the spacing of float64 numbers at 1, the relative accuracy the deflation test asks for.
const schurUlp = 0x1p-52

// schurVecLimit is the magnitude past which the back-substitution for an eigenvector rescales the
// components it has so far, so that later divisions by small pivots cannot overflow.
const schurVecLimit = 0x1p300

// SchurFloat returns the real Schur decomposition a = z · t · zᵀ of the n×n real matrix a (row-major, not
// modified), as LAPACK's dgees computes it with jobvs = 'V' (or 'N' when vectors is false) and no sorting:
// t is upper quasi-triangular, everything below its first subdiagonal exactly zero; each 2×2 diagonal block
// belongs to a complex-conjugate pair of eigenvalues and is in the standard form LAPACK uses (equal
// diagonal entries, off-diagonal entries of opposite signs, so that the pair is
// t[i,i] ± sqrt(-t[i,i+1]·t[i+1,i]) i); a pair of real eigenvalues never shares a block. z is orthogonal,
// nil when vectors is false. wr and wi are the eigenvalues in the order of t's diagonal, a conjugate pair
// adjacent with the positive imaginary part first; they are computed from the returned t, so wr[i] is
// t[i,i] bit for bit.
//
// The method: the matrix is scaled by a power of two that brings its largest magnitude into [0.5, 1)
// (exact, and it keeps 1e300 or 1e-300 entries from overflowing or underflowing), reduced to upper
// Hessenberg form by Householder reflections, and brought to Schur form by the Francis implicit
// double-shift QR iteration, which deflates from the bottom (a subdiagonal entry is set to zero when it is
// below 2⁻⁵² times the sum of its two diagonal neighbours), takes exceptional shifts after every 5
// iterations without deflation and stops after 100·max(n, 10) iterations in all, so that its time is
// O(n³) on every input. Nothing is balanced (LAPACK's dgees permutes, dgeev permutes and scales), so on a
// badly scaled matrix the iteration can take longer and the eigenvalues be less accurate than LAPACK's.
// t is the same, bit for bit, whether vectors is true or false.
//
// ok is false when the iteration did not converge within that limit (LAPACK's info > 0), or at once when a
// holds a NaN or an infinity; t, wr, wi (and z when vectors is true) are then filled with NaN. When the
// largest |a[i,j]| is within a factor of about n of the largest float64, entries of t and eigenvalues
// that exceed it come back as ±Inf, as they do from LAPACK. n = 0 gives empty results and ok. SchurFloat
// panics when n < 0 or len(a) ≠ n·n.
func SchurFloat(a []float64, n int, vectors bool) (t, z, wr, wi []float64, ok bool) {
	schurCheckShape("SchurFloat", a, n)
	t, z, e, ok := schurScaled(a, n, vectors, schurFrancis)
	if !ok {
		t, wr, wi = schurNaN[float64](n*n), schurNaN[float64](n), schurNaN[float64](n)
		if vectors {
			z = schurNaN[float64](n * n)
		}
		return t, z, wr, wi, false
	}
	schurUnscale(t, e)
	wr, wi = schurEigenvalues(t, n)
	return t, z, wr, wi, true
}

// EigFloat returns the eigenvalues wr + i·wi of the n×n real matrix a (row-major, not modified), in the
// order SchurFloat gives them (bit for bit the same), and, when left or right is true, the left or right
// eigenvectors as n×n row-major complex matrices whose column j belongs to eigenvalue j (nil otherwise):
// right, a·v = λ·v; left, uᴴ·a = λ·uᴴ. This is what LAPACK's dgeev computes, with two differences: dgeev
// balances a first and this function does not (so eigenvalues of a badly scaled matrix can be less
// accurate than dgeev's), and the order of the eigenvalues is the one this QR iteration produces, which
// need not be dgeev's.
//
// The eigenvectors come from back-substitution on the quasi-triangular Schur form t for each eigenvalue
// (a left one on tᵀ), a pivot smaller than 2⁻⁵²·max|t[i,j]| replaced by that size, multiplied by the Schur
// vectors z. Each is normalised as dgeev normalises it, Euclidean norm 1 and its component of largest
// magnitude (the first such, magnitudes within a relative 2⁻⁵⁰ of the largest counting as equal) real,
// and this function makes that component positive. The vectors of a conjugate pair are conjugates of
// each other; those of a real eigenvalue have zero imaginary parts. For a defective eigenvalue the vectors
// are as back-substitution gives them: they satisfy the residual bounds but are close to parallel.
//
// ok is false as for SchurFloat, wr, wi and the requested vectors then filled with NaN. EigFloat panics
// when n < 0 or len(a) ≠ n·n.
func EigFloat(a []float64, n int, left, right bool) (wr, wi []float64, vl, vr []complex128, ok bool) {
	schurCheckShape("EigFloat", a, n)
	t, z, e, ok := schurScaled(a, n, left || right, schurFrancis)
	if !ok {
		wr, wi = schurNaN[float64](n), schurNaN[float64](n)
		vl, vr = schurNaNVectors(n, left, right)
		return wr, wi, vl, vr, false
	}
	tu := make([]float64, len(t))
	copy(tu, t)
	schurUnscale(tu, e)
	wr, wi = schurEigenvalues(tu, n)
	// A pair is taken from the eigenvalues of the returned t (where an underflow on unscaling can turn a
	// pair real), the vectors from the scaled t.
	pair := make([]bool, n)
	for i := 0; i+1 < n; i++ {
		pair[i] = wi[i] > 0
	}
	vl, vr = schurBothVectors(schurToComplex(t), schurToComplex(z), n, pair, true, left, right)
	return wr, wi, vl, vr, true
}

// schurCheckShape panics unless a holds an n×n matrix.
func schurCheckShape[T Scalar](name string, a []T, n int) {
	if n < 0 || len(a) != n*n {
		panic(fmt.Sprintf("linalg: %s: len(a) = %d, n = %d: want n ≥ 0 and len(a) = n·n", name, len(a), n))
	}
}

// schurNaN returns k NaNs (complex ones with both parts NaN).
func schurNaN[T Scalar](k int) []T {
	x := make([]T, k)
	nan := schurFromComplex[T](complex(math.NaN(), math.NaN()))
	for i := range x {
		x[i] = nan
	}
	return x
}

// schurNaNVectors returns the NaN-filled n×n eigenvector matrices of a failed EigFloat or EigComplex, each
// nil unless asked for.
func schurNaNVectors(n int, left, right bool) (vl, vr []complex128) {
	if left {
		vl = schurNaN[complex128](n * n)
	}
	if right {
		vr = schurNaN[complex128](n * n)
	}
	return vl, vr
}

// schurFromComplex is v as a T: v itself for complex128, its real part for float64.
func schurFromComplex[T Scalar](v complex128) T {
	var x T
	if _, ok := any(x).(complex128); ok {
		return any(v).(T)
	}
	return fromReal[T](real(v))
}

// schurLdexp is x·2ᵉ, each part of a complex x scaled (exact unless it overflows or underflows).
func schurLdexp[T Scalar](x T, e int) T {
	return schurFromComplex[T](complex(math.Ldexp(re(x), e), math.Ldexp(im(x), e)))
}

// schurMaxPart is the largest magnitude of a real or imaginary part of an entry of x (0 for an empty x),
// NaN when one is NaN.
func schurMaxPart[T Scalar](x []T) float64 {
	m := 0.0
	switch x := any(x).(type) {
	case []float64:
		for _, v := range x {
			m = max(m, math.Abs(v))
		}
	case []complex128:
		for _, v := range x {
			m = max(m, math.Abs(real(v)), math.Abs(imag(v)))
		}
	}
	return m
}

// schurToComplex returns x's entries as complex numbers.
func schurToComplex(x []float64) []complex128 {
	c := make([]complex128, len(x))
	for i, v := range x {
		c[i] = complex(v, 0)
	}
	return c
}

// schurScaled computes the Schur form of a·2⁻ᵉ, where 2ᵉ⁻¹ ≤ m < 2ᵉ for the largest magnitude m of a real or
// imaginary part of an entry of a (e = 0 for the zero matrix): t (scaled) and, when vectors is true, z,
// after reducing the scaled a to Hessenberg form and running iterate on it (which returns false when it
// does not converge). ok is false for non-finite input or when iterate fails.
func schurScaled[T Scalar](a []T, n int, vectors bool, iterate func(t, z []T, n int) bool) (t, z []T, e int, ok bool) {
	amax := schurMaxPart(a)
	if amax-amax != 0 { // NaN or ±Inf in a part
		return nil, nil, 0, false
	}
	t = make([]T, n*n)
	if vectors {
		z = make([]T, n*n)
		for i := 0; i < n; i++ {
			z[i*n+i] = 1
		}
	}
	if amax == 0 {
		return t, z, 0, true
	}
	_, e = math.Frexp(amax)
	for i, v := range a {
		t[i] = schurLdexp(v, -e)
	}
	schurHessenberg(t, z, n)
	if !iterate(t, z, n) {
		return nil, nil, 0, false
	}
	return t, z, e, true
}

// schurUnscale multiplies every entry of t by 2ᵉ.
func schurUnscale[T Scalar](t []T, e int) {
	if e == 0 {
		return
	}
	for i, v := range t {
		t[i] = schurLdexp(v, e)
	}
}

// schurEigenvalues reads the eigenvalues off the quasi-triangular t: t[i,i] for a 1×1 block, and
// t[i,i] ± sqrt(-t[i,i+1]·t[i+1,i]) i for a 2×2 block in standard form, positive imaginary part first.
func schurEigenvalues(t []float64, n int) (wr, wi []float64) {
	wr, wi = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		wr[i] = t[i*n+i]
		if i+1 < n && t[(i+1)*n+i] != 0 {
			w := schurSqrtProduct(t[i*n+i+1], t[(i+1)*n+i])
			wr[i+1] = t[(i+1)*n+i+1]
			if w > 0 {
				wi[i], wi[i+1] = w, -w
			}
			i++
		}
	}
	return wr, wi
}

// schurSqrtProduct is sqrt(|b|·|c|), computed as the square root of the product when that product is a
// normal float64 (so that sqrt(b·b) is |b| exactly) and as sqrt|b|·sqrt|c| otherwise.
func schurSqrtProduct(b, c float64) float64 {
	b, c = math.Abs(b), math.Abs(c)
	if p := b * c; p >= 0x1p-1022 && p <= math.MaxFloat64 {
		return math.Sqrt(p)
	}
	return math.Sqrt(b) * math.Sqrt(c)
}

// schurReflector turns x into the vector v of a reflection H = I - tau·v·vᴴ with v[0] = 1 and
// Hᴴ·x = (beta, 0, …, 0), beta = -sign(re x[0])·‖x‖ (real; for real x, H is symmetric and orthogonal,
// for complex x unitary). When x[1:] is zero it returns tau = 0 (H = I) and beta = x[0], and leaves x as it
// is. An x of tiny magnitude (subnormal entries, say) is first scaled by a power of two, so that v and tau,
// which do not depend on x's scale, keep full precision and H stays unitary.
func schurReflector[T Scalar](x []T) (tau, beta T) {
	if len(x) < 2 {
		return 0, x[0]
	}
	m := schurMaxPart(x[1:])
	if m == 0 {
		return 0, x[0]
	}
	alpha := x[0]
	ar, ai := re(alpha), im(alpha)
	m = max(m, math.Abs(ar), math.Abs(ai))
	e := 0
	if m < 0x1p-500 || m > 0x1p500 {
		_, e = math.Frexp(m)
		for i := range x {
			x[i] = schurLdexp(x[i], -e)
		}
		alpha = x[0]
		ar, ai = re(alpha), im(alpha)
	}
	b := math.Hypot(math.Hypot(ar, ai), norm2(x[1:]))
	if ar >= 0 {
		b = -b
	}
	// re alpha and b have opposite signs, so alpha - b involves no cancellation, and
	// |alpha - b| ≥ ‖x‖ ≥ every |x[i]|.
	beta = fromReal[T](b)
	f := alpha - beta
	for i := 1; i < len(x); i++ {
		x[i] /= f
	}
	x[0] = 1
	return (beta - alpha) / beta, fromReal[T](math.Ldexp(b, e))
}

// schurHessenberg reduces t to upper Hessenberg form in place by a reflection per column (t ← Hᴴ·t·H),
// setting the entries below the subdiagonal to zero, and multiplies z (when not nil) by the reflections on
// the right.
func schurHessenberg[T Scalar](t, z []T, n int) {
	v := make([]T, n)
	vc := make([]T, n)
	w := make([]T, n)
	for k := 0; k+2 < n; k++ {
		m := n - k - 1
		c0 := k + 1
		for i := 0; i < m; i++ {
			v[i] = t[(c0+i)*n+k]
		}
		tau, beta := schurReflector(v[:m])
		if tau == 0 {
			continue
		}
		t[c0*n+k] = beta
		for i := 1; i < m; i++ {
			t[(c0+i)*n+k] = 0
		}
		for i := 0; i < m; i++ {
			vc[i] = conj(v[i])
		}
		// From the left, Hᴴ = I - conj(tau)·v·vᴴ on rows c0..n-1 and columns c0..n-1 (column k is set
		// above): w = vᴴ·rows.
		ws := w[:m]
		clear(ws)
		for i := 0; i < m; i++ {
			vi := vc[i]
			row := t[(c0+i)*n+c0 : (c0+i+1)*n]
			for j, x := range row {
				ws[j] += vi * x
			}
		}
		tc := conj(tau)
		for i := 0; i < m; i++ {
			f := tc * v[i]
			row := t[(c0+i)*n+c0 : (c0+i+1)*n]
			for j := range row {
				row[j] -= f * ws[j]
			}
		}
		schurReflectRight(t, n, n, c0, v[:m], vc[:m], tau)
		if z != nil {
			schurReflectRight(z, n, n, c0, v[:m], vc[:m], tau)
		}
	}
}

// schurReflectRight multiplies rows 0..rows-1 of the n-column matrix x by H = I - tau·v·vᴴ acting on
// columns c0..c0+len(v)-1; vc holds the conjugates of v's entries.
func schurReflectRight[T Scalar](x []T, n, rows, c0 int, v, vc []T, tau T) {
	for r := 0; r < rows; r++ {
		row := x[r*n+c0 : r*n+c0+len(v)]
		var s T
		for i, y := range row {
			s += y * v[i]
		}
		s *= tau
		for i := range row {
			row[i] -= s * vc[i]
		}
	}
}

// schurFrancis brings the upper Hessenberg t to real Schur form in place by the Francis double-shift QR
// iteration, applying every transformation to the whole of t (and to z when not nil), and standardises
// the 2×2 blocks. It returns false when 100·max(n, 10) iterations did not suffice.
func schurFrancis(t, z []float64, n int) bool {
	limit := schurIterationLimit(n)
	total, its := 0, 0
	hi := n - 1
	for hi >= 0 {
		l := schurActiveBlock(t, n, hi)
		if l >= hi-1 {
			if l == hi-1 {
				schurStandardize(t, z, n, l)
			}
			hi = l - 1
			its = 0
			continue
		}
		if total >= limit {
			return false
		}
		var mu1, mu2, nu float64
		switch {
		case its > 0 && its%10 == 5:
			// Exceptional shifts near the bottom of the block, a complex pair off the real axis, whose
			// size follows the subdiagonal entries there: they break the cycles in which standard shifts
			// can be caught (a cyclic permutation's, or between two pairs of eigenvalues equally far
			// from the shifts).
			w := math.Abs(t[hi*n+hi-1]) + math.Abs(t[(hi-1)*n+hi-2])
			mu1 = t[hi*n+hi] + 0.7*w
			mu2, nu = mu1, 0.55*w
		case its > 0 && its%10 == 0:
			// Exceptional shifts near the top of the block.
			w := math.Abs(t[(l+1)*n+l]) + math.Abs(t[(l+2)*n+l+1])
			mu1 = t[l*n+l] + 0.7*w
			mu2, nu = mu1, 0.55*w
		default:
			mu1, mu2, nu = schurShifts(t[(hi-1)*n+hi-1], t[(hi-1)*n+hi], t[hi*n+hi-1], t[hi*n+hi])
		}
		schurSweep(t, z, n, l, hi, mu1, mu2, nu)
		total++
		its++
	}
	return true
}

// schurIterationLimit is the number of QR iterations after which the iteration on an n×n matrix gives up:
// 100·max(n, 10), so that its time is O(n³) on every input.
func schurIterationLimit(n int) int {
	return 100 * max(n, 10)
}

// schurActiveBlock returns the start l of the unreduced block l..hi of the Hessenberg t (whose largest
// entry was scaled to about 1) that ends at hi: the largest l ≤ hi with t[l,l-1] negligible (set to zero
// here), or 0. An entry is negligible when its magnitude (abs1) is below 2⁻⁵² times the sum of those of its
// two diagonal neighbours (of its subdiagonal neighbours when both are zero), or below a threshold near
// the underflow one.
func schurActiveBlock[T Scalar](t []T, n, hi int) int {
	tiny := 0x1p-1022 * float64(n) / schurUlp
	l := hi
	for ; l > 0; l-- {
		h := abs1(t[l*n+l-1])
		s := abs1(t[(l-1)*n+l-1]) + abs1(t[l*n+l])
		if s == 0 {
			if l >= 2 {
				s += abs1(t[(l-1)*n+l-2])
			}
			if l < hi {
				s += abs1(t[(l+1)*n+l])
			}
		}
		if h <= max(schurUlp*s, tiny) {
			t[l*n+l-1] = 0
			break
		}
	}
	return l
}

// schurShifts returns the shifts for a double-shift step from the eigenvalues of [[a, b], [c, d]]: for a
// complex pair mu ± i·nu it returns (mu, mu, nu); for a real pair the eigenvalue closer to d twice, with
// nu = 0.
func schurShifts(a, b, c, d float64) (mu1, mu2, nu float64) {
	s := math.Abs(a) + math.Abs(b) + math.Abs(c) + math.Abs(d)
	if s == 0 {
		return 0, 0, 0
	}
	a, b, c, d = a/s, b/s, c/s, d/s
	p := 0.5 * (a + d)
	h := 0.5 * (a - d)
	disc := h*h + b*c
	if disc < 0 {
		return p * s, p * s, math.Sqrt(-disc) * s
	}
	r := math.Sqrt(disc)
	mu := p + r
	if math.Abs(p-r-d) < math.Abs(mu-d) {
		mu = p - r
	}
	return mu * s, mu * s, 0
}

// schurSweep does one Francis double-shift step on the unreduced block l..hi (hi ≥ l+2) of the Hessenberg
// t, with shifts whose sum is mu1 + mu2 and whose product is mu1·mu2 + nu²: a reflection on rows l..l+2
// that makes the first column of the block proportional to that of (t - s₁)(t - s₂), then reflections that
// chase the bulge down and off the block.
func schurSweep(t, z []float64, n, l, hi int, mu1, mu2, nu float64) {
	h00, h01 := t[l*n+l], t[l*n+l+1]
	h10, h11 := t[(l+1)*n+l], t[(l+1)*n+l+1]
	h21 := t[(l+2)*n+l+1]
	// The first column of (t - s₁)(t - s₂) is ((h00-mu1)(h00-mu2) + nu² + h01·h10, h10·(h00+h11-mu1-mu2),
	// h10·h21), divided here by s > 0 (h10 ≠ 0 in an unreduced block) against overflow and underflow.
	s := math.Abs(h00-mu2) + math.Abs(nu) + math.Abs(h10)
	g := h10 / s
	x := (h00-mu1)*((h00-mu2)/s) + nu*(nu/s) + h01*g
	y := g * ((h00 - mu1) + (h11 - mu2))
	w := g * h21
	var v [3]float64
	for k := l; k < hi; k++ {
		nr := 3
		if k == hi-1 {
			nr = 2
		}
		if k > l {
			x, y, w = t[k*n+k-1], t[(k+1)*n+k-1], 0
			if nr == 3 {
				w = t[(k+2)*n+k-1]
			}
		}
		v[0], v[1], v[2] = x, y, w
		tau, beta := schurReflector(v[:nr])
		if k > l {
			t[k*n+k-1] = beta
			t[(k+1)*n+k-1] = 0
			if nr == 3 {
				t[(k+2)*n+k-1] = 0
			}
		}
		if tau == 0 {
			continue
		}
		v1, v2 := v[1], v[2]
		rmax := min(k+3, hi)
		if nr == 3 {
			r0, r1, r2 := t[k*n:(k+1)*n], t[(k+1)*n:(k+2)*n], t[(k+2)*n:(k+3)*n]
			for j := k; j < n; j++ {
				f := tau * (r0[j] + v1*r1[j] + v2*r2[j])
				r0[j] -= f
				r1[j] -= f * v1
				r2[j] -= f * v2
			}
			for r := 0; r <= rmax; r++ {
				row := t[r*n+k : r*n+k+3]
				f := tau * (row[0] + v1*row[1] + v2*row[2])
				row[0] -= f
				row[1] -= f * v1
				row[2] -= f * v2
			}
			if z != nil {
				for r := 0; r < n; r++ {
					row := z[r*n+k : r*n+k+3]
					f := tau * (row[0] + v1*row[1] + v2*row[2])
					row[0] -= f
					row[1] -= f * v1
					row[2] -= f * v2
				}
			}
		} else {
			schurReflect2(t, z, n, k, rmax, tau, v1)
		}
	}
}

// schurReflect2 replaces t by Hᴴ·t·H and z (when not nil) by z·H, for the reflection H = I - tau·v·vᴴ,
// v = (1, v1), in rows and columns k, k+1: on t's rows k, k+1 from column k on (left of it they are zero or
// set by the caller) and on its columns k, k+1 in rows 0..rmax.
func schurReflect2[T Scalar](t, z []T, n, k, rmax int, tau, v1 T) {
	tc, v1c := conj(tau), conj(v1)
	r0, r1 := t[k*n:(k+1)*n], t[(k+1)*n:(k+2)*n]
	for j := k; j < n; j++ {
		f := tc * (r0[j] + v1c*r1[j])
		r0[j] -= f
		r1[j] -= f * v1
	}
	schurReflect2Columns(t, n, k, rmax+1, tau, v1, v1c)
	if z != nil {
		schurReflect2Columns(z, n, k, n, tau, v1, v1c)
	}
}

// schurReflect2Columns multiplies rows 0..rows-1 of the n-column x by I - tau·v·vᴴ, v = (1, v1), acting
// on columns k, k+1; v1c is conj(v1).
func schurReflect2Columns[T Scalar](x []T, n, k, rows int, tau, v1, v1c T) {
	for r := 0; r < rows; r++ {
		row := x[r*n+k : r*n+k+2]
		f := tau * (row[0] + v1*row[1])
		row[0] -= f
		row[1] -= f * v1c
	}
}

// schurRotate replaces t by qᵀ·t·q and z by z·q, where q is the identity but for the rotation
// [[cs, -sn], [sn, cs]] in rows and columns i, i+1; rows i, i+1 of t are zero left of column i.
func schurRotate(t, z []float64, n, i int, cs, sn float64) {
	r0, r1 := t[i*n:(i+1)*n], t[(i+1)*n:(i+2)*n]
	for j := i; j < n; j++ {
		x, y := r0[j], r1[j]
		r0[j] = cs*x + sn*y
		r1[j] = cs*y - sn*x
	}
	for r := 0; r <= i+1; r++ {
		x, y := t[r*n+i], t[r*n+i+1]
		t[r*n+i] = cs*x + sn*y
		t[r*n+i+1] = cs*y - sn*x
	}
	if z != nil {
		for r := 0; r < n; r++ {
			x, y := z[r*n+i], z[r*n+i+1]
			z[r*n+i] = cs*x + sn*y
			z[r*n+i+1] = cs*y - sn*x
		}
	}
}

// schurStandardize brings the deflated 2×2 block B = [[a, b], [c, d]] at rows and columns i, i+1 of t to
// standard form by a rotation applied to all of t and z: upper triangular when B's eigenvalues are real;
// equal diagonal entries and b·c < 0 when they are complex.
func schurStandardize(t, z []float64, n, i int) {
	a, b := t[i*n+i], t[i*n+i+1]
	c, d := t[(i+1)*n+i], t[(i+1)*n+i+1]
	switch {
	case c == 0:
		return
	case b == 0:
		// Exchanging the two basis vectors gives [[d, -c], [0, a]].
		schurRotate(t, z, n, i, 0, 1)
		t[(i+1)*n+i] = 0
		return
	case a == d && (b > 0) != (c > 0):
		return
	}
	// B's eigenvalues are d + x for the roots x of x² - 2h·x - b·c = 0, h = (a-d)/2; their discriminant
	// h² + b·c has the sign of h² - r² when b and c differ in sign, r = sqrt|b·c|.
	h := 0.5 * (a - d)
	r := schurSqrtProduct(b, c)
	opposite := (b > 0) != (c > 0)
	if opposite && math.Abs(h) < r {
		// Complex: rotate by θ with cos 2θ·(a-d) + sin 2θ·(b+c) = 0, the angle of smaller magnitude.
		p, q := b+c, a-d
		rho := math.Hypot(p, q)
		c2, s2 := p/rho, -q/rho
		if c2 < 0 {
			c2, s2 = -c2, -s2
		}
		cs := math.Sqrt(0.5 * (1 + c2))
		sn := s2 / (2 * cs)
		schurRotate(t, z, n, i, cs, sn)
		m := 0.5 * (t[i*n+i] + t[(i+1)*n+i+1])
		t[i*n+i], t[(i+1)*n+i+1] = m, m
		if b2, c2 := t[i*n+i+1], t[(i+1)*n+i]; b2 != 0 && c2 != 0 && (b2 > 0) != (c2 > 0) {
			return
		}
		// Rounding made the eigenvalues real (or a product zero): split the block as a real one.
		schurStandardize(t, z, n, i)
		return
	}
	// Real: the root of larger magnitude, x = h + sign(h)·sqrt(h² + b·c), free of cancellation, has the
	// eigenvector (x, c); rotating it into the first basis vector makes the block upper triangular.
	var disc float64
	if opposite {
		disc = math.Sqrt(math.Abs(h)-r) * math.Sqrt(math.Abs(h)+r)
	} else {
		disc = math.Hypot(h, r)
	}
	x := h + math.Copysign(disc, h)
	nrm := math.Hypot(x, c)
	schurRotate(t, z, n, i, x/nrm, c/nrm)
	t[(i+1)*n+i] = 0
}

// schurBothVectors returns the left and right eigenvectors (each when asked for) of z·t·zᴴ, by
// schurVectors, from the quasi-triangular t and unitary z (real ones for a real matrix, realInput true) and
// pair (all false for a complex t, which is triangular).
func schurBothVectors(t, z []complex128, n int, pair []bool, realInput, left, right bool) (vl, vr []complex128) {
	if right {
		vr = schurVectors(t, z, n, pair, realInput, false)
	}
	if left {
		zl := z
		if !realInput {
			zl = make([]complex128, len(z))
			for i, v := range z {
				zl[i] = cmplx.Conj(v)
			}
		}
		vl = schurVectors(t, zl, n, pair, realInput, true)
	}
	return vl, vr
}

// schurVectors returns the n×n matrix (row-major) whose column j is the normalised right eigenvector (left
// when left is true) of z·t·zᴴ for eigenvalue j of the quasi-triangular t, where pair[j] marks the first
// eigenvalue of a complex pair in rows j, j+1 (possible only when realInput: t and z real, held as complex
// numbers). For a left eigenvector the caller passes conj(z) as z.
//
// A right eigenvector is z·x with t·x = λ·x. A left one is u = z·conj(w), that is conj(conj(z)·w), with
// tᵀ·w = λ·w (so that tᴴ·conj(w) = conj(λ)·conj(w), and uᴴ·a = λ·uᴴ); the back-substitution for w runs on
// the matrix p·tᵀ·p, p reversing the order of the indices, which is upper (quasi-)triangular again.
func schurVectors(t, z []complex128, n int, pair []bool, realInput, left bool) []complex128 {
	u, upair := t, pair
	if left {
		u = make([]complex128, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				u[i*n+j] = t[(n-1-j)*n+n-1-i]
			}
		}
		upair = make([]bool, n)
		for i := 0; i+1 < n; i++ {
			upair[n-2-i] = pair[i]
		}
	}
	tmax := 0.0
	for _, v := range t {
		tmax = max(tmax, math.Abs(real(v)), math.Abs(imag(v)))
	}
	smin := max(schurUlp*tmax, 0x1p-1022)
	out := make([]complex128, n*n)
	x := make([]complex128, n)
	col := make([]complex128, n)
	for j := 0; j < n; {
		size := 1
		lam := t[j*n+j]
		if pair[j] {
			size = 2
			lam = complex(real(t[j*n+j]), schurSqrtProduct(real(t[j*n+j+1]), real(t[(j+1)*n+j])))
		}
		// The block's position in u.
		s := j
		if left {
			s = n - j - size
		}
		top := schurSolveQuasi(u, n, upair, s, size, lam, smin, x)
		clear(col)
		for r := 0; r < n; r++ {
			var acc complex128
			zr := z[r*n : (r+1)*n]
			for q := 0; q < top; q++ {
				c := q
				if left {
					c = n - 1 - q
				}
				acc += zr[c] * x[q]
			}
			col[r] = acc
		}
		if left {
			for r := range col {
				col[r] = cmplx.Conj(col[r])
			}
		}
		schurNormalize(col, realInput && size == 1)
		for r := 0; r < n; r++ {
			out[r*n+j] = col[r]
			if size == 2 {
				out[r*n+j+1] = cmplx.Conj(col[r])
			}
		}
		j += size
	}
	return out
}

// schurSolveQuasi finds x with u·x = lam·x for the upper quasi-triangular u (upair[i] marking a 2×2 block
// in rows i, i+1) and the eigenvalue lam of its diagonal block at s (size 1 or 2, a 2×2 one in standard
// form): x is zero below the block, spans the block's eigenvector there, and is found above it by
// back-substitution, a pivot of magnitude below smin replaced by smin, the whole rescaled whenever a
// component exceeds schurVecLimit. It returns s+size, the length of x's possibly nonzero part.
func schurSolveQuasi(u []complex128, n int, upair []bool, s, size int, lam complex128, smin float64, x []complex128) int {
	top := s + size
	clear(x)
	if size == 1 {
		x[s] = 1
	} else {
		// For [[α, β], [γ, α]] and lam = α ± iω (ω² = -β·γ), (β, lam - α) is an eigenvector.
		b := u[s*n+s+1]
		d := lam - u[s*n+s]
		if math.Abs(real(b)) >= cmplx.Abs(d) {
			x[s], x[s+1] = 1, d/b
		} else {
			x[s], x[s+1] = b/d, 1
		}
	}
	dot := func(i int) complex128 {
		var acc complex128
		row := u[i*n : (i+1)*n]
		for j := i + 1; j < top; j++ {
			acc += row[j] * x[j]
		}
		return acc
	}
	for i := s - 1; i >= 0; {
		lo, cnt := i, 1
		if i >= 1 && upair[i-1] {
			// Rows i-1, i: the 2×2 system (B - lam)·(x[i-1], x[i]) = -(sums over the columns right of i);
			// x[i] is still zero, so the sum for row i-1 leaves column i out.
			lo, cnt = i-1, 2
			r0, r1 := -dot(i-1), -dot(i)
			m00 := u[(i-1)*n+i-1] - lam
			m01 := u[(i-1)*n+i]
			m10 := u[i*n+i-1]
			m11 := u[i*n+i] - lam
			x[i-1], x[i] = schurSolve2(m00, m01, m10, m11, r0, r1, smin)
		} else {
			d := u[i*n+i] - lam
			if cmplx.Abs(d) < smin {
				d = complex(smin, 0)
			}
			x[i] = -dot(i) / d
		}
		i -= cnt
		big := 0.0
		for q := lo; q < lo+cnt; q++ {
			big = max(big, math.Abs(real(x[q])), math.Abs(imag(x[q])))
		}
		if big > schurVecLimit {
			f := complex(1/big, 0)
			for q := lo; q < top; q++ {
				x[q] *= f
			}
		}
	}
	return top
}

// schurSolve2 solves [[m00, m01], [m10, m11]]·(x0, x1) = (r0, r1) by elimination with complete pivoting, a
// pivot of magnitude below smin replaced by smin (the whole matrix taken as smin·I when all its entries
// are that small).
func schurSolve2(m00, m01, m10, m11, r0, r1 complex128, smin float64) (x0, x1 complex128) {
	m := [2][2]complex128{{m00, m01}, {m10, m11}}
	r := [2]complex128{r0, r1}
	pi, pj, best := 0, 0, -1.0
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if a := cmplx.Abs(m[i][j]); a > best {
				pi, pj, best = i, j, a
			}
		}
	}
	if best < smin {
		s := complex(smin, 0)
		return r0 / s, r1 / s
	}
	qi, qj := 1-pi, 1-pj
	f := m[qi][pj] / m[pi][pj]
	u := m[qi][qj] - f*m[pi][qj]
	if cmplx.Abs(u) < smin {
		u = complex(smin, 0)
	}
	var x [2]complex128
	x[qj] = (r[qi] - f*r[pi]) / u
	x[pj] = (r[pi] - m[pi][qj]*x[qj]) / m[pi][pj]
	return x[0], x[1]
}

// schurNormalize scales v to Euclidean norm 1 and turns it so that its first component of largest
// magnitude is real and positive, magnitudes within a relative 2⁻⁵⁰ (a few roundings) of the largest
// counting as ties, so that the choice among components equal in exact arithmetic does not depend on
// rounding; when isReal is true the imaginary parts are set to zero.
func schurNormalize(v []complex128, isReal bool) {
	m := 0.0
	for _, c := range v {
		m = max(m, math.Abs(real(c)), math.Abs(imag(c)))
	}
	if m == 0 {
		return
	}
	// w = v/m has parts of magnitude at most 1: its squares neither overflow nor underflow harmfully.
	inv := 1 / m
	sum := 0.0
	big := 0.0
	for i, c := range v {
		w := c * complex(inv, 0)
		v[i] = w
		sum += real(w)*real(w) + imag(w)*imag(w)
		big = max(big, cmplx.Abs(w))
	}
	k := 0
	for cmplx.Abs(v[k]) < big*(1-0x1p-50) {
		k++
	}
	big = cmplx.Abs(v[k])
	norm := math.Sqrt(sum)
	// Multiplying by conj(w[k]) / (|w[k]|·‖w‖) makes component k real and positive and the norm 1.
	f := cmplx.Conj(v[k]) / complex(big*norm, 0)
	for i := range v {
		v[i] *= f
		if isReal {
			v[i] = complex(real(v[i]), 0)
		}
	}
	v[k] = complex(big/norm, 0)
}
