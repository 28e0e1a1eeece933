package interp

import "math"

// XLA's own formulations of the complex functions whose results the StableHLO corpus records (JAX on
// XLA:CPU), step by step in float64 and in XLA's order, so that the roundings are XLA's wherever the
// elementary functions beneath (Go's math.Log, Atan2, Exp, Sin, Cos, Tanh against the C library XLA:CPU
// calls) round alike. A c64 operand computes here in float64 too, like the other complex functions
// (complex.go), and rounds once at the end; XLA computes it in float32.
//
// XLA:CPU compiles with floating-point contraction: LLVM fuses a multiply into the add or subtract that
// uses it. The fused multiply-adds below are the ones that reproduce the corpus' bits (math.FMA); every
// other product that feeds a sum is rounded first (the float64 conversions keep the Go compiler from
// fusing it on arm64).

// Constants of CHLO's complex arcsine decomposition: the safe range of the Hull et al. algorithm.
var (
	asinSafeMax = math.Sqrt(math.MaxFloat64) / 8
	asinSafeMin = math.Sqrt(0x1p-1022) * 4 // the square root of the smallest normal number, times 4
)

// xlaLog1p is log1p as XLA:CPU emits it (ElementalIrEmitter::EmitLog1p, openxla/xla
// xla/service/elemental_ir_emitter.cc, and its successor xla/codegen/intrinsic/log1p.cc,
// Log1p::CreateDefinition): log(1+x) for |x| >= sqrt(2)-1 and otherwise Cephes' rational approximation
// x - x²/2 + x³·P(x)/Q(x), its polynomials evaluated by Horner's rule from 0 with the multiply-adds fused.
// The corpus' log1p_float64 program has these bits for every element (Go's math.Log1p: 48 of 400 differ,
// by up to 104 units in the last place).
func xlaLog1p(x float64) float64 {
	if !(math.Abs(x) < 0.41421356237309504880) {
		return math.Log(x + 1)
	}
	num := horner(x, 4.5270000862445199635215e-5, 4.9854102823193375972212e-1, 6.5787325942061044846969e0,
		2.9911919328553073277375e1, 6.0949667980987787057556e1, 5.7112963590585538103336e1,
		2.0039553499201281259648e1)
	den := horner(x, 1, 1.5062909083469192043167e1, 8.3047565967967209469434e1, 2.2176239823732856465394e2,
		3.0909872225312059774938e2, 2.1642788614495947685003e2, 6.0118660497603843919306e1)
	xx := float64(x * x)
	s := float64(float64(x*xx) * (num / den))
	s = float64(-0.5*xx) + s
	return x + s
}

// horner evaluates c[0]·x^(n-1) + ... + c[n-1] from a zero accumulator with fused multiply-adds, as XLA's
// EvaluatePolynomial does once LLVM contracts it.
func horner(x float64, c ...float64) float64 {
	p := 0.0
	for _, k := range c {
		p = math.FMA(p, x, k)
	}
	return p
}

// xlaExpm1 is expm1 as XLA:CPU emits it (ElementalIrEmitter::EmitExpm1, openxla/xla
// xla/service/elemental_ir_emitter.cc): tanh(x/2)·(exp(x)+1) for |x| <= 1/2, exp(x)-1 above, and x when x/2
// underflows to zero.
func xlaExpm1(x float64) float64 {
	half := x * 0.5
	switch {
	case half == 0:
		return x
	case math.Abs(x) > 0.5:
		return math.Exp(x) - 1
	}
	return math.Tanh(half) * (math.Exp(x) + 1)
}

