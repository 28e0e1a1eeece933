package interp

import (
	"math/cmplx"

	"octet/hlo"
)

// moreBinaryComplex evaluates the binary operations StableHLO defines on complex numbers beyond the
// arithmetic ones: maximum and minimum in lexicographic order (real part, then imaginary part), and
// atan2(y, x) = -i log((x + i y) / sqrt(x² + y²)); a NaN operand propagates. nil for the others.
func moreBinaryComplex(op hlo.Opcode) func(a, b complex128) complex128 {
	less := func(a, b complex128) bool {
		return real(a) < real(b) || real(a) == real(b) && imag(a) < imag(b)
	}
	switch op {
	case hlo.OpMaximum:
		return func(a, b complex128) complex128 {
			switch {
			case cmplx.IsNaN(a):
				return a
			case cmplx.IsNaN(b) || less(a, b):
				return b
			}
			return a
		}
	case hlo.OpMinimum:
		return func(a, b complex128) complex128 {
			switch {
			case cmplx.IsNaN(a):
				return a
			case cmplx.IsNaN(b) || less(b, a):
				return b
			}
			return a
		}
	case hlo.OpAtan2:
		return func(y, x complex128) complex128 {
			return -1i * cmplx.Log((x+1i*y)/cmplx.Sqrt(x*x+y*y))
		}
	}
	return nil
}
