package stablehlo

import (
	"math"

	"octet/dtype"
	"octet/hlo"
)

// This file decomposes the CHLO ops that have no HLO opcode into HLO instructions, as CHLO's own
// legalization does before XLA sees a program.

// emitter appends the instructions of one decomposition, each at the position and location of op.
type emitter struct {
	c  *converter
	sc *scope
	op *Op
}

func (e emitter) add(code hlo.Opcode, shape hlo.Shape, operands ...*hlo.Instruction) *hlo.Instruction {
	in := e.c.add(e.sc, &Op{Name: e.op.Name, Pos: e.op.Pos, Loc: e.op.Loc}, code, shape, operands...)
	return in
}

// splat is a constant of shape whose every element has the bits b.
func (e emitter) splat(shape hlo.Shape, b uint64) *hlo.Instruction {
	lit, _ := hlo.ScalarLiteral(shape.Elem, 0)
	lit.Array.SetBitsAt(0, b)
	k := e.add(hlo.OpConstant, hlo.Scalar(shape.Elem))
	k.Literal = lit
	if shape.Rank() == 0 {
		return k
	}
	bc := e.add(hlo.OpBroadcast, shape, k)
	bc.SetAttr("dimensions", hlo.Ints{})
	return bc
}

func (e emitter) compare(dir string, x, y *hlo.Instruction) *hlo.Instruction {
	in := e.add(hlo.OpCompare, x.Shape.WithElem(dtype.PRED), x, y)
	in.SetAttr("direction", hlo.Enum(dir))
	return in
}

func (e emitter) binary(code hlo.Opcode, x, y *hlo.Instruction) *hlo.Instruction {
	return e.add(code, x.Shape, x, y)
}

func (e emitter) sel(p, x, y *hlo.Instruction) *hlo.Instruction {
	return e.add(hlo.OpSelect, x.Shape, p, x, y)
}

// sameWidthInt is the signed integer type of t's width.
func sameWidthInt(t dtype.Type) dtype.Type {
	switch t.BitWidth() {
	case 16:
		return dtype.S16
	case 32:
		return dtype.S32
	case 64:
		return dtype.S64
	}
	return dtype.Invalid
}

// nextAfter decomposes chlo.next_after(x, y): the float after x in the direction of y, by stepping x's
// bit pattern; NaN when either is NaN, y when they are equal, the smallest subnormal with y's sign after
// a zero.
func (c *converter) nextAfter(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2, "operands")
	x, y := ins[0], ins[1]
	ft := x.Shape
	it := sameWidthInt(ft.Elem)
	if !ft.Elem.IsFloat() || it == dtype.Invalid || !y.Shape.Equal(ft) {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(ft))
	}
	e := emitter{c, sc, op}
	ish := ft.WithElem(it)
	w := ft.Elem.BitWidth()
	signMask := uint64(1) << (w - 1)
	xi := e.add(hlo.OpBitcastConvert, ish, x)
	yi := e.add(hlo.OpBitcastConvert, ish, y)
	sign := e.splat(ish, signMask)
	notSign := e.splat(ish, signMask-1)
	zero := e.splat(ish, 0)
	xAbs := e.binary(hlo.OpAnd, xi, notSign)
	yAbs := e.binary(hlo.OpAnd, yi, notSign)
	xSign := e.binary(hlo.OpAnd, xi, sign)
	ySign := e.binary(hlo.OpAnd, yi, sign)
	// Away from zero adds one to the magnitude; towards it (a larger magnitude than y's, or a sign
	// different from y's) subtracts one.
	smaller := e.binary(hlo.OpOr, e.compare("GT", xAbs, yAbs), e.compare("NE", xSign, ySign))
	step := e.sel(smaller, e.splat(ish, uint64(1)<<w-1), e.splat(ish, 1))
	r := e.binary(hlo.OpAdd, xi, step)
	fromZero := e.binary(hlo.OpOr, ySign, e.splat(ish, 1))
	r = e.sel(e.compare("EQ", xAbs, zero), fromZero, r)
	r = e.sel(e.compare("EQ", x, y), yi, r)
	nan := e.binary(hlo.OpOr, e.compare("NE", x, x), e.compare("NE", y, y))
	r = e.sel(nan, e.add(hlo.OpBitcastConvert, ish, e.binary(hlo.OpAdd, x, y)), r)
	return e.add(hlo.OpBitcastConvert, ft, r)
}

