package linalg

import "math/cmplx"

// SchurComplex returns the complex Schur decomposition a = z · t · zᴴ of the n×n complex matrix a
// (row-major, not modified), as LAPACK's zgees computes it with jobvs = 'V' (or 'N' when vectors is false)
// and no sorting: t is upper triangular, everything below its diagonal exactly zero; z is unitary, nil when
// vectors is false. w holds the eigenvalues in the order of t's diagonal: w[i] is t[i,i] bit for bit.
//
// The method: the matrix is scaled by a power of two that brings the largest magnitude of a real or
// imaginary part of an entry into [0.5, 1) (exact, and it keeps 1e300 or 1e-300 entries from overflowing or
// underflowing), reduced to upper Hessenberg form by complex Householder reflections, and brought to
// triangular form by the single-shift complex QR iteration, a bulge chased by 2×2 reflections, with the
// Wilkinson shift (the eigenvalue of the trailing 2×2 block nearer its last diagonal entry). It deflates
// from the bottom (a subdiagonal entry is set to zero when its |re| + |im| is below 2⁻⁵² times the sum of
// those of its two diagonal neighbours), takes an exceptional shift after every 5 iterations without
// deflation and stops after 100·max(n, 10) iterations in all, so that its time is O(n³) on every input.
// Nothing is balanced, as for SchurFloat. t is the same, bit for bit, whether vectors is true or false.
//
// ok is false when the iteration did not converge within that limit (LAPACK's info > 0), or at once when a
// holds a NaN or an infinity in either part; t and w (and z when vectors is true) are then filled with
// complex NaNs. n = 0 gives empty results and ok. SchurComplex panics when n < 0 or len(a) ≠ n·n.
func SchurComplex(a []complex128, n int, vectors bool) (t, z []complex128, w []complex128, ok bool) {
	schurCheckShape("SchurComplex", a, n)
	t, z, e, ok := schurScaled(a, n, vectors, schurComplexQR)
	if !ok {
		t, w = schurNaN[complex128](n*n), schurNaN[complex128](n)
		if vectors {
			z = schurNaN[complex128](n * n)
		}
		return t, z, w, false
	}
	schurUnscale(t, e)
	return t, z, schurDiagonal(t, n), true
}

// EigComplex returns the eigenvalues w of the n×n complex matrix a (row-major, not modified), in the order
// SchurComplex gives them (bit for bit the same), and, when left or right is true, the left or right
// eigenvectors as n×n row-major matrices whose column j belongs to w[j] (nil otherwise): right,
// a·v = λ·v; left, uᴴ·a = λ·uᴴ. This is what LAPACK's zgeev computes, except that zgeev balances a first
// and this function does not, and that the order of the eigenvalues is the one this QR iteration produces.
//
// The eigenvectors come from back-substitution on the triangular Schur form t for each eigenvalue (a left
// one on the conjugate transpose of t, for conj(λ)), a pivot smaller than 2⁻⁵² times the largest part of an
// entry of t replaced by that size, multiplied by the Schur vectors z. Each is normalised to Euclidean
// norm 1 with its component of largest magnitude (the first such, magnitudes within a relative 2⁻⁵⁰ of
// the largest counting as equal) real and positive. For a defective
// eigenvalue the vectors are as back-substitution gives them: they satisfy the residual bounds but are
// close to parallel.
//
// ok is false as for SchurComplex, w and the requested vectors then filled with complex NaNs. EigComplex
// panics when n < 0 or len(a) ≠ n·n.
func EigComplex(a []complex128, n int, left, right bool) (w []complex128, vl, vr []complex128, ok bool) {
	schurCheckShape("EigComplex", a, n)
	t, z, e, ok := schurScaled(a, n, left || right, schurComplexQR)
	if !ok {
		vl, vr = schurNaNVectors(n, left, right)
		return schurNaN[complex128](n), vl, vr, false
	}
	w = schurDiagonal(t, n)
	schurUnscale(w, e)
	vl, vr = schurBothVectors(t, z, n, make([]bool, n), false, left, right)
	return w, vl, vr, true
}

