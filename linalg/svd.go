package linalg

import (
	"fmt"
	"math"
	"slices"
)

// svdMaxSweeps bounds the one-sided Jacobi iteration of SVDFloat.
const svdMaxSweeps = 60

// svdSmallSquare is the squared row norm below which the Jacobi rotation of a pair is computed from
// norms and a cosine taken relative to each row's own scale, since plain sums of squares and products
// could lose digits to underflow there.
const svdSmallSquare = 0x1p-900

// svdFlush is the row norm (relative to a largest entry in [1/2, 1)) below which a row is set to zero:
// far below the rounding error of the matrix, and small enough that the multiple of a larger row that
// a rotation subtracts from it could be subnormal, too imprecise to make the pair orthogonal.
const svdFlush = 0x1p-960

// SVDFloat returns the singular values of the m×n row-major matrix a (a not modified), min(m,n) of them in
// descending order, and when uv is true the left and right singular vectors: u m×m and vt n×n when
// full, else u m×k and vt k×n (k = min(m,n)), row-major, with a = u · diag(s) · vt (nil when uv is
// false). ok is false when the iteration did not converge (LAPACK's info > 0), NaN or infinite input
// among the causes: then s, u and vt are filled with NaN. When m or n is 0, s is empty, ok is true, and
// a full u or vt is the identity. SVDFloat panics when m < 0, n < 0 or len(a) != m*n.
//
// Sign convention: for j < k, column j of u has its component of largest magnitude positive (the first
// such component when several share that magnitude), and row j of vt is negated along with it. Singular
// vectors that the matrix does not determine (the left or right ones, whichever are the longer, of zero
// singular values, and the extra columns of a full u or rows of a full vt) complete the others to an
// orthonormal basis deterministically: if Householder reflections H_0, …, H_{r-1} reduce the matrix of
// the r determined vectors (as columns) to upper triangular form, the completing vectors are columns
// r, r+1, … of H_0·…·H_{r-1} (the identity's columns when r = 0). The first k columns of u and rows of
// vt do not depend on full.
//
// Algorithm: the matrix is scaled by a power of two to bring its largest entry into [1/2, 1), then the
// one-sided (Hestenes) Jacobi method orthogonalises the columns of a, or of aᵀ when m < n so that the
// rotated vectors are the longer ones, by plane rotations swept cyclically until every pair's cosine is
// below max(m,n)·ε (at most 60 sweeps). The singular values are the norms of the resulting vectors, to
// high relative accuracy; the singular values do not depend on uv or full. A column (a row when m < n)
// whose norm is below 2⁻⁹⁶⁰ times the largest entry, where rotations could underflow, counts as zero.
func SVDFloat(a []float64, m, n int, uv, full bool) (s, u, vt []float64, ok bool) {
	return svdDecompose("SVDFloat", a, m, n, uv, full)
}