// The Cephes polynomials of CHLO's erf and erfc decompositions (ChloLegalizeToStablehlo.cpp,
// materializeErf*/materializeErfc*), highest degree first.
var (
	erfcF32P = [...]float32{+2.326819970068386e-2, -1.387039388740657e-1, +3.687424674597105e-1,
		-5.824733027278666e-1, +6.210004621745983e-1, -4.944515323274145e-1, +3.404879937665872e-1,
		-2.741127028184656e-1, +5.638259427386472e-1}
	erfcF32R = [...]float32{-1.047766399936249e+1, +1.297719955372516e+1, -7.495518717768503e+0,
		+2.921019019210786e+0, -1.015265279202700e+0, +4.218463358204948e-1, -2.820767439740514e-1,
		+5.641895067754075e-1}
	erfF32T = [...]float32{+7.853861353153693e-5, -8.010193625184903e-4, +5.188327685732524e-3,
		-2.685381193529856e-2, +1.128358514861418e-1, -3.761262582423300e-1, +1.128379165726710e+0}
	erfcF64P = [...]float64{2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
		4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2,
		1.02755188689515710272e3, 5.57535335369399327526e2}
	erfcF64Q = [...]float64{1.00000000000000000000e0, 1.32281951154744992508e1, 8.67072140885989742329e1,
		3.54937778887819891062e2, 9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
		1.65666309194161350182e3, 5.57535340817727675546e2}
	erfcF64R = [...]float64{5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
		6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0}
	erfcF64S = [...]float64{1.00000000000000000000e0, 2.26052863220117276590e0, 9.39603524938001434673e0,
		1.20489539808096656605e1, 1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0}
	erfF64T = [...]float64{9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
		7.00332514112805075473e3, 5.55923013010394962768e4}
	erfF64U = [...]float64{1.00000000000000000000e0, 3.35617141647503099647e1, 5.21357949780152679795e2,
		4.59432382970980127987e3, 2.26290000613890934246e4, 4.92673942608635921086e4}
)

// poly evaluates a polynomial by Horner's rule as CHLO's materializePolynomialApproximation does: a
// multiply, then an add (not fused), each rounded to the working type.
func (f floatEmitter) poly(coeffs []float64, x *hlo.Instruction) *hlo.Instruction {
	p := f.k(coeffs[0])
	for _, c := range coeffs[1:] {
		p = f.bin(hlo.OpAdd, f.bin(hlo.OpMultiply, p, x), f.k(c))
	}
	return p
}

// widen32 returns float32 coefficients (written as float32 so that each is its decimal rounded once) as
// float64 values, for the emitter's constants.
func widen32(c []float32) []float64 {
	r := make([]float64, len(c))
	for i, v := range c {
		r[i] = float64(v)
	}
	return r
}

// erfc decomposes chlo.erfc as CHLO's legalization does (materializeErfcApproximationF32 and F64,
// Cephes' approximations; openxla/stablehlo 022ac89): float64 in float64, other floats in float32.
// Below |x| = 1 it is 1 - x T(x²) (over U(x²) in float64); above, exp(-x²) times a rational function
// (float64: P/Q below 8, R/S above, in |x|; float32: P or R in 1/x², below or above 2, over |x|), 0 where
// -x² is below -maxlog, and 2 - erfc(|x|) for negative x.
func (c *converter) erfc(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widenTo(sc, op, dtype.F32)
	one, two, zero := f.k(1), f.k(2), f.k(0)
	xSq := f.bin(hlo.OpMultiply, x, x)
	z := f.un(hlo.OpNegate, xSq)
	ax := f.un(hlo.OpAbs, x)
	expZ := f.un(hlo.OpExp, z)
	var big, small *hlo.Instruction
	var maxlog float64
	if f.shape.Elem == dtype.F64 {
		maxlog = 7.09782712893383996843e2
		pq := f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, expZ, f.poly(erfcF64P[:], ax)), f.poly(erfcF64Q[:], ax))
		rs := f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, expZ, f.poly(erfcF64R[:], ax)), f.poly(erfcF64S[:], ax))
		big = f.sel(f.compare("LT", ax, f.k(8)), pq, rs)
		small = f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, x, f.poly(erfF64T[:], xSq)), f.poly(erfF64U[:], xSq))
	} else {
		maxlog = 88.72283905206835
		r2 := f.bin(hlo.OpDivide, one, xSq)
		scale := f.bin(hlo.OpMultiply, expZ, f.bin(hlo.OpDivide, one, ax))
		pr := f.sel(f.compare("LT", ax, two), f.poly(widen32(erfcF32P[:]), r2), f.poly(widen32(erfcF32R[:]), r2))
		big = f.bin(hlo.OpMultiply, scale, pr)
		small = f.bin(hlo.OpMultiply, x, f.poly(widen32(erfF32T[:]), xSq))
	}
	big = f.sel(f.compare("LT", z, f.k(-maxlog)), zero, big)
	big = f.sel(f.compare("LT", x, zero), f.bin(hlo.OpSubtract, two, big), big)
	r := f.sel(f.compare("LT", ax, one), f.bin(hlo.OpSubtract, one, small), big)
	return f.narrow(op, r)
}

// The Lanczos approximation (g = 7, nine terms) XLA's lgamma and digamma use.
const lanczosG = 7

