package linalg

import (
	"math"
	"math/cmplx"
)

// EighComplex returns the eigenvalues of the n×n complex Hermitian matrix held in a's lower (lower=true)
// or upper triangle (row-major, a[i*n+j]; the other triangle is not read, the imaginary parts of the
// diagonal are taken as zero whatever they hold, and a is not modified), in ascending order, and, when
// vectors is true, an n×n row-major matrix whose column j is a unit eigenvector for eigenvalue j (nil
// otherwise). ok is false when the iteration did not converge (LAPACK's info > 0), NaN or infinite input
// among the causes: then w and v are filled with NaN. n = 0 gives empty results and ok. EighComplex
// panics when n < 0 or len(a) != n*n.
//
// Phase convention: each eigenvector's component of largest magnitude is real and positive (the first
// such component when several share that magnitude). Equal eigenvalues keep the order the iteration
// leaves them in, so their eigenvectors are one deterministic orthonormal basis of the eigenspace.
//
// The matrix is scaled by a power of two to bring its largest real or imaginary part into [1/2, 1),
// reduced to a tridiagonal matrix with real diagonal by Householder reflections I − τ·u·uᴴ (τ real),
// whose subdiagonal a diagonal unitary matrix of phases makes real and non-negative; that real symmetric
// tridiagonal matrix is diagonalised by EighFloat's implicit QR iteration (capped at 30·n sweeps), and its
// eigenvectors are carried back through the phases and reflections. The eigenvalues do not depend on
// vectors: both settings give the same bits.
func EighComplex(a []complex128, n int, lower, vectors bool) (w []float64, v []complex128, ok bool) {
	return eighDecompose("EighComplex", a, n, lower, vectors)
}

// eighPhases returns |e| and the phases p (|p[i]| = 1, p[0] = 1) with conj(p[i+1])·e[i]·p[i] = |e[i]|:
// for the Hermitian tridiagonal T with subdiagonal e, diag(p)ᴴ·T·diag(p) is real, with subdiagonal |e|.
func eighPhases(e []complex128) (abs []float64, p []complex128) {
	abs = make([]float64, len(e))
	p = make([]complex128, len(e)+1)
	p[0] = 1
	for i, x := range e {
		a := cmplx.Abs(x)
		abs[i] = a
		next := p[i]
		if a > 0 {
			next *= eighUnitOf(x)
			next /= complex(cmplx.Abs(next), 0)
		}
		p[i+1] = next
	}
	return abs, p
}

// eighFloatsPer is the number of float64 values that make up a T: 1 when real, 2 when complex.
func eighFloatsPer[T Scalar]() int {
	var z T
	if _, ok := any(z).(complex128); ok {
		return 2
	}
	return 1
}

// eighFromParts is the scalar with real part r and imaginary part i (i dropped when T is real).
func eighFromParts[T Scalar](r, i float64) T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(complex(r, i)).(T)
	}
	return fromReal[T](r)
}

// eighScalarsOf returns x read as scalars: x itself when T is real, else a new slice whose element i has
// real part x[2i] and imaginary part x[2i+1].
func eighScalarsOf[T Scalar](x []float64) []T {
	if y, ok := any(x).([]T); ok {
		return y
	}
	c := make([]complex128, len(x)/2)
	for i := range c {
		c[i] = complex(x[2*i], x[2*i+1])
	}
	return any(c).([]T)
}

// eighUnitOf is x/|x|, the unit scalar of x's phase (1 when x = 0); for a real x, the sign of x, −1
// for −0. A tiny x is scaled up first, exactly, since a subnormal |x| is too coarse to divide by.
func eighUnitOf[T Scalar](x T) T {
	c, ok := any(x).(complex128)
	if !ok {
		return fromReal[T](math.Copysign(1, re(x)))
	}
	r, i := real(c), imag(c)
	if max(math.Abs(r), math.Abs(i)) < 0x1p-900 {
		r, i = r*0x1p1000, i*0x1p1000
	}
	abs := math.Hypot(r, i)
	if abs == 0 {
		return any(complex(1, 0)).(T)
	}
	return any(complex(r/abs, i/abs)).(T)
}

// eighConjOf returns the conjugates of x, written to buf (len(buf) ≥ len(x)); when T is real, x itself.
func eighConjOf[T Scalar](x, buf []T) []T {
	c, ok := any(x).([]complex128)
	if !ok {
		return x
	}
	b := any(buf).([]complex128)[:len(c)]
	for i, v := range c {
		b[i] = cmplx.Conj(v)
	}
	return any(b).([]T)
}
