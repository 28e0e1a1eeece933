package linalg

import (
	"math"
	"math/cmplx"
)

// Scalar is the element type of the direct factorizations: float64 for real matrices, complex128 for
// complex ones.
type Scalar interface{ ~float64 | ~complex128 }

// abs1 is the magnitude LAPACK's pivot searches compare: |x| for a real x, |re x| + |im x| for a complex
// one (izamax's dcabs1).
func abs1[T Scalar](x T) float64 {
	switch v := any(x).(type) {
	case float64:
		return math.Abs(v)
	case complex128:
		return math.Abs(real(v)) + math.Abs(imag(v))
	}
	return 0
}

// absModulus is |x|: the absolute value of a real number, the modulus of a complex one.
func absModulus[T Scalar](x T) float64 {
	switch v := any(x).(type) {
	case float64:
		return math.Abs(v)
	case complex128:
		return math.Hypot(real(v), imag(v))
	}
	return 0
}

// conj is the complex conjugate of x (x itself when real).
func conj[T Scalar](x T) T {
	if v, ok := any(x).(complex128); ok {
		return any(cmplx.Conj(v)).(T)
	}
	return x
}

// re and im are x's real and imaginary parts.
func re[T Scalar](x T) float64 {
	switch v := any(x).(type) {
	case float64:
		return v
	case complex128:
		return real(v)
	}
	return 0
}

func im[T Scalar](x T) float64 {
	if v, ok := any(x).(complex128); ok {
		return imag(v)
	}
	return 0
}

// fromReal is the scalar of real value v.
func fromReal[T Scalar](v float64) T {
	var z T
	switch any(z).(type) {
	case complex128:
		return any(complex(v, 0)).(T)
	}
	return any(v).(T)
}

// norm2 is the Euclidean norm of x, computed without overflow or underflow in the squares (scaled by the
// largest magnitude).
func norm2[T Scalar](x []T) float64 {
	scale := 0.0
	for _, v := range x {
		scale = max(scale, math.Abs(re(v)), math.Abs(im(v)))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		if math.IsNaN(scale) {
			return math.NaN()
		}
		return scale
	}
	sum := 0.0
	for _, v := range x {
		r, i := re(v)/scale, im(v)/scale
		sum += r*r + i*i
	}
	return scale * math.Sqrt(sum)
}