// svdDecompose is SVDFloat for real T and SVDComplex for complex T; name is the function named in the
// panic.
func svdDecompose[T Scalar](name string, a []T, m, n int, uv, full bool) (s []float64, u, vt []T, ok bool) {
	if m < 0 || n < 0 || len(a) != m*n {
		panic(fmt.Sprintf("linalg: %s: len(a) = %d for %d×%d", name, len(a), m, n))
	}
	k := min(m, n)
	ucols, vrows := k, k
	if full {
		ucols, vrows = m, n
	}
	s = make([]float64, k)
	if uv {
		u = make([]T, m*ucols)
		vt = make([]T, vrows*n)
	}
	fail := func() ([]float64, []T, []T, bool) {
		eighFillNaN(s)
		eighFillNaN(u)
		eighFillNaN(vt)
		return s, u, vt, false
	}

	// w holds the vectors to orthogonalise as its p rows of length q: the columns of a when m ≥ n
	// (the rows of aᵀ, not conjugated), the rows of a otherwise. A complex entry takes two adjacent
	// floats, its real and imaginary parts: f floats an entry.
	f := eighFloatsPer[T]()
	tall := m >= n
	p, q := k, max(m, n)
	w := make([]float64, f*p*q)
	amax := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			x := a[i*n+j]
			r, c := re(x), im(x)
			if math.IsNaN(r) || math.IsInf(r, 0) || math.IsNaN(c) || math.IsInf(c, 0) {
				return fail()
			}
			amax = max(amax, math.Abs(r), math.Abs(c))
			o := i*q + j
			if tall {
				o = j*q + i
			}
			w[f*o] = r
			if f == 2 {
				w[f*o+1] = c
			}
		}
	}
	exp := 0
	if amax > 0 {
		_, exp = math.Frexp(amax)
		for i := range w {
			w[i] = math.Ldexp(w[i], -exp)
		}
	}

	// rot accumulates the transformations applied to the rows of w: w = rot·w₀ throughout.
	var rot []float64
	if uv {
		rot = make([]float64, f*p*p)
		for i := 0; i < p; i++ {
			rot[f*(i*p+i)] = 1
		}
	}
	if !svdJacobi(w, p, q, rot, f == 2) {
		return fail()
	}

	sigma := make([]float64, p)
	for i := range sigma {
		sigma[i] = norm2(w[f*i*q : f*(i+1)*q])
	}
	perm := eighSortedOrder(sigma, true)
	for j, i := range perm {
		s[j] = math.Ldexp(sigma[i], exp)
	}
	if !uv {
		return s, u, vt, true
	}

	// Since rot is unitary, w₀ = rotᴴ·w, and the rows of w are σ_i times orthonormal vectors x_i:
	// w₀ = Σ_i σ_i·conj(rot_i)ᵀ·x_i (rot_i the i-th row of rot). When m ≥ n (w₀ = aᵀ) the x_i are the
	// left singular vectors and the conj(rot_i) the rows of vt; when m < n (w₀ = a) the conj(rot_i)
	// are the left ones and the x_i the rows of vt.
	nx := vrows
	if tall {
		nx = ucols
	}
	// The zero singular values come last: the first r of the x_i are determined, the others complete
	// them to an orthonormal set.
	xf := make([]float64, f*nx*q)
	r := 0
	for j, i := range perm {
		if sigma[i] == 0 {
			break
		}
		xi, wi := xf[f*j*q:f*(j+1)*q], w[f*i*q:f*(i+1)*q]
		for c := range xi {
			xi[c] = wi[c] / sigma[i]
		}
		r++
	}
	x := eighScalarsOf[T](xf)
	svdComplete(x, r, nx, q)
	yf := make([]float64, f*p*p)
	for j, i := range perm {
		copy(yf[f*j*p:f*(j+1)*p], rot[f*i*p:f*(i+1)*p])
	}
	y := eighScalarsOf[T](yf)
	y = eighConjOf(y, y)

	for j := 0; j < k; j++ {
		xj, yj := x[j*q:j*q+q], y[j*p:j*p+p]
		if tall {
			eighPositiveLargest(xj, yj)
		} else {
			eighPositiveLargest(yj, xj)
		}
	}
	if tall {
		for j := 0; j < ucols; j++ {
			for r, v := range x[j*q : j*q+q] {
				u[r*ucols+j] = v
			}
		}
		copy(vt, y)
	} else {
		for j := 0; j < p; j++ {
			for r, v := range y[j*p : j*p+p] {
				u[r*ucols+j] = v
			}
		}
		copy(vt, x)
	}
	return s, u, vt, true
}

// svdJacobi orthogonalises the p rows of length q of the row-major w by one-sided Jacobi rotations,
// applying each transformation to the rows of the p×p rot as well when rot is not nil. When cplx is
// true the entries of w and rot are complex, each held as its real and imaginary parts side by side
// (rows of 2q and 2p floats), and the transformations are the unitary [[c, −s·ph], [s·conj(ph), c]]. It reports false when the sweeps run out before a sweep finds every pair orthogonal to
// the tolerance.
func svdJacobi(w []float64, p, q int, rot []float64, cplx bool) bool {
	tol := float64(q) * eighEps
	wq, rp := q, p
	if cplx {
		wq, rp = 2*q, 2*p
	}
	for range svdMaxSweeps {
		rotated := false
		for i := 0; i+1 < p; i++ {
			wi := w[i*wq : i*wq+wq]
			for j := i + 1; j < p; j++ {
				wj := w[j*wq : j*wq+wq]
				c, s, ph, do := svdPairRotation(wi, wj, tol, cplx)
				if !do {
					continue
				}
				rotated = true
				if !cplx {
					svdRotate(wi, wj, c, s)
					if rot != nil {
						svdRotate(rot[i*rp:i*rp+rp], rot[j*rp:j*rp+rp], c, s)
					}
					continue
				}
				sp := complex(s, 0) * ph
				svdRotateComplex(wi, wj, c, sp)
				if rot != nil {
					svdRotateComplex(rot[i*rp:i*rp+rp], rot[j*rp:j*rp+rp], c, sp)
				}
			}
		}
		if !rotated {
			return true
		}
	}
	return false
}