var lanczosCoeffs = [...]float64{
	0.99999999999980993227684700473478, 676.520368121885098567009190444019, -1259.13921672240287047156078755283,
	771.3234287776530788486528258894, -176.61502916214059906584551354, 12.507343278686904814458936853,
	-0.13857109526572011689554707, 9.984369578019570859563e-6, 1.50563273514931155834e-7,
}

// floatEmitter emits instructions over one shape in its float type: float64, or the float32 some of CHLO's
// decompositions compute in (widenTo); constants are rounded to that type.
type floatEmitter struct {
	emitter
	shape hlo.Shape
}

func (f floatEmitter) k(v float64) *hlo.Instruction {
	return f.splat(f.shape, hlo.EncodeFloat(f.shape.Elem, v))
}
func (f floatEmitter) un(code hlo.Opcode, x *hlo.Instruction) *hlo.Instruction {
	return f.add(code, f.shape, x)
}
func (f floatEmitter) bin(code hlo.Opcode, x, y *hlo.Instruction) *hlo.Instruction {
	return f.binary(code, x, y)
}

// widenTo converts x, unless it is float64, to at least the precision min (float32 or float64), as
// CHLO's materializeWithUpcast does; it fails for non-float types.
func (c *converter) widenTo(sc *scope, op *Op, min dtype.Type) (floatEmitter, *hlo.Instruction) {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "operand")
	x := ins[0]
	if !x.Shape.Elem.IsFloat() {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(x.Shape))
	}
	work := min
	if x.Shape.Elem == dtype.F64 {
		work = dtype.F64
	}
	f := floatEmitter{emitter{c, sc, op}, x.Shape.WithElem(work)}
	if x.Shape.Elem != work {
		x = f.add(hlo.OpConvert, f.shape, x)
	}
	return f, x
}

// narrow rounds a result back to the type of op's result.
func (f floatEmitter) narrow(op *Op, r *hlo.Instruction) *hlo.Instruction {
	if t := op.OutTypes; len(t) == 1 && t[0].Elem != f.shape.Elem {
		return f.add(hlo.OpConvert, t[0], r)
	}
	return r
}

// lanczosArg returns whether x < 0.5, where the reflection formula takes over, and the z at which the
// approximation of Γ(z + 1) is evaluated: -x there, x - 1 elsewhere.
func (f floatEmitter) lanczosArg(x *hlo.Instruction) (reflect, z *hlo.Instruction) {
	reflect = f.compare("LT", x, f.k(0.5))
	return reflect, f.sel(reflect, f.un(hlo.OpNegate, x), f.bin(hlo.OpSubtract, x, f.k(1)))
}

// logT returns t = z + g + 0.5 and log(t), computed as log(g + 0.5) + log1p(z / (g + 0.5)).
func (f floatEmitter) logT(z *hlo.Instruction) (t, logT *hlo.Instruction) {
	gh := f.k(lanczosG + 0.5)
	t = f.bin(hlo.OpAdd, gh, z)
	return t, f.bin(hlo.OpAdd, f.k(math.Log(lanczosG+0.5)), f.un(hlo.OpLog1p, f.bin(hlo.OpDivide, z, gh)))
}

// lgamma decomposes chlo.lgamma as CHLO's legalization does (materializeLgamma, openxla/stablehlo
// 022ac89), in float64 for float64 and float32 for every other float type: the Lanczos approximation
// 0.5 log(2π) + (z + 0.5 - t/log t) log t + log a(z), with log(π) - log|sin(π frac|x|)| - lgamma(1 - x)
// below 0.5 (frac folded to at most 0.5; where that log is infinite, its negation), +inf at ±inf.
func (c *converter) lgamma(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widenTo(sc, op, dtype.F32)
	return f.narrow(op, f.lgamma(x))
}

func (f floatEmitter) lgamma(x *hlo.Instruction) *hlo.Instruction {
	reflect, z := f.lanczosArg(x)
	a := f.k(lanczosCoeffs[0])
	for i := 1; i < len(lanczosCoeffs); i++ {
		a = f.bin(hlo.OpAdd, a, f.bin(hlo.OpDivide, f.k(lanczosCoeffs[i]), f.bin(hlo.OpAdd, z, f.k(float64(i)))))
	}
	t, logT := f.logT(z)
	sum := f.bin(hlo.OpSubtract, f.bin(hlo.OpAdd, z, f.k(0.5)), f.bin(hlo.OpDivide, t, logT))
	r := f.bin(hlo.OpMultiply, sum, logT)
	lg := f.bin(hlo.OpAdd, f.bin(hlo.OpAdd, f.k((math.Log(2)+math.Log(math.Pi))/2), r), f.un(hlo.OpLog, a))
	ax := f.un(hlo.OpAbs, x)
	frac := f.bin(hlo.OpSubtract, ax, f.un(hlo.OpFloor, ax))
	frac = f.sel(f.compare("LT", f.k(0.5), frac), f.bin(hlo.OpSubtract, f.k(1), frac), frac)
	denom := f.un(hlo.OpLog, f.un(hlo.OpSin, f.bin(hlo.OpMultiply, f.k(math.Pi), frac)))
	refl := f.bin(hlo.OpSubtract, f.bin(hlo.OpSubtract, f.k(math.Log(math.Pi)), denom), lg)
	refl = f.sel(f.add(hlo.OpIsFinite, f.shape.WithElem(dtype.PRED), denom), refl, f.un(hlo.OpNegate, denom))
	lg = f.sel(reflect, refl, lg)
	inf := f.compare("EQ", ax, f.k(math.Inf(1)))
	return f.sel(inf, f.k(math.Inf(1)), lg)
}

