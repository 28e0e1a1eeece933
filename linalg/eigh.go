package linalg

import (
	"fmt"
	"math"
	"slices"
)

// eighMaxSweepsPerN bounds the implicit QR iteration of EighFloat: at most this many sweeps times n in
// all, as LAPACK's steqr allows.
const eighMaxSweepsPerN = 30

// eighEps is the spacing of float64 numbers at 1.
const eighEps = 0x1p-52

// eighNegligible is the magnitude below which, once the matrix is scaled to have its largest entry in
// [1/2, 1), an off-diagonal entry is dropped whatever its neighbours: far below the rounding error of the
// matrix, and above the subnormal range where the shift and rotation arithmetic would lose precision.
const eighNegligible = 0x1p-1000

// eighBlockNegligible is the size, relative to the largest entry of its unreduced block, below which
// an off-diagonal entry of the tridiagonal matrix is dropped.
const eighBlockNegligible = 0x1p-500

// eighSmallBlock is the size of the largest entry of an unreduced block below which the block is swept
// scaled up.
const eighSmallBlock = 0x1p-200

// EighFloat returns the eigenvalues of the n×n real symmetric matrix held in a's lower (lower=true) or
// upper triangle (row-major, a[i*n+j]; the other triangle is not read, and a is not modified), in
// ascending order, and, when vectors is true, an n×n row-major matrix whose column j is a unit
// eigenvector for eigenvalue j (nil otherwise). ok is false when the iteration did not converge (LAPACK's
// info > 0), NaN or infinite input among the causes: then w and v are filled with NaN. n = 0 gives empty
// results and ok. EighFloat panics when n < 0 or len(a) != n*n.
//
// Sign convention: each eigenvector's component of largest magnitude is positive (the first such
// component when several share that magnitude). Equal eigenvalues keep the order the iteration leaves
// them in (the sort is stable), so their eigenvectors are one deterministic orthonormal basis of the
// eigenspace.
//
// The matrix is scaled by a power of two to bring its largest entry into [1/2, 1) (exactly, so that
// entries near the overflow or underflow thresholds lose nothing), reduced to tridiagonal form by
// Householder reflections (accumulated when vectors are wanted), and diagonalised by the implicit
// symmetric QR iteration with Wilkinson shifts, capped at 30·n sweeps. The eigenvalues do not depend on
// vectors: both settings give the same bits.
func EighFloat(a []float64, n int, lower, vectors bool) (w, v []float64, ok bool) {
	return eighDecompose("EighFloat", a, n, lower, vectors)
}

// eighDecompose is EighFloat for real T and EighComplex for complex T; name is the function named in
// the panic.
func eighDecompose[T Scalar](name string, a []T, n int, lower, vectors bool) (w []float64, v []T, ok bool) {
	if n < 0 || len(a) != n*n {
		panic(fmt.Sprintf("linalg: %s: len(a) = %d for n = %d", name, len(a), n))
	}
	w = make([]float64, n)
	if vectors {
		v = make([]T, n*n)
	}
	if n == 0 {
		return w, v, true
	}
	fail := func() ([]float64, []T, bool) {
		eighFillNaN(w)
		eighFillNaN(v)
		return w, v, false
	}

	s, exp, finite := eighLoad(a, n, lower)
	if !finite {
		return fail()
	}
	d := make([]float64, n)
	e := make([]T, max(n-1, 0))
	tau := make([]float64, max(n-2, 0))
	eighTridiagonalize(s, n, d, e, tau)

	// A complex T = Qᴴ·A·Q is D·T'·Dᴴ with T' real (subdiagonal |e|) and D a diagonal of phases; a real
	// one is used as it is.
	var er []float64
	var phase []T
	switch e := any(e).(type) {
	case []float64:
		er = e
	case []complex128:
		var ph []complex128
		er, ph = eighPhases(e)
		phase = any(ph).([]T)
	}

	// zt holds, as rows, the transposed Q·D (real and imaginary parts interleaved when complex), so
	// that after the rotations row i is the eigenvector of d[i].
	f := eighFloatsPer[T]()
	var zt []float64
	if vectors {
		zt = eighStartVectors(eighFormQ(s, n, tau), phase, n)
	}
	if !eighTridiagonalQR(d, er, zt, n, f*n) {
		return fail()
	}

	for j, p := range eighSortedOrder(d, false) {
		w[j] = math.Ldexp(d[p], exp)
		if vectors {
			col := eighScalarsOf[T](zt[p*f*n : (p+1)*f*n])
			eighPositiveLargest(col, nil)
			for r, x := range col {
				v[r*n+j] = x
			}
		}
	}
	return w, v, true
}