// schurDiagonal returns the diagonal of the n×n t.
func schurDiagonal(t []complex128, n int) []complex128 {
	w := make([]complex128, n)
	for i := range w {
		w[i] = t[i*n+i]
	}
	return w
}

// schurComplexQR brings the upper Hessenberg t to upper triangular form in place by the single-shift
// complex QR iteration, applying every transformation to the whole of t (and to z when not nil). It
// returns false when schurIterationLimit(n) iterations did not suffice.
func schurComplexQR(t, z []complex128, n int) bool {
	limit := schurIterationLimit(n)
	total, its := 0, 0
	for hi := n - 1; hi > 0; {
		l := schurActiveBlock(t, n, hi)
		if l == hi {
			hi--
			its = 0
			continue
		}
		if total >= limit {
			return false
		}
		var mu complex128
		switch {
		case its > 0 && its%10 == 5:
			// An exceptional shift near the bottom of the block, off the line through t[hi,hi] in any axis
			// direction, at a distance that follows the subdiagonal entries there: it breaks the cycles in
			// which the standard shift can be caught (a cyclic permutation's, whose eigenvalues are all as
			// far from it).
			s := abs1(t[hi*n+hi-1])
			if hi-2 >= l {
				s += abs1(t[(hi-1)*n+hi-2])
			}
			mu = t[hi*n+hi] + complex(0.75*s, 0.4*s)
		case its > 0 && its%10 == 0:
			// An exceptional shift near the top of the block.
			s := abs1(t[(l+1)*n+l])
			if l+2 <= hi {
				s += abs1(t[(l+2)*n+l+1])
			}
			mu = t[l*n+l] + complex(0.75*s, -0.4*s)
		default:
			mu = schurWilkinson(t[(hi-1)*n+hi-1], t[(hi-1)*n+hi], t[hi*n+hi-1], t[hi*n+hi])
		}
		schurComplexSweep(t, z, n, l, hi, mu)
		total++
		its++
	}
	return true
}

// schurWilkinson returns the eigenvalue of [[a, b], [c, d]] nearer d: d + x for the root x of smaller
// magnitude of x² - 2h·x - b·c = 0, h = (a - d)/2, computed as -b·c/(h + r) with r = ±sqrt(h² + b·c)
// turned towards h (no cancellation in h + r). The entries are divided by their size first, against
// overflow and underflow.
func schurWilkinson(a, b, c, d complex128) complex128 {
	s := abs1(a) + abs1(b) + abs1(c) + abs1(d)
	if s == 0 {
		return 0
	}
	f := complex(1/s, 0)
	a, b, c, d = a*f, b*f, c*f, d*f
	h := 0.5 * (a - d)
	bc := b * c
	r := cmplx.Sqrt(h*h + bc)
	if real(h)*real(r)+imag(h)*imag(r) < 0 {
		r = -r
	}
	den := h + r
	if den == 0 {
		// h = 0 and b·c = 0: both eigenvalues are d.
		return d * complex(s, 0)
	}
	return (d - bc/den) * complex(s, 0)
}

// schurComplexSweep does one single-shift QR step with shift mu on the unreduced block l..hi (hi > l) of
// the Hessenberg t: a reflection on rows l, l+1 that makes the first column of the block proportional to
// that of t - mu, then reflections on rows k, k+1 that chase the bulge at t[k+1, k-1] down and off the
// block.
func schurComplexSweep(t, z []complex128, n, l, hi int, mu complex128) {
	var v [2]complex128
	for k := l; k < hi; k++ {
		if k == l {
			v[0], v[1] = t[l*n+l]-mu, t[(l+1)*n+l]
		} else {
			v[0], v[1] = t[k*n+k-1], t[(k+1)*n+k-1]
		}
		tau, beta := schurReflector(v[:])
		if k > l {
			t[k*n+k-1] = beta
			t[(k+1)*n+k-1] = 0
		}
		if tau == 0 {
			continue
		}
		schurReflect2(t, z, n, k, min(k+2, hi), tau, v[1])
	}
}
