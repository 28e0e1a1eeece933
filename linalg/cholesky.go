package linalg

import "math"

// Cholesky factors the n×n Hermitian positive definite matrix held in a's lower (lower=true) or upper
// triangle in place, as LAPACK's potrf: a = L·Lᴴ with L lower triangular written over the lower triangle,
// or a = Uᴴ·U with U upper triangular over the upper one; the other triangle is neither read nor written.
// Column by column (row by row for U), the diagonal entry is the square root of what remains of a's after
// the columns before it; where that is not positive (or is NaN) the factorization stops there, leaving
// that value in the diagonal entry and the later columns as they were, and info is the column's number
// (1-based), as LAPACK's info. info is 0 when the factorization completes.
func Cholesky[T Scalar](a []T, n int, lower bool) (info int) {
	return cholesky(a, n, lower, true)
}

// CholeskyThrough factors as Cholesky does but does not stop where a diagonal entry is not positive: the
// square root of a negative number is NaN, which then spreads through the later columns (as XLA's
// cholesky instruction's expansion does). The other triangle is set to zeros.
func CholeskyThrough[T Scalar](a []T, n int, lower bool) {
	cholesky(a, n, lower, false)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if lower && j > i || !lower && j < i {
				a[i*n+j] = 0
			}
		}
	}
}

func cholesky[T Scalar](a []T, n int, lower, stop bool) (info int) {
	// at(i, j) is L[i][j] (j <= i): a[i][j] for lower, conj(a[j][i]) for upper.
	at := func(i, j int) T {
		if lower {
			return a[i*n+j]
		}
		return conj(a[j*n+i])
	}
	set := func(i, j int, v T) {
		if lower {
			a[i*n+j] = v
		} else {
			a[j*n+i] = conj(v)
		}
	}
	for j := 0; j < n; j++ {
		d := re(at(j, j))
		for k := 0; k < j; k++ {
			l := at(j, k)
			d -= re(l)*re(l) + im(l)*im(l)
		}
		if !(d > 0) && stop {
			set(j, j, fromReal[T](d))
			return j + 1
		}
		d = math.Sqrt(d)
		set(j, j, fromReal[T](d))
		for i := j + 1; i < n; i++ {
			s := at(i, j)
			for k := 0; k < j; k++ {
				s -= at(i, k) * conj(at(j, k))
			}
			set(i, j, s/fromReal[T](d))
		}
	}
	return 0
}
