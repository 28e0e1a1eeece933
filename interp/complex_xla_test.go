package interp

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"octet/hlo"
)

// ulps64 counts the float64 values between a and b (0 when both are NaN).
func ulps64(a, b float64) uint64 {
	if math.IsNaN(a) && math.IsNaN(b) {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.MaxUint64
	}
	ord := func(x float64) int64 {
		b := math.Float64bits(x)
		if b>>63 != 0 {
			return -int64(b &^ (1 << 63))
		}
		return int64(b)
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// TestCHLOAsinFamily checks complex asin, acos, asinh and acosh against values computed with 300-bit
// arithmetic (mpmath) across the regions of the Hull et al. algorithm: operands beyond sqrt(max)/8, a tiny
// imaginary part on either side of |x| = 1, the neighbourhood of 1, and ordinary ones. math/cmplx loses
// them at the extremes (1e200+1e200i overflows in z·z).
func TestCHLOAsinFamily(t *testing.T) {
	for _, c := range []struct {
		op         hlo.Opcode
		x, y       float64
		wantR, wnI float64
	}{
		{hlo.OpAsin, 1e200, 1e200, 0.7853981633974483, 461.55673936964905},
		{hlo.OpAcos, 1e200, 1e200, 0.7853981633974483, -461.55673936964905},
		{hlo.OpAsinh, 1e200, 1e200, 461.55673936964905, 0.7853981633974483},
		{hlo.OpAcosh, 1e200, 1e200, 461.55673936964905, 0.7853981633974483},
		{hlo.OpAsin, 0.5, 1e-310, 0.5235987755982989, 1.15470053837923e-310},
		{hlo.OpAcos, 0.5, 1e-310, 1.0471975511965979, -1.15470053837923e-310},
		{hlo.OpAsinh, 0.5, 1e-310, 0.48121182505960347, 8.944271909999e-311},
		{hlo.OpAcosh, 0.5, 1e-310, 1.15470053837923e-310, 1.0471975511965979},
		{hlo.OpAsin, 2, 1e-300, 1.5707963267948966, 1.3169578969248168},
		{hlo.OpAcos, 2, 1e-300, 5.773502691896257e-301, -1.3169578969248168},
		{hlo.OpAsinh, 2, 1e-300, 1.4436354751788103, 4.47213595499958e-301},
		{hlo.OpAcosh, 2, 1e-300, 1.3169578969248168, 5.773502691896257e-301},
		{hlo.OpAsin, 1, 1e-8, 1.57069632679498, 0.00010000000008333333},
		{hlo.OpAcos, 1, 1e-8, 9.999999991666667e-05, -0.00010000000008333333},
		{hlo.OpAsinh, 1, 1e-8, 0.881373587019543, 7.071067811865475e-09},
		{hlo.OpAcosh, 1, 1e-8, 0.00010000000008333333, 9.999999991666667e-05},
		{hlo.OpAsin, -3, 4, -0.6339838656391767, 2.305509031243477},
		{hlo.OpAcos, -3, 4, 2.2047801924340735, -2.305509031243477},
		{hlo.OpAsinh, -3, 4, -2.2999140408792695, 0.9176168533514787},
		{hlo.OpAcosh, -3, 4, 2.305509031243477, 2.2047801924340735},
		{hlo.OpAsin, 1e-20, -1e-20, 1e-20, -1e-20},
		{hlo.OpAcos, 1e-20, -1e-20, 1.5707963267948966, 1e-20},
		{hlo.OpAsinh, 1e-20, -1e-20, 1e-20, -1e-20},
		{hlo.OpAcosh, 1e-20, -1e-20, 1e-20, -1.5707963267948966},
		{hlo.OpAsin, 0.999, 0.001, 1.5216592817544534, 0.020358029698343834},
		{hlo.OpAcos, 0.999, 0.001, 0.049137045040443236, -0.020358029698343834},
		{hlo.OpAsinh, 0.999, 0.001, 0.8806664802972378, 0.0007074603935027634},
		{hlo.OpAcosh, 0.999, 0.001, 0.020358029698343834, 0.049137045040443236},
		{hlo.OpAsin, 5e153, 0.001, 1.5707963267948966, 354.59810432108304},
		{hlo.OpAcos, 5e153, 0.001, 2e-157, -354.59810432108304},
		{hlo.OpAsinh, 5e153, 0.001, 354.59810432108304, 2e-157},
		{hlo.OpAcosh, 5e153, 0.001, 354.59810432108304, 2e-157},
		{hlo.OpAsin, 0.001, 7e160, 1.4285714285714285e-164, 371.05267220866256},
		{hlo.OpAcos, 0.001, 7e160, 1.5707963267948966, -371.05267220866256},
		{hlo.OpAsinh, 0.001, 7e160, 371.05267220866256, 1.5707963267948966},
		{hlo.OpAcosh, 0.001, 7e160, 371.05267220866256, 1.5707963267948966},
	} {
		got := unaryComplex(c.op)(complex(c.x, c.y))
		if dr, di := ulps64(real(got), c.wantR), ulps64(imag(got), c.wnI); dr > 2 || di > 2 {
			t.Errorf("%s(%g%+gi) = %v, want (%v%+vi) (%d, %d ULP)", c.op, c.x, c.y, got, c.wantR, c.wnI, dr, di)
		}
	}
}

// TestCHLOAsinSymmetry: the decomposition works on |x| and |y| and restores the signs, so that
// asin(-z) = -asin(z) and asin(conj z) = conj asin(z) hold bit for bit, and acos(z) + asin(z) = π/2.
func TestCHLOAsinSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	asin, acos := unaryComplex(hlo.OpAsin), unaryComplex(hlo.OpAcos)
	for range 2000 {
		z := complex(rng.NormFloat64()*3, rng.NormFloat64()*3)
		w := asin(z)
		if n := asin(-z); n != -w {
			t.Fatalf("asin(%v) = %v, asin(-z) = %v", z, w, n)
		}
		if c := asin(cmplx.Conj(z)); c != cmplx.Conj(w) {
			t.Fatalf("asin(%v) = %v, asin(conj z) = %v", z, w, c)
		}
		if s := real(acos(z)) + real(w); math.Abs(s-math.Pi/2) > 4e-15 {
			t.Fatalf("acos(%v) + asin(z) = %v", z, s)
		}
		if imag(acos(z)) != -imag(w) {
			t.Fatalf("imag acos(%v) = %v, imag asin = %v", z, imag(acos(z)), imag(w))
		}
	}
}

// TestXLALog1p: XLA's log1p keeps the special values and is within two ulps of math.Log1p from
// sqrt(1/2)-1 up, where Cephes' rational approximation holds. XLA applies it down to 1-sqrt(2) too, where
// it is tens of ulps off (-0.3872838995681959: 40), and so does xlaLog1p.
func TestXLALog1p(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 0}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {-1, math.Inf(-1)}, {math.Inf(1), math.Inf(1)},
		{-2, math.NaN()}, {math.NaN(), math.NaN()}, {1e-300, 1e-300},
	} {
		if got := xlaLog1p(c.x); ulps64(got, c.want) != 0 || math.Signbit(got) != math.Signbit(c.want) && !math.IsNaN(got) {
			t.Errorf("xlaLog1p(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		x := -0.29 + rng.Float64()*0.9 // across the threshold sqrt(2)-1
		if d := ulps64(xlaLog1p(x), math.Log1p(x)); d > 2 {
			t.Fatalf("xlaLog1p(%v) = %v, math.Log1p = %v (%d ULP)", x, xlaLog1p(x), math.Log1p(x), d)
		}
	}
}

// TestXLAComplexMultiply: a product computes as XLA:CPU's fused multiply-adds, (ac - bd) exactly rounded
// once; the unfused product loses the 2^-60 of (1+2^-30)² - 1.
func TestXLAComplexMultiply(t *testing.T) {
	a := 1 + 0x1p-30
	got := binaryComplex(hlo.OpMultiply)(complex(a, 1), complex(a, 1))
	if want := complex(0x1p-29+0x1p-60, 2+0x1p-29); got != want {
		t.Errorf("(1+2^-30 + i)² = %v, want %v", got, want)
	}
}

// TestXLAComplexDivide keeps C99's corner cases of a quotient whose parts both come out NaN, as XLA's
// division selects them, and divides as Smith's algorithm does otherwise.
func TestXLAComplexDivide(t *testing.T) {
	div := binaryComplex(hlo.OpDivide)
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct{ x, y, want complex128 }{
		{complex(1, 1), 0, complex(inf, inf)},
		{complex(inf, 0), complex(1, 1), complex(inf, -inf)},
		{complex(1, 1), complex(inf, 0), 0},
		{complex(nan, 0), complex(1, 0), complex(nan, nan)},
		{complex(1, 2), complex(3, 4), complex(0.44, 0.08)},
		{complex(6, -4), complex(0, 2), complex(-2, -3)},
	} {
		got := div(c.x, c.y)
		if ulps64(real(got), real(c.want)) > 1 || ulps64(imag(got), imag(c.want)) > 1 {
			t.Errorf("%v / %v = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestXLAComplexExpm1 is accurate where exp(z)-1 cancels, as XLA's expm1 and cosm1 make it, and exact for
// a real operand.
func TestXLAComplexExpm1(t *testing.T) {
	f := unaryComplex(hlo.OpExpm1)
	got := f(complex(1e-10, 1e-10))
	if want := complex(1e-10, 1.0000000001000001e-10); ulps64(real(got), real(want)) > 1 || ulps64(imag(got), imag(want)) > 1 {
		t.Errorf("expm1(1e-10+1e-10i) = %v, want %v", got, want)
	}
	if got := f(complex(-0.25, 0)); got != complex(xlaExpm1(-0.25), 0) || ulps64(real(got), math.Expm1(-0.25)) > 1 {
		t.Errorf("expm1(-0.25) = %v, want %v", got, math.Expm1(-0.25))
	}
}

// TestCHLOSinhCosh: CHLO computes sinh and cosh as exp(x + log(1/2)) ± exp(log(1/2) - x), finite where
// e^x overflows but e^x/2 does not (and as inaccurate as x + log(1/2) is rounded: 308 ULP at 710); float32
// in float32 arithmetic.
func TestCHLOSinhCosh(t *testing.T) {
	const big = 1.1169973830808555e308 // sinh(710) and cosh(710)
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Abs(want) }
	for _, c := range []struct {
		op   hlo.Opcode
		z    complex128
		want complex128
	}{
		{hlo.OpSinh, 710, big}, {hlo.OpCosh, 710, big}, {hlo.OpCosh, -710, big}, {hlo.OpSinh, -710, -big},
	} {
		got := unaryComplex(c.op)(c.z)
		if !near(real(got), real(c.want)) || imag(got) != 0 {
			t.Errorf("complex %s(%v) = %v, want %v", c.op, c.z, got, c.want)
		}
		if got := unaryF64(c.op)(real(c.z)); !near(got, real(c.want)) {
			t.Errorf("%s(%v) = %v, want %v", c.op, real(c.z), got, real(c.want))
		}
	}
	if got := unaryF64(hlo.OpSinh)(-0.5); ulps64(got, -0.5210953054937474) > 1 {
		t.Errorf("sinh(-0.5) = %v", got)
	}
	cosh32, sinh32 := unaryF32(hlo.OpCosh), unaryF32(hlo.OpSinh)
	lh := float32(-math.Ln2)
	e := func(x float32) float32 { return float32(math.Exp(float64(x))) }
	differs := 0
	for i := range 2000 {
		x := float32(i-1000) / 100 // -10 to 10
		want := e(x+lh) + e(lh-x)
		if got := cosh32(x); got != want {
			t.Fatalf("float32 cosh(%v) = %v, want %v", x, got, want)
		}
		if want != float32(math.Cosh(float64(x))) {
			differs++
		}
		if math.Abs(float64(x)) >= 1 {
			if got, want := sinh32(x), e(x+lh)-e(lh-x); got != want {
				t.Fatalf("float32 sinh(%v) = %v, want %v", x, got, want)
			}
		}
	}
	if differs == 0 {
		t.Errorf("CHLO's float32 cosh rounds as the float64 cosh for every operand")
	}
}
