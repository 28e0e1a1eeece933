package gemm

import "math"

// fma32 returns x*y + z rounded once to float32 (to nearest, ties to even), as the float32 fused
// multiply-add instructions (VFMADD231PS) compute it; a NaN result is a NaN, of unspecified sign and
// payload.
//
// float32(math.FMA(x, y, z)) would not do: it rounds twice, to float64 and then to float32, and the
// second rounding goes wrong where the first lands exactly halfway between two float32 values that the
// exact result was not halfway between (x = 1 + 2^-23, y = 1.5 and z = -2^-80 give 1.5 + 2^-22, the even
// neighbour of x*y = 1.5 + 3*2^-24, instead of 1.5 + 2^-23).
// Here the product is exact in float64 (24 + 24 bits of significand) and so is its sum with z but for
// one rounding; where that rounding left a float32 halfway point, which is rare, the sum is rounded
// again to odd (its last bit set when inexact, from the exact error of an error-free sum), which a
// second rounding to the narrower float32 cannot get wrong.
func fma32(x, y, z float32) float32 {
	p := float64(x) * float64(y) // exact
	s := float64(p + float64(z))
	b := math.Float64bits(s)
	// float32's halfway points between normal values are float64 values whose 29 bits below float32's
	// precision are 1 followed by zeros; below float32's smallest normal the halfway points lie higher.
	// Elsewhere (and for zeros, infinities and NaNs) the one rounding gave the right float32.
	if e := b >> 52 & 0x7ff; b&(1<<29-1) != 1<<28 && (e >= 1023-126 || b<<1 == 0) {
		return float32(s)
	}
	return fma32Odd(p, float64(z), s)
}

// fma32Odd is fma32 where s = p + z rounded to float64 may be a float32 halfway point: it rounds p + z to
// odd in float64 (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
// using rounding to odd", 2008), then to float32.
func fma32Odd(p, z, s float64) float32 {
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	// Knuth's two-sum: p + z = s + e exactly. The conversions keep every step rounded on its own.
	zz := float64(s - p)
	e := float64(float64(p-float64(s-zz)) + float64(z-zz))
	if b := math.Float64bits(s); e != 0 && b&1 == 0 {
		// Inexact and even: the odd neighbour on the side of the exact sum.
		if (e > 0) == (s > 0) {
			b++
		} else {
			b--
		}
		s = math.Float64frombits(b)
	}
	return float32(s)
}