// eighLoad returns the full n×n Hermitian (symmetric when real) matrix held in a's named triangle, with
// the diagonal's imaginary parts taken as zero, scaled by the power of two 2^−exp that brings its largest
// real or imaginary part into [1/2, 1) (exp = 0 for the zero matrix). ok is false when an entry that is
// read is NaN or infinite.
func eighLoad[T Scalar](a []T, n int, lower bool) (s []T, exp int, ok bool) {
	s = make([]T, n*n)
	amax := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			// x is entry (i, j) of the full matrix, read from (j, i) when upper.
			x := conj(a[j*n+i])
			if lower {
				x = a[i*n+j]
			}
			if i == j {
				x = fromReal[T](re(x))
			}
			r, m := re(x), im(x)
			if math.IsNaN(r) || math.IsInf(r, 0) || math.IsNaN(m) || math.IsInf(m, 0) {
				return nil, 0, false
			}
			s[i*n+j], s[j*n+i] = x, conj(x)
			amax = max(amax, math.Abs(r), math.Abs(m))
		}
	}
	if amax > 0 {
		_, exp = math.Frexp(amax)
		for i, x := range s {
			s[i] = eighFromParts[T](math.Ldexp(re(x), -exp), math.Ldexp(im(x), -exp))
		}
	}
	return s, exp, true
}

// eighStartVectors returns the n×n row-major transpose of q·diag(phase) (q alone when phase is nil),
// with each complex entry stored as its real and imaginary parts side by side.
func eighStartVectors[T Scalar](q, phase []T, n int) []float64 {
	if qr, ok := any(q).([]float64); ok {
		zt := make([]float64, n*n)
		for r := 0; r < n; r++ {
			for i, x := range qr[r*n : r*n+n] {
				zt[i*n+r] = x
			}
		}
		return zt
	}
	f := eighFloatsPer[T]()
	zt := make([]float64, f*n*n)
	for r := 0; r < n; r++ {
		for i, x := range q[r*n : r*n+n] {
			if phase != nil {
				x *= phase[i]
			}
			o := (i*n + r) * f
			zt[o] = re(x)
			if f == 2 {
				zt[o+1] = im(x)
			}
		}
	}
	return zt
}

// eighSortedOrder returns the permutation that sorts x ascending (descending when descending is true),
// stably: equal values keep their order.
func eighSortedOrder(x []float64, descending bool) []int {
	perm := make([]int, len(x))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(i, j int) int {
		c := 0
		switch {
		case x[i] < x[j]:
			c = -1
		case x[i] > x[j]:
			c = 1
		}
		if descending {
			return -c
		}
		return c
	})
	return perm
}

// eighFillNaN sets every element of x to NaN (NaN in both parts when complex).
func eighFillNaN[T Scalar](x []T) {
	nan := eighFromParts[T](math.NaN(), math.NaN())
	for i := range x {
		x[i] = nan
	}
}

// eighPositiveLargest multiplies x by the unit scalar f that makes its first component of largest
// magnitude real and positive (f = ±1 when real; nothing changes when that component is already so),
// and partner (which may be nil) by conj(f).
func eighPositiveLargest[T Scalar](x, partner []T) {
	cplx := eighFloatsPer[T]() == 2
	abs := func(v T) float64 {
		if cplx {
			return math.Hypot(re(v), im(v))
		}
		return math.Abs(re(v))
	}
	best, big := 0, -1.0
	for i, v := range x {
		if a := abs(v); a > big {
			best, big = i, a
		}
	}
	if len(x) == 0 || (im(x[best]) == 0 && re(x[best]) >= 0) {
		return
	}
	f := eighUnitOf(conj(x[best]))
	for i := range x {
		x[i] *= f
	}
	x[best] = fromReal[T](big)
	// Rounding in a complex product can lift a component that (nearly) tied with x[best] above it:
	// such a component is shrunk by a few ulps so that x[best] stays the first largest. (Negation
	// is exact.)
	shrink := fromReal[T](1 - 0x1p-50)
	for i := range x {
		for range 16 {
			if !cplx {
				break
			}
			a := math.Hypot(re(x[i]), im(x[i]))
			if i == best || a < big || (a == big && i > best) {
				break
			}
			x[i] *= shrink
		}
	}
	f = conj(f)
	for i := range partner {
		partner[i] *= f
	}
}

// householder turns x (its norm below the first component sigma > 0) into the reflector
// H = I − tau·v·vᴴ, tau real, with H·x = beta·e₀: x[1:] is overwritten by v[1:] (v[0] = 1, x[0] is
// left as it is). beta has the phase opposite to x[0]'s (the sign opposite to it when real), so that
// forming v involves no cancellation.
func eighHouseholder[T Scalar](x []T, sigma float64) (tau float64, beta T) {
	alpha := x[0]
	abs := math.Hypot(re(alpha), im(alpha))
	h := math.Hypot(abs, sigma)
	beta = -eighUnitOf(alpha) * fromReal[T](h)
	tau = (h + abs) / h
	inv := alpha - beta // |alpha − beta| = |alpha| + h: no cancellation
	for i := 1; i < len(x); i++ {
		x[i] /= inv
	}
	return tau, beta
}