// digamma decomposes chlo.digamma as CHLO's legalization does (materializeDigamma, openxla/stablehlo
// 022ac89), in float64 for float64 and float32 otherwise: log t + a'(z)/a(z) - g/t from the Lanczos
// series, with ψ(1 - x) - π cos(πr)/sin(πr) below 0.5 (r = x + |floor(x + 0.5)|); -inf at 0 and NaN at
// the negative integers.
func (c *converter) digamma(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widenTo(sc, op, dtype.F32)
	return f.narrow(op, f.digamma(x))
}

func (f floatEmitter) digamma(x *hlo.Instruction) *hlo.Instruction {
	reflect, z := f.lanczosArg(x)
	zero := f.k(0)
	a, da := f.k(lanczosCoeffs[0]), zero
	for i := 1; i < len(lanczosCoeffs); i++ {
		c := f.k(lanczosCoeffs[i])
		zi := f.bin(hlo.OpAdd, z, f.k(float64(i)))
		da = f.bin(hlo.OpSubtract, da, f.bin(hlo.OpDivide, c, f.bin(hlo.OpMultiply, zi, zi)))
		a = f.bin(hlo.OpAdd, a, f.bin(hlo.OpDivide, c, zi))
	}
	t, logT := f.logT(z)
	r := f.bin(hlo.OpSubtract, f.bin(hlo.OpAdd, logT, f.bin(hlo.OpDivide, da, a)), f.bin(hlo.OpDivide, f.k(lanczosG), t))
	red := f.bin(hlo.OpAdd, x, f.un(hlo.OpAbs, f.un(hlo.OpFloor, f.bin(hlo.OpAdd, x, f.k(0.5)))))
	pi := f.k(math.Pi)
	pr := f.bin(hlo.OpMultiply, pi, red)
	refl := f.bin(hlo.OpSubtract, r, f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, pi, f.un(hlo.OpCos, pr)), f.un(hlo.OpSin, pr)))
	r = f.sel(reflect, refl, r)
	negInt := f.binary(hlo.OpAnd, f.compare("LT", x, zero), f.compare("EQ", x, f.un(hlo.OpFloor, x)))
	r = f.sel(negInt, f.k(math.NaN()), r)
	return f.sel(f.compare("EQ", x, zero), f.k(math.Inf(-1)), r)
}

// zetaCoeffs are the (2j)! / B_2j of the Euler-Maclaurin corrections of CHLO's zeta decomposition, in its
// order (highest first).
var zetaCoeffs = [...]float64{-7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
	1.1646782814350067249e14, -2.950130727918164224e12, 7.47242496e10, -1.8924375803183791606e9, 47900160.0,
	-1209600.0, 30240.0, -720.0, 12.0}

// widen2 converts the two operands of op, unless they are float64, to float32 (CHLO's minimum precision
// for zeta and polygamma), failing for non-float types.
func (c *converter) widen2(sc *scope, op *Op) (f floatEmitter, a, b *hlo.Instruction) {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2 && ins[0].Shape.Equal(ins[1].Shape), "two operands of one type")
	if !ins[0].Shape.Elem.IsFloat() {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(ins[0].Shape))
	}
	work := dtype.F32
	if ins[0].Shape.Elem == dtype.F64 {
		work = dtype.F64
	}
	f = floatEmitter{emitter{c, sc, op}, ins[0].Shape.WithElem(work)}
	for i := range ins {
		if ins[i].Shape.Elem != work {
			ins[i] = f.add(hlo.OpConvert, f.shape, ins[i])
		}
	}
	return f, ins[0], ins[1]
}

// zeta decomposes chlo.zeta(x, q), the Hurwitz zeta function Σ (q + k)^-x, as CHLO's legalization does
// (materializeZeta, openxla/stablehlo 022ac89, after XLA's math.cc), in float64 for float64 and float32
// otherwise: ten terms of the sum, the integral of the rest and twelve Euler-Maclaurin corrections by
// Horner's rule (the sum alone where the rest is below its smallest subnormal multiple); +inf at x = 1,
// NaN below; for q <= 0, NaN unless x is an integer, and at the poles (integer q) +inf for an even x,
// NaN for an odd one.
func (c *converter) zeta(sc *scope, op *Op) *hlo.Instruction {
	f, x, q := c.widen2(sc, op)
	return f.narrow(op, f.zeta(x, q))
}