// xlaCosm1 is cos(x)-1 as XLA's complex expm1 computes it: cos(x)-1 for x² >= (π/4)² (0.61685) and
// Cephes' cosm1 polynomial -x²/2 + x⁴·P(x²) below, with its multiply-adds fused (the formulation of
// ElementalIrEmitter::EmitCosm1; the same as emitCosm1 of MLIR's ComplexToStandard, llvm/llvm-project
// mlir/lib/Conversion/ComplexToStandard/ComplexToStandard.cpp).
func xlaCosm1(x float64) float64 {
	x2 := float64(x * x)
	if x2 >= 0.61685 {
		return math.Cos(x) - 1
	}
	x4 := float64(x2 * x2)
	p := horner(x2, 4.7377507964246204691685e-14, -1.1470284843425359765671e-11, 2.0876754287081521758361e-9,
		-2.7557319214999787979814e-7, 2.4801587301570552304991e-5, -1.3888888888888872993737e-3,
		4.1666666666666666609054e-2)
	return math.FMA(x4, p, float64(-0.5*x2))
}

// hullHypot is the hypot of CHLO's arcsine decomposition (functional_algorithms' hypot): mx·√2 when the
// magnitudes are equal, mx·sqrt(1 + (mn/mx)²) otherwise, or mx + mx·r/2 when that square root rounds to 1
// for r = (mn/mx)² > 0. XLA:CPU fuses the 1 + (mn/mx)² under the square root.
func hullHypot(a, b float64) float64 {
	mx := math.Max(math.Abs(a), math.Abs(b))
	mn := math.Min(math.Abs(a), math.Abs(b))
	if mx == mn {
		return math.Sqrt2 * mx
	}
	q := mn / mx
	r := float64(q * q)
	sqa := math.Sqrt(math.FMA(q, q, 1))
	if sqa == 1 && r > 0 {
		return mx + float64(mx*r)/2
	}
	return mx * sqa
}

// asinAcos is the kernel of CHLO's complex arcsine and arccosine: the modified Hull et al. algorithm that
// openxla/stablehlo generates from pearu/functional_algorithms (stablehlo/transforms/
// ChloDecompositionPatternsMath.td at 03a45b4015f4f257d6f1b2021529f3309716ff59, the CHLO_AsinOp and
// CHLO_AcosOp patterns on complex operands; functional_algorithms/algorithms.py, complex_asin_acos). For
// z = x + iy it returns the real part of asin(z), the real part of acos(z), and the magnitude of their
// imaginary parts, log(a + sqrt(a²-1)) with a = (hypot(x+1, y) + hypot(x-1, y))/2, each region computed as
// the pattern does.
func asinAcos(z complex128) (asinRe, acosRe, im float64) {
	sx, sy := real(z), imag(z)
	x, y := math.Abs(sx), math.Abs(sy)
	const half = 0.5
	xp1 := x + 1
	xm1 := x - 1
	r := hullHypot(xp1, y)
	s := hullHypot(xm1, y)
	a := half * (r + s)
	halfApx := half * (a + x)
	yy := float64(y * y)
	rpxp1 := r + xp1
	smxm1 := s - xm1
	spxm1 := s + xm1

	// The real parts: atan2(x, sqrt((a+x)(a-x))) and atan2(sqrt((a+x)(a-x)), x), with a-x as Hull et al.
	// approximate it on each side of x = 1, and y in place of the square root beyond the safe range.
	var d float64
	switch {
	case math.Max(x, y) >= asinSafeMax:
		d = y
	case x <= 1:
		d = math.Sqrt(halfApx * (yy/rpxp1 + smxm1))
	default:
		d = y * math.Sqrt(halfApx/rpxp1+halfApx/spxm1)
	}
	asinRe = math.Atan2(sx, d)
	acosRe = math.Atan2(d, sx)

	// The imaginary part: log(2) + log(max) + log1p((x/y)²)/2 for large operands, y/sqrt((a-1)(a+1)) for a
	// tiny y left of x = 1, and log1p(a-1 + sqrt((a-1)(a+1))) elsewhere, a-1 approximated by region.
	safeMaxOpt := asinSafeMax * 100
	if x < asinSafeMax*1e12 {
		safeMaxOpt = asinSafeMax * 1e-6
	}
	yLarge := y >= safeMaxOpt
	mx, limit := x, asinSafeMax
	if yLarge {
		mx, limit = y, safeMaxOpt
	}
	if mx >= limit {
		xoy := 0.0
		if yLarge && y != math.Inf(1) {
			xoy = x / y
		}
		return asinRe, acosRe, (math.Ln2 + math.Log(mx)) + half*xlaLog1p(float64(xoy*xoy))
	}
	tiny := y < asinSafeMin && x < 1
	ap1 := a + 1
	halfYY := half * yy
	var am1 float64
	switch {
	case tiny:
		am1 = -(float64(xp1*xm1) / ap1)
	case x >= 1:
		am1 = halfYY/rpxp1 + half*spxm1
	case a <= 1.5:
		am1 = halfYY/rpxp1 + halfYY/smxm1
	default:
		am1 = a - 1
	}
	sq := math.Sqrt(am1 * ap1)
	if tiny {
		return asinRe, acosRe, y / sq
	}
	return asinRe, acosRe, xlaLog1p(am1 + sq)
}