// svdPairRotation returns the rotation (c, s) and the unit ph that make x' = c·x − s·y₁ and
// y' = s·x + c·y₁ orthogonal, y₁ = ph·y (ph = 1 when real; then y” = conj(ph)·y' = s·conj(ph)·x + c·y
// is orthogonal to x' too), and whether x and y are far enough from orthogonal (cosine above tol) to
// need it. A row of norm below svdFlush is set to zero instead. When
// cplx is true, x and y hold complex vectors as interleaved real and imaginary parts.
func svdPairRotation(x, y []float64, tol float64, cplx bool) (c, s float64, ph complex128, do bool) {
	ph = 1
	var xx, yy, xy float64
	if cplx {
		var xyi float64
		xx, yy, xy, xyi = svdComplexSums(x, y, 1, 1)
		xy, ph = svdUnitPhase(xy, xyi)
	} else {
		for i, a := range x {
			b := y[i]
			xx += a * a
			yy += b * b
			xy += a * b
		}
	}
	// t = s/c is the smaller root of t² + 2ζt − 1 = 0, ζ = (‖y‖² − ‖x‖²)/(2·x·y₁), which zeroes the
	// new inner product.
	var t float64
	if xx >= svdSmallSquare && yy >= svdSmallSquare {
		if math.Abs(xy) <= tol*math.Sqrt(xx)*math.Sqrt(yy) {
			return 1, 0, 1, false
		}
		zeta := (yy - xx) / (2 * xy)
		t = math.Copysign(1, zeta) / (math.Abs(zeta) + math.Hypot(1, zeta))
	} else {
		nx, ny := norm2(x), norm2(y)
		if nx < svdFlush {
			clear(x)
			nx = 0
		}
		if ny < svdFlush {
			clear(y)
			ny = 0
		}
		if nx == 0 || ny == 0 {
			return 1, 0, 1, false
		}
		rx, ry := 1/nx, 1/ny
		cos := 0.0
		if cplx {
			var cosi float64
			_, _, cos, cosi = svdComplexSums(x, y, rx, ry)
			cos, ph = svdUnitPhase(cos, cosi)
		} else {
			for i, a := range x {
				cos += (a * rx) * (y[i] * ry)
			}
		}
		if math.Abs(cos) <= tol {
			return 1, 0, 1, false
		}
		// Here ζ = (ny/nx − nx/ny)/(2·cos) can overflow when the norms are far apart, but 1/ζ
		// cannot, and t = (1/ζ)/(1 + √(1 + 1/ζ²)).
		if num := ny/nx - nx/ny; num == 0 {
			t = math.Copysign(1, cos)
		} else {
			iz := 2 * cos / num
			t = iz / (1 + math.Hypot(1, iz))
		}
	}
	c = 1 / math.Sqrt(1+t*t)
	return c, c * t, ph, true
}

// svdRotate replaces x and y with c·x − s·y and s·x + c·y.
func svdRotate(x, y []float64, c, s float64) {
	for i, a := range x {
		b := y[i]
		x[i] = c*a - s*b
		y[i] = s*a + c*b
	}
}

// svdComplete fills rows r..rows-1 of the rows×q row-major x (rows ≤ q), given orthonormal rows
// 0..r-1, so that all rows are orthonormal. With Householder reflections H_0, …, H_{r-1} (H_j = Hᴴ_j)
// that reduce the q×r matrix whose columns are the given rows to upper triangular form, row c is column
// c of Q = H_0·…·H_{r-1}, which is orthogonal to the first r columns of Q and so to the given rows.
func svdComplete[T Scalar](x []T, r, rows, q int) {
	if r == rows {
		return
	}
	h := slices.Clone(x[:r*q]) // row j: the reflector vector of H_j in h[j*q+j+1:], its head 1 implied
	tau := make([]float64, r)
	for j := 0; j < r; j++ {
		col := h[j*q : j*q+q]
		sigma := norm2(col[j+1:])
		if sigma == 0 {
			continue
		}
		t, beta := eighHouseholder(col[j:], sigma)
		tau[j] = t
		col[j] = beta
		for i := j + 1; i < r; i++ {
			svdReflect(h[i*q:i*q+q], col, j, t)
		}
	}
	for c := r; c < rows; c++ {
		y := x[c*q : c*q+q]
		clear(y)
		y[c] = fromReal[T](1)
		for j := r - 1; j >= 0; j-- {
			svdReflect(y, h[j*q:j*q+q], j, tau[j])
		}
	}
}

// svdReflect applies I − tau·v·vᴴ to y, where v is zero before index j, 1 at j and v[j+1:] after.
func svdReflect[T Scalar](y, v []T, j int, tau float64) {
	if tau == 0 {
		return
	}
	dot := svdDotConj(y[j], v[j+1:], y[j+1:])
	f := fromReal[T](tau) * dot
	y[j] -= f
	for i := j + 1; i < len(y); i++ {
		y[i] -= f * v[i]
	}
}