func (f floatEmitter) zeta(x, q *hlo.Instruction) *hlo.Instruction {
	zero, one := f.k(0), f.k(1)
	negX := f.un(hlo.OpNegate, x)
	acc := q
	powerSum := f.bin(hlo.OpPower, q, negX)
	for range 9 {
		acc = f.bin(hlo.OpAdd, acc, one)
		powerSum = f.bin(hlo.OpAdd, powerSum, f.bin(hlo.OpPower, acc, negX))
	}
	acc = f.bin(hlo.OpAdd, acc, one)
	negPower := f.bin(hlo.OpPower, acc, negX)
	correction := f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, negPower, acc), f.bin(hlo.OpSubtract, x, one))
	invAccSq := f.bin(hlo.OpDivide, one, f.bin(hlo.OpMultiply, acc, acc))
	horner := zero
	const terms = len(zetaCoeffs)
	for i := 0; i < terms-1; i++ {
		product := f.bin(hlo.OpMultiply, f.bin(hlo.OpAdd, x, f.k(float64(2*terms-2-2*i))), f.bin(hlo.OpAdd, x, f.k(float64(2*terms-3-2*i))))
		horner = f.bin(hlo.OpMultiply, product, f.bin(hlo.OpMultiply, invAccSq, f.bin(hlo.OpAdd, horner, f.k(1/zetaCoeffs[i]))))
	}
	xDivAcc := f.bin(hlo.OpDivide, x, acc)
	tail := f.bin(hlo.OpMultiply, negPower, f.bin(hlo.OpAdd, f.k(0.5),
		f.bin(hlo.OpMultiply, xDivAcc, f.bin(hlo.OpAdd, f.k(1/zetaCoeffs[terms-1]), horner))))
	accurate := f.bin(hlo.OpAdd, f.bin(hlo.OpAdd, powerSum, correction), tail)
	smallest := math.SmallestNonzeroFloat64
	if f.shape.Elem == dtype.F32 {
		smallest = math.SmallestNonzeroFloat32
	}
	enough := f.compare("LT", f.un(hlo.OpAbs, negPower), f.bin(hlo.OpMultiply, f.un(hlo.OpAbs, powerSum), f.k(smallest)))
	s := f.sel(enough, powerSum, accurate)
	nan, inf := f.k(math.NaN()), f.k(math.Inf(1))
	s = f.sel(f.compare("LT", x, one), nan, s)
	qLeZero := f.compare("LE", q, zero)
	xInt := f.compare("EQ", x, f.un(hlo.OpFloor, x))
	s = f.sel(f.binary(hlo.OpAnd, qLeZero, f.add(hlo.OpNot, xInt.Shape, xInt)), nan, s)
	pole := f.binary(hlo.OpAnd, qLeZero, f.compare("EQ", q, f.un(hlo.OpFloor, q)))
	evenInt := f.binary(hlo.OpAnd, xInt, f.compare("EQ", f.bin(hlo.OpRemainder, x, f.k(2)), zero))
	s = f.sel(pole, f.sel(evenInt, inf, nan), s)
	return f.sel(f.compare("EQ", x, one), inf, s)
}

// polygamma decomposes chlo.polygamma(n, x), the n-th derivative of digamma, as CHLO's legalization does
// (materializePolygamma), in float64 for float64 and float32 otherwise: (2 (n mod 2) - 1) exp(lgamma(n +
// 1)) zeta(n + 1, x), digamma(x) for n = 0, NaN unless n is a non-negative integer.
func (c *converter) polygamma(sc *scope, op *Op) *hlo.Instruction {
	f, n, x := c.widen2(sc, op)
	one, two, zero := f.k(1), f.k(2), f.k(0)
	sign := f.bin(hlo.OpSubtract, f.bin(hlo.OpMultiply, two, f.bin(hlo.OpRemainder, n, two)), one)
	np1 := f.bin(hlo.OpAdd, n, one)
	r := f.bin(hlo.OpMultiply, f.bin(hlo.OpMultiply, sign, f.un(hlo.OpExp, f.lgamma(np1))), f.zeta(np1, x))
	r = f.sel(f.compare("EQ", n, zero), f.digamma(x), r)
	bad := f.binary(hlo.OpOr, f.compare("NE", n, f.un(hlo.OpFloor, n)), f.compare("LT", n, zero))
	return f.narrow(op, f.sel(bad, f.k(math.NaN()), r))
}

