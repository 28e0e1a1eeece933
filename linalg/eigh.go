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
	if n < 0 || len(a) != n*n {
		panic(fmt.Sprintf("linalg: EighFloat: len(a) = %d for n = %d", len(a), n))
	}
	w = make([]float64, n)
	if vectors {
		v = make([]float64, n*n)
	}
	if n == 0 {
		return w, v, true
	}

	// The full symmetric matrix, from the named triangle only.
	s := make([]float64, n*n)
	amax := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			x := a[j*n+i]
			if lower {
				x = a[i*n+j]
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				eighFillNaN(w, v)
				return w, v, false
			}
			s[i*n+j], s[j*n+i] = x, x
			amax = max(amax, math.Abs(x))
		}
	}
	exp := 0
	if amax > 0 {
		_, exp = math.Frexp(amax)
		for i := range s {
			s[i] = math.Ldexp(s[i], -exp)
		}
	}

	d := make([]float64, n)
	e := make([]float64, max(n-1, 0))
	tau := make([]float64, max(n-2, 0))
	eighTridiagonalize(s, n, d, e, tau)

	var zt []float64
	if vectors {
		zt = eighFormQ(s, n, tau)
		eighTransposeSquare(zt, n)
	}
	if !eighTridiagonalQR(d, e, zt, n) {
		eighFillNaN(w, v)
		return w, v, false
	}

	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(i, j int) int {
		switch {
		case d[i] < d[j]:
			return -1
		case d[i] > d[j]:
			return 1
		}
		return 0
	})
	for j, p := range perm {
		w[j] = math.Ldexp(d[p], exp)
		if vectors {
			row := zt[p*n : p*n+n]
			eighPositiveLargest(row, nil)
			for r, x := range row {
				v[r*n+j] = x
			}
		}
	}
	return w, v, true
}

// eighFillNaN sets every element of x and y to NaN.
func eighFillNaN(x, y []float64) {
	nan := math.NaN()
	for i := range x {
		x[i] = nan
	}
	for i := range y {
		y[i] = nan
	}
}

// eighPositiveLargest negates x (and partner, which may be nil) when x's first component of largest
// magnitude is negative.
func eighPositiveLargest(x, partner []float64) {
	best, big := 0, -1.0
	for i, v := range x {
		if a := math.Abs(v); a > big {
			best, big = i, a
		}
	}
	if len(x) == 0 || x[best] >= 0 {
		return
	}
	for i := range x {
		x[i] = -x[i]
	}
	for i := range partner {
		partner[i] = -partner[i]
	}
}

// eighTransposeSquare transposes the n×n row-major matrix x in place.
func eighTransposeSquare(x []float64, n int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			x[i*n+j], x[j*n+i] = x[j*n+i], x[i*n+j]
		}
	}
}

// eighTridiagonalize reduces the full symmetric n×n matrix s to the tridiagonal T = Qᵀ·s·Q with
// diagonal d and subdiagonal e (e[i] = T[i+1][i]), Q = H_0·H_1·…·H_{n-3}. The reflector
// H_k = I − tau[k]·u·uᵀ acts on indices k+1..n-1, with u[k+1] = 1 and u[k+2:] stored in
// s[k][k+2:]; the rest of s is overwritten.
func eighTridiagonalize(s []float64, n int, d, e, tau []float64) {
	p := make([]float64, n)
	u := make([]float64, n)
	for k := 0; k+2 < n; k++ {
		m := n - k - 1 // length of the column below the diagonal
		col := u[:m]
		for i := range col {
			col[i] = s[(k+1+i)*n+k]
		}
		alpha := col[0]
		sigma := norm2(col[1:])
		d[k] = s[k*n+k]
		if sigma < eighNegligible {
			// Zero below the subdiagonal, or so small that dropping it is far below rounding
			// error (and a reflector built from subnormal numbers would not be orthogonal):
			// H_k = I.
			tau[k] = 0
			e[k] = alpha
			clear(s[k*n+k+2 : k*n+n])
			continue
		}
		beta := -math.Copysign(math.Hypot(alpha, sigma), alpha)
		tau[k] = (beta - alpha) / beta
		e[k] = beta
		inv := alpha - beta // |alpha − beta| ≥ |beta|: no cancellation
		col[0] = 1
		for i := 1; i < m; i++ {
			col[i] /= inv
		}
		copy(s[k*n+k+2:k*n+n], col[1:])

		// B ← H·B·H on the trailing block B = s[k+1:, k+1:], as the symmetric rank-2 update
		// B − u·qᵀ − q·uᵀ with p = tau·B·u and q = p − (tau/2)(pᵀu)·u.
		t := tau[k]
		pp := p[:m]
		pu := 0.0
		for i := 0; i < m; i++ {
			row := s[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			sum := 0.0
			for j, x := range row {
				sum += x * col[j]
			}
			pp[i] = t * sum
			pu += pp[i] * col[i]
		}
		half := t / 2 * pu
		for i := range pp {
			pp[i] -= half * col[i]
		}
		for i := 0; i < m; i++ {
			row := s[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			ui, qi := col[i], pp[i]
			for j := range row {
				row[j] -= ui*pp[j] + qi*col[j]
			}
		}
	}
	if n >= 2 {
		d[n-2] = s[(n-2)*n+n-2]
		e[n-2] = s[(n-1)*n+n-2]
	}
	d[n-1] = s[(n-1)*n+n-1]
}

// eighFormQ returns the n×n row-major Q = H_0·H_1·…·H_{n-3} of the reflectors eighTridiagonalize
// left in s and tau.
func eighFormQ(s []float64, n int, tau []float64) []float64 {
	q := make([]float64, n*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
	}
	r := make([]float64, n)
	// Applied from the left, last reflector first, H_k only meets rows and columns k+1..n-1 of the
	// product built so far.
	for k := n - 3; k >= 0; k-- {
		t := tau[k]
		if t == 0 {
			continue
		}
		m := n - k - 1
		u := s[k*n+k+1 : k*n+n] // u[0] is read as 1
		rr := r[:m]
		clear(rr)
		for i := 0; i < m; i++ {
			ui := 1.0
			if i > 0 {
				ui = u[i]
			}
			row := q[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			for j, x := range row {
				rr[j] += ui * x
			}
		}
		for i := 0; i < m; i++ {
			ui := 1.0
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
// not nil, each rotation is also applied to the rows of the n×n row-major zt, so that a zt holding Qᵀ on
// entry holds the transposed eigenvectors (row i for d[i]) of Q·T·Qᵀ on return. It reports false when
// the sweeps run out. The matrix is expected scaled to a largest entry near 1.
//
// An off-diagonal entry is dropped when it is below ε times its two diagonal neighbours, below
// eighBlockNegligible times the largest entry of its unreduced block (where it changes nothing at
// working precision, and where the bulge it carries would underflow), or below eighNegligible. A block
// whose entries are all small is swept scaled up by a power of two, so that its own eigenvalues come
// out to the accuracy its scale allows rather than the matrix's.
func eighTridiagonalQR(d, e, zt []float64, n int) bool {
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
			eighQRSweep(d, e, zt, n, lo, hi)
			continue
		}
		_, exp := math.Frexp(big)
		eighScaleBlock(d, e, lo, hi, -exp)
		eighQRSweep(d, e, zt, n, lo, hi)
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
func eighQRSweep(d, e, zt []float64, n, lo, hi int) {
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
			rk, rk1 := zt[k*n:k*n+n], zt[(k+1)*n:(k+1)*n+n]
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