// chloAsin is chlo.asin of a complex number as XLA computes it (see asinAcos): the imaginary part takes
// the sign of imag(z).
func chloAsin(z complex128) complex128 {
	re, _, im := asinAcos(z)
	if imag(z) < 0 {
		im = -im
	}
	return complex(re, im)
}

// chloAcos is chlo.acos of a complex number (the CHLO_AcosOp pattern): the imaginary part has the
// opposite sign of imag(z).
func chloAcos(z complex128) complex128 {
	_, re, im := asinAcos(z)
	if !(imag(z) < 0) {
		im = -im
	}
	return complex(re, im)
}

// chloAsinh is chlo.asinh of a complex number: -i·asin(i·z) (the CHLO_AsinhOp pattern on complex
// operands).
func chloAsinh(z complex128) complex128 {
	w := chloAsin(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

// chloAcosh is chlo.acosh of a complex number: ±i·acos(z) (the CHLO_AcoshOp pattern on complex operands),
// its real part the magnitude of acos' imaginary part and its imaginary part acos' real part, negated for
// imag(z) < 0.
func chloAcosh(z complex128) complex128 {
	_, re, im := asinAcos(z)
	if imag(z) < 0 {
		return complex(im, -re)
	}
	return complex(im, re)
}

// xlaMul is a complex product as XLA:CPU computes it (ElementalIrEmitter::EmitComplexMultiply, openxla/xla
// xla/service/elemental_ir_emitter.cc): (ac - bd) + (ad + bc)i, contracted by LLVM into
// fma(a, c, -bd) and fma(b, c, ad). The corpus' mul, integer_pow and cumprod programs of complex128 have
// these bits for every element.
func xlaMul(x, y complex128) complex128 {
	a, b, c, d := real(x), imag(x), real(y), imag(y)
	return complex(math.FMA(a, c, -float64(b*d)), math.FMA(b, c, float64(a*d)))
}

// xlaExpm1Complex is exp(z)-1 as XLA:CPU emits it (the kExpm1 case of
// ElementalIrEmitter::EmitComplexUnaryOp, openxla/xla xla/service/elemental_ir_emitter.cc):
// (expm1(a)·cos(b) + cosm1(b)) + i·exp(a)·sin(b), the imaginary part 0 when b is, with XLA's expm1 and
// cosm1 and the real part's multiply-add fused.
func xlaExpm1Complex(z complex128) complex128 {
	a, b := real(z), imag(z)
	em := xlaExpm1(a)
	cm := xlaCosm1(b)
	re := math.FMA(em, cm+1, cm)
	if b == 0 {
		return complex(re, 0)
	}
	return complex(re, (em+1)*math.Sin(b))
}

// chloSinhCosh is chlo.sinh (sign -1) or chlo.cosh (sign +1) of a complex number as CHLO decomposes it
// (materializeSinhApproximationForLargeX, which ConvertSinhOp uses for complex operands, and
// materializeCoshApproximation; openxla/stablehlo stablehlo/transforms/ChloLegalizeToStablehlo.cpp at
// 022ac8984356be511ae5dc491fb5ac8bee9552a5): exp(z + log(1/2)) ± exp(log(1/2) - z), each exponential
// exp(a)·(cos(b) + i sin(b)) as XLA:CPU computes it, and the first product of each part fused into the
// sum.
func chloSinhCosh(z complex128, sign float64) complex128 {
	const logHalf = -math.Ln2 // log(1/2), which XLA folds to the correctly rounded value
	x, y := real(z), imag(z)
	e1, y1 := math.Exp(x+logHalf), y+0
	e2, y2 := math.Exp(logHalf-x), 0-y
	s1, c1 := math.Sin(y1), math.Cos(y1)
	s2, c2 := math.Sin(y2), math.Cos(y2)
	return complex(math.FMA(e1, c1, sign*float64(e2*c2)), math.FMA(e1, s1, sign*float64(e2*s2)))
}

// chloCosh64 and chloSinh64 are chlo.cosh and chlo.sinh of float64 as CHLO decomposes them
// (materializeCoshApproximation and materializeSinhApproximation, openxla/stablehlo
// stablehlo/transforms/ChloLegalizeToStablehlo.cpp at 022ac8984356be511ae5dc491fb5ac8bee9552a5):
// cosh(x) = exp(x + log(1/2)) + exp(log(1/2) - x); sinh(x) the same difference for |x| >= 1 and
// (expm1(x) + expm1(x)/(expm1(x)+1))/2 below, with XLA:CPU's expm1.
func chloCosh64(x float64) float64 {
	return math.Exp(x-math.Ln2) + math.Exp(-math.Ln2-x)
}

func chloSinh64(x float64) float64 {
	if math.Abs(x) < 1 {
		e := xlaExpm1(x)
		return 0.5 * (e + e/(e+1))
	}
	return math.Exp(x-math.Ln2) - math.Exp(-math.Ln2-x)
}

// chloCosh32 and chloSinh32 are the same decompositions in float32 arithmetic, as CHLO computes them for
// float32 (and, converted to float32 first, for the narrower floats); the exponentials and XLA's expm1
// (tanh(x/2)·(exp(x)+1) below |x| = 1/2) are Go's float64 functions rounded to float32, where XLA:CPU
// has float32 approximations of its own.
func chloCosh32(x float32) float32 {
	const logHalf = float32(-math.Ln2)
	return exp32(x+logHalf) + exp32(logHalf-x)
}

func chloSinh32(x float32) float32 {
	const logHalf = float32(-math.Ln2)
	if abs32(x) < 1 {
		e := xlaExpm1f(x)
		return 0.5 * (e + e/(e+1))
	}
	return exp32(x+logHalf) - exp32(logHalf-x)
}

func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// xlaExpm1f is xlaExpm1 in float32 arithmetic.
func xlaExpm1f(x float32) float32 {
	half := x * 0.5
	switch {
	case half == 0:
		return x
	case abs32(x) > 0.5:
		return exp32(x) - 1
	}
	return float32(math.Tanh(float64(half))) * (exp32(x) + 1)
}

// xlaDiv is a complex quotient as XLA:CPU computes it (ElementalIrEmitter::EmitComplexDivide, openxla/xla
// xla/service/elemental_ir_emitter.cc): Smith's algorithm, dividing by the larger part of the
// denominator, with LLVM's contraction fusing each multiply into the sum that uses it. When both parts come
// out NaN, the corner cases (a zero denominator, an infinite numerator or denominator) are C99's, which
// Go's division implements as XLA does.
func xlaDiv(x, y complex128) complex128 {
	ar, ai, br, bi := real(x), imag(x), real(y), imag(y)
	var cr, ci float64
	if math.Abs(br) < math.Abs(bi) {
		r := br / bi
		den := math.FMA(r, br, bi)
		cr, ci = math.FMA(r, ar, ai)/den, math.FMA(r, ai, -ar)/den
	} else {
		r := bi / br
		den := math.FMA(r, bi, br)
		cr, ci = math.FMA(r, ai, ar)/den, math.FMA(-r, ar, ai)/den
	}
	if math.IsNaN(cr) && math.IsNaN(ci) {
		return x / y
	}
	return complex(cr, ci)
}