// The polynomials of CHLO's erf_inv decomposition (ChloLegalizeToStablehlo.cpp, erfInv32 and erfInv64;
// Giles, "Approximating the erfinv function", GPU Computing Gems Jade, 2011), highest degree first: in
// float32 for w = -log1p(-x²) below 5 (in w - 2.5) and above (in sqrt(w) - 3); in float64 below 6.25
// (in w - 3.125), below 16 (in sqrt(w) - 3.25) and above (in sqrt(w) - 5).
var (
	erfInv32Central = [...]float32{2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
		-0.00125372503, -0.00417768164, 0.246640727, 1.50140941}
	erfInv32Tail = [...]float32{-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
		-0.0076224613, 0.00943887047, 1.00167406, 2.83297682}
	erfInv64Central = [...]float64{-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
		1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17, 6.6376381343583238325e-15,
		-4.0545662729752068639e-14, -8.1519341976054721522e-14, 2.6335093153082322977e-12,
		-1.2975133253453532498e-11, -5.4154120542946279317e-11, 1.051212273321532285e-09,
		-4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
		-1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352,
		-0.00074070253416626697512, -0.0060336708714301490533, 0.24015818242558961693, 1.6536545626831027356}
	erfInv64Middle = [...]float64{2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
		1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06, 2.9234449089955446044e-06,
		1.2475304481671778723e-05, -4.7318229009055733981e-05, 6.8284851459573175448e-05,
		2.4031110387097893999e-05, -0.0003550375203628474796, 0.00095328937973738049703,
		-0.0016882755560235047313, 0.0024914420961078508066, -0.0037512085075692412107, 0.005370914553590063617,
		1.0052589676941592334, 3.0838856104922207635}
	erfInv64Tail = [...]float64{-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
		-3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
		2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
		-9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
		7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
		4.8499064014085844221}
)

// erfInv decomposes chlo.erf_inv exactly as CHLO's legalization does, so that the result has XLA's bits
// (it has no erf_inv instruction; jax.random.normal goes through this): float64 in float64, every other
// float type in float32 (widened, then rounded back). Each step rounds in that type: a polynomial in
// w = -log1p(-x²) evaluated by Horner's rule with a multiply and an add (not fused), times x; ±inf at ±1,
// NaN beyond (log1p of a value below -1).
func (c *converter) erfInv(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widenTo(sc, op, dtype.F32)
	w := f.un(hlo.OpNegate, f.un(hlo.OpLog1p, f.bin(hlo.OpMultiply, x, f.un(hlo.OpNegate, x))))
	horner := func(p, c, v *hlo.Instruction) *hlo.Instruction {
		return f.bin(hlo.OpAdd, c, f.bin(hlo.OpMultiply, p, v))
	}
	var p *hlo.Instruction
	if f.shape.Elem == dtype.F64 {
		lt625, lt16 := f.compare("LT", w, f.k(6.25)), f.compare("LT", w, f.k(16))
		coeff := func(i int) *hlo.Instruction {
			c := f.k(erfInv64Central[i])
			if i < len(erfInv64Middle) {
				c = f.sel(lt625, c, f.k(erfInv64Middle[i]))
			}
			if i < len(erfInv64Tail) {
				c = f.sel(lt16, c, f.k(erfInv64Tail[i]))
			}
			return c
		}
		sqrtW := f.un(hlo.OpSqrt, w)
		v := f.sel(lt625, f.bin(hlo.OpSubtract, w, f.k(3.125)),
			f.bin(hlo.OpSubtract, sqrtW, f.sel(lt16, f.k(3.25), f.k(5))))
		p = coeff(0)
		for i := 1; i < len(erfInv64Tail); i++ {
			p = horner(p, coeff(i), v)
		}
		for i := len(erfInv64Tail); i < len(erfInv64Middle); i++ {
			p = f.sel(lt16, horner(p, coeff(i), v), p)
		}
		for i := len(erfInv64Middle); i < len(erfInv64Central); i++ {
			p = f.sel(lt625, horner(p, coeff(i), v), p)
		}
	} else {
		lt5 := f.compare("LT", w, f.k(5))
		coeff := func(i int) *hlo.Instruction {
			return f.sel(lt5, f.k(float64(erfInv32Central[i])), f.k(float64(erfInv32Tail[i])))
		}
		v := f.sel(lt5, f.bin(hlo.OpSubtract, w, f.k(2.5)), f.bin(hlo.OpSubtract, f.un(hlo.OpSqrt, w), f.k(3)))
		p = coeff(0)
		for i := 1; i < len(erfInv32Central); i++ {
			p = horner(p, coeff(i), v)
		}
	}
	r := f.bin(hlo.OpMultiply, p, x)
	r = f.sel(f.compare("EQ", f.un(hlo.OpAbs, x), f.k(1)), f.bin(hlo.OpMultiply, x, f.k(math.Inf(1))), r)
	return f.narrow(op, r)
}

