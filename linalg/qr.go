package linalg

import "math"

// QR factors the m×n row-major matrix a in place by Householder reflections as LAPACK's geqrf defines
// them: a = Q·R with Q = H(0)·H(1)···H(k-1), k = min(m, n), H(j) = I - tau[j]·v·vᴴ, v[j] = 1 and v's
// entries below row j stored below the diagonal of column j, R in the upper triangle. Each reflector is
// LAPACK's larfg: for alpha = a[j][j] and x the entries below it, beta = -sign(re alpha)·‖(alpha, x)‖,
// tau = (beta - alpha)/beta, v = x/(alpha - beta), R[j][j] = beta; when x is zero and alpha real, tau is 0
// (H(j) = I, R[j][j] = alpha whatever its sign).
func QR[T Scalar](a []T, m, n int) (tau []T) {
	k := min(m, n)
	tau = make([]T, k)
	col := make([]T, m)
	for j := 0; j < k; j++ {
		alpha := a[j*n+j]
		x := col[:m-j-1]
		for i := range x {
			x[i] = a[(j+1+i)*n+j]
		}
		xnorm := norm2(x)
		if xnorm == 0 && im(alpha) == 0 {
			continue
		}
		beta := -math.Copysign(norm2([]float64{re(alpha), im(alpha), xnorm}), re(alpha))
		var t T
		switch any(t).(type) {
		case complex128:
			t = any(complex((beta-re(alpha))/beta, -im(alpha)/beta)).(T)
		default:
			t = fromReal[T]((beta - re(alpha)) / beta)
		}
		tau[j] = t
		d := alpha - fromReal[T](beta)
		for i := j + 1; i < m; i++ {
			a[i*n+j] /= d
		}
		a[j*n+j] = fromReal[T](beta)
		// Apply H(j)ᴴ = I - conj(tau)·v·vᴴ to the columns on the right.
		reflect(a, n, j+1, n, a, n, j, m, conj(t))
	}
	return tau
}

// reflect applies I - tau·v·vᴴ to columns c0..c1-1 of the row-major x (ld columns a row, m rows): v is
// column j of the row-major v (ldv columns a row) from row j down, its entry j taken as 1.
func reflect[T Scalar](x []T, ld, c0, c1 int, v []T, ldv, j, m int, tau T) {
	for c := c0; c < c1; c++ {
		w := x[j*ld+c]
		for i := j + 1; i < m; i++ {
			w += conj(v[i*ldv+j]) * x[i*ld+c]
		}
		w *= tau
		x[j*ld+c] -= w
		for i := j + 1; i < m; i++ {
			x[i*ld+c] -= v[i*ldv+j] * w
		}
	}
}

// HouseholderProduct returns the m×n row-major matrix of the first n columns of Q = H(0)·H(1)···H(k-1),
// k = len(tau), the reflectors stored in a's columns below the diagonal as QR leaves them (LAPACK's orgqr
// and ungqr): Q's columns are orthonormal. It needs m >= n >= k; a is not modified.
func HouseholderProduct[T Scalar](a []T, m, n int, tau []T) []T {
	q := make([]T, m*n)
	for i := 0; i < n; i++ {
		q[i*n+i] = 1
	}
	for j := len(tau) - 1; j >= 0; j-- {
		t := tau[j]
		if t == 0 {
			continue
		}
		// q = H(j)·q = q - tau·v·(vᴴ·q), v[j] = 1, v[i] = a[i][j] below.
		reflect(q, n, 0, n, a, n, j, m, t)
	}
	return q
}
