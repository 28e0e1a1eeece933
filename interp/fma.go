package interp

import "math"

// fma32 returns a*b + c rounded once to float32, as a fused multiply-add instruction computes it.
//
// The product of two float32 values is exact in float64, and float32's midpoints are float64 values, so
// rounding the float64 sum to float32 gives the correctly rounded result unless that sum is itself a
// midpoint of float32 (or below float32's normal range, where the midpoints lie elsewhere): only then
// does the rounding error of the float64 sum decide, and the slow path finds it.
func fma32(a, b, c float32) float32 {
	s := float64(a)*float64(b) + float64(c)
	if fma32Exact(s) {
		return float32(s)
	}
	return fma32Slow(a, b, c)
}

// fma32Exact reports whether s, the float64 sum of an exact product and a float32, rounds to float32 as
// the exact sum does: s is not a midpoint of float32 and lies in float32's normal range (or beyond), or s
// is zero. A float64 sum is zero only when the exact one is (a nonzero sum of two float64 values never
// rounds to zero), and its sign follows the rules a float32 fused multiply-add follows, so a product of
// zero added to zero, common where a window lies on padding or an operand after a ReLU, stays fast.
func fma32Exact(s float64) bool {
	b := math.Float64bits(s)
	return b&(1<<29-1) != 1<<28 && b&(0x7ff<<52) >= (1023-126)<<52 || b<<1 == 0
}

// fma32Slow is fma32 the slow way: the sum is rounded to float64 with rounding to odd (the rounding
// error, found exactly by TwoSum, decides the last bit), after which rounding to float32 is correct,
// float64 carrying more than 24+2 bits. It is kept out of line, so that the fast path stays small.
//
//go:noinline
func fma32Slow(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact
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