// Cephes' Chebyshev coefficients of exp(-|x|) I1(x) that CHLO's bessel_i1e decomposition uses
// (materializeBesselI1eApproximationF32 and F64): in (|x|/2 - 2) up to 8, in (32/|x| - 2) beyond.
var (
	i1eF32A = [...]float32{9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
		-8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
		4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
		-1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
		2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
		-1.76416518357834055153e-1, 2.52587186443633654823e-1}
	i1eF32B = [...]float32{-3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
		-3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
		7.78576235018280120474e-1}
	i1eF64A = [...]float64{2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
		-1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
		3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
		-6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
		9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
		-8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
		4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
		-1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
		2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
		-1.76416518357834055153e-1, 2.52587186443633654823e-1}
	i1eF64B = [...]float64{7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
		-3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
		-1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
		4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
		-7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
		3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
		-3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
		-3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
		7.78576235018280120474e-1}
)

// chebyshev evaluates a Chebyshev series by Clenshaw's recurrence as CHLO's
// materializeChebyshevPolynomialApproximation does: b0 = x b1 - b2 + c for each coefficient, then
// (b0 - b2) / 2, each operation rounded on its own.
func (f floatEmitter) chebyshev(coeffs []float64, x *hlo.Instruction) *hlo.Instruction {
	b0, b1, b2 := f.k(0), f.k(0), f.k(0)
	for _, c := range coeffs {
		b2, b1 = b1, b0
		b0 = f.bin(hlo.OpAdd, f.bin(hlo.OpSubtract, f.bin(hlo.OpMultiply, x, b1), b2), f.k(c))
	}
	return f.bin(hlo.OpMultiply, f.bin(hlo.OpSubtract, b0, b2), f.k(0.5))
}

// besselI1e decomposes chlo.bessel_i1e, exp(-|x|) I1(x), as CHLO's legalization does
// (materializeBesselI1eApproximation, openxla/stablehlo 022ac89), in float64 for float64 and float32
// otherwise: sign(x) times |x| A(|x|/2 - 2) up to |x| = 8, B(32/|x| - 2) / sqrt|x| beyond.
func (c *converter) besselI1e(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widenTo(sc, op, dtype.F32)
	a, b := widen32(i1eF32A[:]), widen32(i1eF32B[:])
	if f.shape.Elem == dtype.F64 {
		a, b = i1eF64A[:], i1eF64B[:]
	}
	z := f.un(hlo.OpAbs, x)
	two := f.k(2)
	le8 := f.bin(hlo.OpMultiply, z, f.chebyshev(a, f.bin(hlo.OpSubtract, f.bin(hlo.OpMultiply, f.k(0.5), z), two)))
	gt8 := f.bin(hlo.OpDivide, f.chebyshev(b, f.bin(hlo.OpSubtract, f.bin(hlo.OpDivide, f.k(32), z), two)), f.un(hlo.OpSqrt, z))
	r := f.sel(f.compare("LE", z, f.k(8)), le8, gt8)
	return f.narrow(op, f.bin(hlo.OpMultiply, f.un(hlo.OpSign, x), r))
}

// mulhi decomposes chlo.mulhi, the high half of the double-width product of two integers: for widths up
// to 32 bits a product in 64 bits shifted down; for 64 bits the schoolbook product of 32-bit halves,
// corrected for the signs of signed operands.
func (c *converter) mulhi(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2, "operands")
	x, y := ins[0], ins[1]
	t := x.Shape.Elem
	if !t.IsInteger() || !y.Shape.Equal(x.Shape) {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(x.Shape))
	}
	e := emitter{c, sc, op}
	w := t.BitWidth()
	shift := hlo.OpShiftRightLogical
	wide := dtype.U64
	if t.IsSigned() {
		shift, wide = hlo.OpShiftRightArithmetic, dtype.S64
	}
	ws := x.Shape.WithElem(wide)
	if w <= 32 {
		p := e.binary(hlo.OpMultiply, e.add(hlo.OpConvert, ws, x), e.add(hlo.OpConvert, ws, y))
		return e.add(hlo.OpConvert, x.Shape, e.binary(shift, p, e.splat(ws, uint64(w))))
	}
	us := x.Shape.WithElem(dtype.U64)
	a, b := e.add(hlo.OpBitcastConvert, us, x), e.add(hlo.OpBitcastConvert, us, y)
	if !t.IsSigned() {
		a, b = x, y
	}
	k32, lo := e.splat(us, 32), e.splat(us, 0xffffffff)
	al, ah := e.binary(hlo.OpAnd, a, lo), e.binary(hlo.OpShiftRightLogical, a, k32)
	bl, bh := e.binary(hlo.OpAnd, b, lo), e.binary(hlo.OpShiftRightLogical, b, k32)
	ll, lh := e.binary(hlo.OpMultiply, al, bl), e.binary(hlo.OpMultiply, al, bh)
	hl, hh := e.binary(hlo.OpMultiply, ah, bl), e.binary(hlo.OpMultiply, ah, bh)
	mid := e.binary(hlo.OpAdd, e.binary(hlo.OpShiftRightLogical, ll, k32),
		e.binary(hlo.OpAdd, e.binary(hlo.OpAnd, lh, lo), e.binary(hlo.OpAnd, hl, lo)))
	hi := e.binary(hlo.OpAdd, hh, e.binary(hlo.OpAdd, e.binary(hlo.OpShiftRightLogical, lh, k32),
		e.binary(hlo.OpAdd, e.binary(hlo.OpShiftRightLogical, hl, k32), e.binary(hlo.OpShiftRightLogical, mid, k32))))
	if !t.IsSigned() {
		return hi
	}
	// For signed operands, subtract b when a < 0 and a when b < 0 (mod 2^64).
	zero := e.splat(us, 0)
	negA := e.compare("LT", x, e.splat(x.Shape, 0))
	negB := e.compare("LT", y, e.splat(y.Shape, 0))
	hi = e.binary(hlo.OpSubtract, hi, e.sel(negA, b, zero))
	hi = e.binary(hlo.OpSubtract, hi, e.sel(negB, a, zero))
	return e.add(hlo.OpBitcastConvert, x.Shape, hi)
}

