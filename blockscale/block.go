package blockscale

import (
	"math"

	"octet/dtype"
)

// e8m0NaN is the NaN code of the E8M0 scale; e8m0Bias its exponent bias.
const (
	e8m0NaN  = 0xff
	e8m0Bias = 127
)

// QuantizeBlock quantizes one block of values into element codes (one code a byte, elems as long as src)
// and returns the block's scale code. src holds at most BlockSize values; a shorter block (the last of an
// axis whose length is not a multiple of the block size) is quantized as if padded with zeros, which
// changes neither its abs-max nor its elements. g is NVFP4's tensor scale (decode direction: a value is
// element x scale x g), positive and finite; MX formats ignore it. See the package comment for the rules.
func (f Format) QuantizeBlock(elems []uint8, src []float64, g float64) (scale uint8) {
	elems = elems[:len(src)]
	amax := 0.0
	for _, v := range src {
		a := math.Abs(v)
		if a > math.MaxFloat64 || a != a {
			// A NaN or an infinity: the scale is NaN, and the elements do not matter.
			clear(elems)
			if f.IsMX() {
				return e8m0NaN
			}
			return uint8(f.Scale.EncodeFloat64(math.NaN()))
		}
		amax = max(amax, a)
	}
	if f.IsMX() {
		shared := SharedExponent(amax, f.EmaxElem())
		if shared > 127 {
			clear(elems)
			return e8m0NaN
		}
		for i, v := range src {
			// Dividing by a power of two is exact (the quotient is at most 2^(emax_elem+1)), so this rounds once.
			elems[i] = uint8(f.Elem.EncodeFloat64Saturate(math.Ldexp(v, -shared)))
		}
		return uint8(shared + e8m0Bias)
	}
	s := roundQuotient(f.Scale, amax, f.MaxElem()*g)
	d := f.Scale.DecodeFloat64(s) * g // exact: a 4-bit significand times a float32
	for i, v := range src {
		if d == 0 {
			elems[i] = uint8(f.Elem.EncodeFloat64Saturate(math.Copysign(0, v)))
			continue
		}
		elems[i] = uint8(roundQuotient(f.Elem, v, d))
	}
	return uint8(s)
}

// SharedExponent is the MX specification's shared exponent of a block whose largest magnitude is amax
// (finite, not negative): floor(log2(amax)) - emaxElem, clamped below at -127, the smallest E8M0
// exponent; -127 for a block of zeros. A result above 127 means the scale is NaN.
func SharedExponent(amax float64, emaxElem int) int {
	if amax == 0 {
		return -e8m0Bias
	}
	_, e := math.Frexp(amax) // amax = m * 2^e, 0.5 <= m < 1: floor(log2(amax)) = e-1, exactly
	return max(e-1-emaxElem, -e8m0Bias)
}

// roundQuotient converts x/d to t with one rounding (to nearest even, saturating): the quotient is
// computed in binary64, and when it lands exactly on a rounding boundary of t although the true quotient
// does not (the binary64 rounding moved it there), the exact remainder decides the side.
func roundQuotient(t dtype.Type, x, d float64) uint64 {
	q := x / d
	lo, hi := t.EncodeFloat64Saturate(math.Nextafter(q, math.Inf(-1))), t.EncodeFloat64Saturate(math.Nextafter(q, math.Inf(1)))
	if lo != hi && !math.IsInf(q, 0) {
		// q is a boundary between two codes of t: exactly a midpoint, or the quotient rounded onto one.
		switch r := math.FMA(-q, d, x); {
		case r == 0:
		case (r > 0) == (d > 0):
			return hi
		default:
			return lo
		}
	}
	return t.EncodeFloat64Saturate(q)
}

// ScaleValue returns the value of a scale code: 2^(code-127) for MX formats (NaN for 0xff), the
// f8e4m3fn value for NVFP4.
func (f Format) ScaleValue(code uint8) float64 {
	if f.IsMX() {
		if code == e8m0NaN {
			return math.NaN()
		}
		return math.Ldexp(1, int(code)-e8m0Bias)
	}
	return f.Scale.DecodeFloat64(uint64(code))
}

// Value returns the exact value of an element code in a block of scale code scale: element x scale, times
// g in NVFP4 (MX formats ignore g). It is NaN when the scale or the element is NaN.
func (f Format) Value(elem, scale uint8, g float64) float64 {
	v := f.Elem.DecodeFloat64(uint64(elem)) * f.ScaleValue(scale)
	if f.TensorScale {
		v *= g
	}
	return v
}

// DecodeBlock writes the values of one block, each rounded once to float32, to dst (as long as elems).
func (f Format) DecodeBlock(dst []float32, elems []uint8, scale uint8, g float32) {
	dst = dst[:len(elems)]
	s := f.ScaleValue(scale)
	if f.TensorScale {
		s *= float64(g) // exact: a 4-bit significand times a float32
	}
	for i, e := range elems {
		dst[i] = float32(f.Elem.DecodeFloat64(uint64(e)) * s)
	}
}

// DefaultTensorScale is NVFP4's tensor scale for a tensor whose largest finite magnitude is amax:
// amax / (6 * 448) rounded to float32, so that the largest block scale is 448; 1 when amax is 0.
func DefaultTensorScale(amax float64) float32 {
	g := float32(amax / (NVFP4.MaxElem() * NVFP4.Scale.Finfo().Max))
	if g == 0 || math.IsInf(float64(g), 0) || g != g {
		return 1
	}
	return g
}
