package linalg

import (
	"math"
	"math/rand/v2"
)

// The helpers of this package's tests.

// matMul returns the m×k by k×n product of row-major x and y.
func matMul[T Scalar](x, y []T, m, k, n int) []T {
	out := make([]T, m*n)
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			for j := 0; j < n; j++ {
				out[i*n+j] += x[i*k+l] * y[l*n+j]
			}
		}
	}
	return out
}

// maxDiff is the largest |x[i] - y[i]|.
func maxDiff[T Scalar](x, y []T) float64 {
	d := 0.0
	for i := range x {
		v := x[i] - y[i]
		d = max(d, math.Hypot(re(v), im(v)))
	}
	return d
}

func randomReal(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

func randomComplex(r *rand.Rand, n int) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(r.NormFloat64(), r.NormFloat64())
	}
	return x
}

// transposeOf returns the n×m transpose of the m×n row-major x.
func transposeOf[T Scalar](x []T, m, n int) []T {
	z := make([]T, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			z[j*m+i] = x[i*n+j]
		}
	}
	return z
}