// realPart is the element type of the real and imaginary parts of complex type t.
func realPart(t dtype.Type) dtype.Type {
	if t == dtype.C128 {
		return dtype.F64
	}
	return dtype.F32
}

// square decomposes chlo.square as StableHLO's CHLO decomposition does: x * x for a real x; for a complex
// z = x + iy, (x - y)(x + y) + 2(xy)i, with a real part of exactly 0 where |x| = |y| and x is finite.
func (c *converter) square(sc *scope, op *Op) *hlo.Instruction {
	z := c.unaryOperand(op, sc)
	e := emitter{c, sc, op}
	t := z.Shape
	if !t.Elem.IsComplex() {
		return e.binary(hlo.OpMultiply, z, z)
	}
	rt := t.WithElem(realPart(t.Elem))
	x := e.add(hlo.OpReal, rt, z)
	y := e.add(hlo.OpImag, rt, z)
	diff := e.binary(hlo.OpMultiply, e.binary(hlo.OpSubtract, x, y), e.binary(hlo.OpAdd, x, y))
	same := e.binary(hlo.OpAnd, e.add(hlo.OpIsFinite, rt.WithElem(dtype.PRED), x),
		e.compare("EQ", e.add(hlo.OpAbs, rt, x), e.add(hlo.OpAbs, rt, y)))
	re := e.sel(same, e.splat(rt, 0), diff)
	im := e.binary(hlo.OpMultiply, e.splat(rt, rt.Elem.EncodeFloat64(2)), e.binary(hlo.OpMultiply, x, y))
	return e.add(hlo.OpComplex, t, re, im)
}

// conj decomposes chlo.conj(z) as CHLO's decomposition does: complex(real(z), -imag(z)).
func (c *converter) conj(sc *scope, op *Op) *hlo.Instruction {
	z := c.unaryOperand(op, sc)
	if !z.Shape.Elem.IsComplex() {
		c.fail(op.Pos, "%s of %s: the operand is not complex", op.Name, typeString(z.Shape))
	}
	e := emitter{c, sc, op}
	rt := z.Shape.WithElem(realPart(z.Shape.Elem))
	im := e.add(hlo.OpNegate, rt, e.add(hlo.OpImag, rt, z))
	return e.add(hlo.OpComplex, z.Shape, e.add(hlo.OpReal, rt, z), im)
}

// isInf decomposes chlo.is_inf, is_pos_inf and is_neg_inf of a float x as CHLO's decomposition does:
// |x| == +inf, x == +inf, x == -inf.
func isInf(sign int) handler {
	return func(c *converter, sc *scope, op *Op) *hlo.Instruction {
		x := c.unaryOperand(op, sc)
		if !x.Shape.Elem.IsFloat() || math.IsNaN(x.Shape.Elem.DecodeFloat64(x.Shape.Elem.EncodeFloat64(math.Inf(1)))) {
			c.fail(op.Pos, "%s of %s: the operand is not a float type with infinities", op.Name, typeString(x.Shape))
		}
		e := emitter{c, sc, op}
		if sign == 0 {
			x = e.add(hlo.OpAbs, x.Shape, x)
			sign = 1
		}
		inf := e.splat(x.Shape, x.Shape.Elem.EncodeFloat64(math.Inf(sign)))
		return e.compare("EQ", x, inf)
	}
}

// unaryOperand returns the one operand of an elementwise op, an array.
func (c *converter) unaryOperand(op *Op, sc *scope) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1 && ins[0].Shape.IsArray(), "operand")
	return ins[0]
}
