package interp

import "math"

// fma32 returns a*b + c rounded once to float32, as a fused multiply-add instruction computes it.
//
// The product of two float32 values is exact in float64; the sum is rounded to float64 with rounding to
// odd (the rounding error, found exactly by TwoSum, decides the last bit), after which rounding to
// float32 gives the correctly rounded result: float64 carries more than 24+2 bits.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact
	z := float64(c)
	s := p + z
	if s-s != 0 { // infinity or NaN: no rounding to correct
		return float32(s)
	}
	bb := s - p
	err := (p - (s - bb)) + (z - bb)
	if err != 0 {
		if bits := math.Float64bits(s); bits&1 == 0 {
			// Round to odd: move s one unit towards the exact value. s is not zero here (a sum that
			// rounds to zero is exact), and a step towards err never changes its sign.
			if (err > 0) == (s > 0) {
				bits++
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}

// fma64 returns a*b + c rounded once to float64.
func fma64(a, b, c float64) float64 { return math.FMA(a, b, c) }