// eighTridiagonalize reduces the full Hermitian (symmetric when real) n×n matrix s to the tridiagonal
// T = Qᴴ·s·Q with real diagonal d and subdiagonal e (e[i] = T[i+1][i]), Q = H_0·H_1·…·H_{n-3}. The
// reflector H_k = I − tau[k]·u·uᴴ (tau[k] real) acts on indices k+1..n-1, with u[k+1] = 1 and u[k+2:]
// stored in s[k][k+2:]; the rest of s is overwritten.
func eighTridiagonalize[T Scalar](s []T, n int, d []float64, e []T, tau []float64) {
	p := make([]T, n)
	u := make([]T, n)
	uc, pc := make([]T, n), make([]T, n)
	for k := 0; k+2 < n; k++ {
		m := n - k - 1 // length of the column below the diagonal
		col := u[:m]
		for i := range col {
			col[i] = s[(k+1+i)*n+k]
		}
		sigma := norm2(col[1:])
		d[k] = re(s[k*n+k])
		if sigma < eighNegligible {
			// Zero below the subdiagonal, or so small that dropping it is far below rounding
			// error (and a reflector built from subnormal numbers would not be unitary):
			// H_k = I.
			tau[k] = 0
			e[k] = col[0]
			clear(s[k*n+k+2 : k*n+n])
			continue
		}
		t, beta := eighHouseholder(col, sigma)
		tau[k], e[k] = t, beta
		col[0] = 1
		copy(s[k*n+k+2:k*n+n], col[1:])

		// B ← H·B·H on the trailing block B = s[k+1:, k+1:], as the Hermitian rank-2 update
		// B − u·qᴴ − q·uᴴ with p = tau·B·u and q = p − (tau/2)(uᴴp)·u (uᴴp is real).
		tt := fromReal[T](t)
		ucol := eighConjOf(col, uc[:m])
		pp := p[:m]
		var pu T
		for i := 0; i < m; i++ {
			row := s[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			var sum T
			cr := col[:len(row)]
			for j, x := range row {
				sum += x * cr[j]
			}
			pp[i] = tt * sum
			pu += pp[i] * ucol[i]
		}
		half := fromReal[T](t / 2 * re(pu))
		for i := range pp {
			pp[i] -= half * col[i]
		}
		pcol := eighConjOf(pp, pc[:m])
		for i := 0; i < m; i++ {
			row := s[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			ui, qi := col[i], pp[i]
			pr, ur := pcol[:len(row)], ucol[:len(row)]
			for j := range row {
				row[j] -= ui*pr[j] + qi*ur[j]
			}
		}
	}
	if n >= 2 {
		d[n-2] = re(s[(n-2)*n+n-2])
		e[n-2] = s[(n-1)*n+n-2]
	}
	d[n-1] = re(s[(n-1)*n+n-1])
}

// eighFormQ returns the n×n row-major Q = H_0·H_1·…·H_{n-3} of the reflectors eighTridiagonalize
// left in s and tau.
func eighFormQ[T Scalar](s []T, n int, tau []float64) []T {
	one := fromReal[T](1)
	q := make([]T, n*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = one
	}
	r := make([]T, n)
	// Applied from the left, last reflector first, H_k only meets rows and columns k+1..n-1 of the
	// product built so far: rows ← rows − tau·u·(uᴴ·rows).
	for k := n - 3; k >= 0; k-- {
		if tau[k] == 0 {
			continue
		}
		t := fromReal[T](tau[k])
		m := n - k - 1
		u := s[k*n+k+1 : k*n+n] // u[0] is read as 1
		rr := r[:m]
		clear(rr)
		for i := 0; i < m; i++ {
			ui := one
			if i > 0 {
				ui = conj(u[i])
			}
			row := q[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			for j, x := range row {
				rr[j] += ui * x
			}
		}
		for i := 0; i < m; i++ {
			ui := one
			if i > 0 {
				ui = u[i]
			}
			f := t * ui
			row := q[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			for j := range row {
				row[j] -= f * rr[j]
			}
		}
	}
	return q
}

// eighTridiagonalQR diagonalises the symmetric tridiagonal matrix with diagonal d and subdiagonal e in
// place by implicit QR sweeps with Wilkinson shifts, leaving the eigenvalues in d, unordered. When zt is
// not nil, each rotation is also applied to the rows of the n×cols row-major zt, so that a zt holding Qᵀ
// on entry holds the transposed eigenvectors (row i for d[i]) of Q·T·Qᵀ on return (Q may be complex,
// n×n, each entry held as two adjacent floats in the rows of cols = 2n). It reports false when
// the sweeps run out. The matrix is expected scaled to a largest entry near 1.
//
// An off-diagonal entry is dropped when it is below ε times its two diagonal neighbours, below
// eighBlockNegligible times the largest entry of its unreduced block (where it changes nothing at
// working precision, and where the bulge it carries would underflow), or below eighNegligible. A block
// whose entries are all small is swept scaled up by a power of two, so that its own eigenvalues come
// out to the accuracy its scale allows rather than the matrix's.
func eighTridiagonalQR(d, e, zt []float64, n, cols int) bool {
	negligible := func(k int) bool {
		x := math.Abs(e[k])
		return x <= eighEps*(math.Abs(d[k])+math.Abs(d[k+1])) || x < eighNegligible
	}
	sweeps := 0
	hi := n - 1
	for hi > 0 {
		if negligible(hi - 1) {
			e[hi-1] = 0
			hi--
			continue
		}
		lo := hi - 1
		for lo > 0 {
			if negligible(lo - 1) {
				e[lo-1] = 0
				break
			}
			lo--
		}
		big := math.Abs(d[hi])
		for k := lo; k < hi; k++ {
			big = max(big, math.Abs(d[k]), math.Abs(e[k]))
		}
		dropped := false
		for k := lo; k < hi; k++ {
			if math.Abs(e[k]) < eighBlockNegligible*big {
				e[k] = 0
				dropped = true
			}
		}
		if dropped {
			continue
		}
		if sweeps >= eighMaxSweepsPerN*n {
			return false
		}
		sweeps++
		if big >= eighSmallBlock {
			eighQRSweep(d, e, zt, cols, lo, hi)
			continue
		}
		_, exp := math.Frexp(big)
		eighScaleBlock(d, e, lo, hi, -exp)
		eighQRSweep(d, e, zt, cols, lo, hi)
		eighScaleBlock(d, e, lo, hi, exp)
	}
	return true
}

// eighScaleBlock multiplies d[lo..hi] and e[lo..hi-1] by 2^exp.
func eighScaleBlock(d, e []float64, lo, hi, exp int) {
	for k := lo; k <= hi; k++ {
		d[k] = math.Ldexp(d[k], exp)
		if k < hi {
			e[k] = math.Ldexp(e[k], exp)
		}
	}
}

// eighQRSweep performs one implicit shifted QR step on the unreduced block lo..hi of the tridiagonal
// matrix (e[lo-1] and e[hi], where they exist, are zero), chasing the bulge from the top down.
func eighQRSweep(d, e, zt []float64, cols, lo, hi int) {
	// Wilkinson shift: the eigenvalue of the trailing 2×2 block nearer its last diagonal entry,
	// written so that e² is never formed.
	g := (d[hi-1] - d[hi]) / (2 * e[hi-1])
	mu := d[hi] - e[hi-1]/(g+math.Copysign(math.Hypot(g, 1), g))

	x, z := d[lo]-mu, e[lo]
	for k := lo; k < hi; k++ {
		// The rotation on rows k, k+1 that maps (x, z) to (r, 0): at k = lo it starts the step,
		// after that it removes the bulge z = T[k+1][k-1].
		c, s, r := eighRotation(x, z)
		if k > lo {
			e[k-1] = r
		}
		dk, dk1, ek := d[k], d[k+1], e[k]
		cs := c * s
		d[k] = c*c*dk + 2*cs*ek + s*s*dk1
		d[k+1] = s*s*dk - 2*cs*ek + c*c*dk1
		e[k] = cs*(dk1-dk) + (c*c-s*s)*ek
		if k+1 < hi {
			z = s * e[k+1] // the new bulge T[k+2][k]
			e[k+1] *= c
			x = e[k]
		}
		if zt != nil {
			rk, rk1 := zt[k*cols:k*cols+cols], zt[(k+1)*cols:(k+1)*cols+cols]
			for j := range rk {
				a, b := rk[j], rk1[j]
				rk[j] = c*a + s*b
				rk1[j] = c*b - s*a
			}
		}
	}
}

// eighRotation returns c, s and r = √(x² + z²) with c·x + s·z = r, −s·x + c·z = 0 and c² + s² = 1 to
// rounding (c, s = 1, 0 when x = z = 0). Subnormal x and z are scaled up first: a subnormal r carries
// too few bits to divide by.
func eighRotation(x, z float64) (c, s, r float64) {
	big := max(math.Abs(x), math.Abs(z))
	if big == 0 {
		return 1, 0, 0
	}
	if big < 0x1p-960 {
		const up = 0x1p1000
		xs, zs := x*up, z*up
		rs := math.Hypot(xs, zs)
		return xs / rs, zs / rs, rs / up
	}
	r = math.Hypot(x, z)
	return x / r, z / r, r
}
