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
	if s := float64(x)*float64(y) + float64(z); fma32Quick(s) { // the product is exact, fused or not
		return float32(s)
	}
	return fma32Odd(x, y, z)
}

// fma32Quick reports whether s, the float64 sum of a product of two float32 values and a third, rounds to
// the float32 nearest the exact sum: whether it is not a float32 halfway point. Those between normal
// values are float64 values whose 29 bits below float32's precision are 1 followed by zeros; below
// float32's smallest normal the halfway points lie higher, and it reports false. For zeros (exact: a
// product of float32 values is never so small that its sum rounds to zero), infinities and NaNs it
// reports true.
func fma32Quick(s float64) bool {
	b := math.Float64bits(s)
	return b&(1<<29-1) != 1<<28 && (b&(0x7ff<<52) >= (1023-126)<<52 || b<<1 == 0)
}

// fma32Odd is fma32 where the float64 sum may be a float32 halfway point (or is below float32's smallest
// normal, or zero): it rounds the sum to odd in float64 (Boldo and Melquiond, "Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", 2008), then to float32.
func fma32Odd(x, y, z float32) float32 {
	p, zz := float64(x)*float64(y), float64(z)
	s := float64(p + zz)
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	// Knuth's two-sum: p + zz = s + e exactly. The conversions keep every step rounded on its own.
	bv := float64(s - p)
	e := float64(float64(p-float64(s-bv)) + float64(zz-bv))
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

// FMA32 returns x*y + z rounded once to float32, as the kernels' fused multiply-adds compute it (fma32).
func FMA32(x, y, z float32) float32 { return fma32(x, y, z) }
