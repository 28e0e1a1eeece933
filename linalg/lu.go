package linalg

// LU factors the m×n row-major matrix a in place as P·a = L·U, by Gaussian elimination with partial
// pivoting as LAPACK's getrf defines it: at step j the pivot is the first entry of largest magnitude
// (abs1) in column j at or below the diagonal, its row is swapped with row j, and the entries below the
// diagonal are divided by it. On return a holds U in its upper triangle and L (unit diagonal, not stored)
// below it; ipiv[j] is the row (0-based) swapped with row j at step j, for j < min(m, n). info is 0, or
// j+1 for the first exactly zero pivot U[j][j], as LAPACK's info; the factorization is completed anyway
// (that column is not divided).
func LU[T Scalar](a []T, m, n int) (ipiv []int, info int) {
	return LUPivoted(a, m, n, false)
}

// LUPivoted is LU with the pivot of largest modulus |x| (math.Hypot of a complex entry's parts) instead
// of LAPACK's |re| + |im| when modulus is set: for real matrices the two are the same. cuBLAS's batched
// getrf pivots complex matrices so (measured on an H200: every pivot of six 20 x 20 matrices).
func LUPivoted[T Scalar](a []T, m, n int, modulus bool) (ipiv []int, info int) {
	mag := abs1[T]
	if modulus {
		mag = absModulus[T]
	}
	k := min(m, n)
	ipiv = make([]int, k)
	for j := 0; j < k; j++ {
		p, best := j, mag(a[j*n+j])
		for i := j + 1; i < m; i++ {
			if v := mag(a[i*n+j]); v > best {
				p, best = i, v
			}
		}
		ipiv[j] = p
		if a[p*n+j] != 0 {
			if p != j {
				rp, rj := a[p*n:p*n+n], a[j*n:j*n+n]
				for c := range rp {
					rp[c], rj[c] = rj[c], rp[c]
				}
			}
			pivot := a[j*n+j]
			for i := j + 1; i < m; i++ {
				a[i*n+j] /= pivot
			}
		} else if info == 0 {
			info = j + 1
		}
		rj := a[j*n : j*n+n]
		for i := j + 1; i < m; i++ {
			l := a[i*n+j]
			ri := a[i*n : i*n+n]
			for c := j + 1; c < n; c++ {
				ri[c] -= l * rj[c]
			}
		}
	}
	return ipiv, info
}

// PivotsToPermutation returns the permutation of 0..size-1 that the row swaps ipiv (0-based, as LU
// returns them) make when applied in order: row i of P·a is row perm[i] of a. A pivot outside 0..size-1
// swaps nothing.
func PivotsToPermutation(ipiv []int, size int) []int {
	perm := make([]int, size)
	for i := range perm {
		perm[i] = i
	}
	for i, p := range ipiv {
		if i < size && p >= 0 && p < size {
			perm[i], perm[p] = perm[p], perm[i]
		}
	}
	return perm
}
