package linalg

import "math"

// SVDComplex returns the singular values of the m×n complex row-major matrix a (a not modified), min(m,n)
// of them, real, in descending order, and when uv is true the left and right singular vectors: u m×m and
// vt n×n when full, else u m×k and vt k×n (k = min(m,n)), row-major, unitary (their columns and rows
// orthonormal), with vt = Vᴴ and a = u · diag(s) · vt (nil when uv is false). ok is false when the
// iteration did not converge (LAPACK's info > 0), NaN or infinite input (in either part) among the
// causes: then s, u and vt are filled with NaN. When m or n is 0, s is empty, ok is true, and a full u or
// vt is the identity. SVDComplex panics when m < 0, n < 0 or len(a) != m*n.
//
// Phase convention: for j < k, column j of u has its component of largest magnitude real and positive
// (the first such component when several share that magnitude), and row j of vt is multiplied by the
// conjugate of the phase that made it so, leaving u·diag(s)·vt unchanged. Singular vectors that the
// matrix does not determine are completed as SVDFloat completes them, with the reflections
// I − τ·v·vᴴ (τ real) of a complex Householder QR. The first k columns of u and rows of vt do not
// depend on full.
//
// Algorithm: as SVDFloat's, with the matrix scaled so that its largest real or imaginary part lies in
// [1/2, 1), and each pair (x, y) of vectors made orthogonal by the complex rotation
// [[c, −s·ph], [s·conj(ph), c]], ph = conj(⟨x, y⟩)/|⟨x, y⟩| (⟨x, y⟩ = xᴴ·y), where (c, s) is the real
// rotation that diagonalises the real 2×2 Gram matrix of x and ph·y. The singular values do not depend on uv or full.
func SVDComplex(a []complex128, m, n int, uv, full bool) (s []float64, u, vt []complex128, ok bool) {
	return svdDecompose("SVDComplex", a, m, n, uv, full)
}

// svdComplexSums returns ‖x‖², ‖y‖² and the real and imaginary parts of xᴴ·y for the complex vectors
// rx·x and ry·y held as interleaved real and imaginary parts.
func svdComplexSums(x, y []float64, rx, ry float64) (xx, yy, xyr, xyi float64) {
	for i := 0; i+1 < len(x); i += 2 {
		a0, a1 := x[i]*rx, x[i+1]*rx
		b0, b1 := y[i]*ry, y[i+1]*ry
		xx += a0*a0 + a1*a1
		yy += b0*b0 + b1*b1
		xyr += a0*b0 + a1*b1
		xyi += a0*b1 - a1*b0
	}
	return xx, yy, xyr, xyi
}

// svdUnitPhase returns |g| and conj(g)/|g| (1 when g = 0) for g = r + i·m.
func svdUnitPhase(r, m float64) (abs float64, ph complex128) {
	abs = math.Hypot(r, m)
	if abs == 0 {
		return 0, 1
	}
	return abs, complex(r/abs, -m/abs)
}

// svdRotateComplex replaces the complex vectors x and y, held as interleaved real and imaginary parts,
// with c·x − sp·y and conj(sp)·x + c·y.
func svdRotateComplex(x, y []float64, c float64, sp complex128) {
	sr, si := real(sp), imag(sp)
	for i := 0; i+1 < len(x); i += 2 {
		ar, ai, br, bi := x[i], x[i+1], y[i], y[i+1]
		x[i], x[i+1] = c*ar-(sr*br-si*bi), c*ai-(sr*bi+si*br)
		y[i], y[i+1] = sr*ar+si*ai+c*br, sr*ai-si*ar+c*bi
	}
}

// svdDotConj returns acc + Σ conj(v[i])·y[i], summed in index order.
func svdDotConj[T Scalar](acc T, v, y []T) T {
	if vc, ok := any(v).([]complex128); ok {
		yc, sum := any(y).([]complex128), any(acc).(complex128)
		for i, x := range vc {
			sum += complex(real(x), -imag(x)) * yc[i]
		}
		return any(sum).(T)
	}
	for i, x := range v {
		acc += x * y[i]
	}
	return acc
}
