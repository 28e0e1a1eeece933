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

// erfc decomposes chlo.erfc(x) as 1 - erf(x) computed in f64, then rounded to x's type: in f64 the
// cancellation costs nothing a narrower result can show for the arguments where erfc is not tiny.
func (c *converter) erfc(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "operand")
	x := ins[0]
	if !x.Shape.Elem.IsFloat() {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(x.Shape))
	}
	e := emitter{c, sc, op}
	wide := x.Shape.WithElem(dtype.F64)
	xw := x
	if x.Shape.Elem != dtype.F64 {
		xw = e.add(hlo.OpConvert, wide, x)
	}
	one := e.splat(wide, hlo.EncodeFloat(dtype.F64, 1))
	r := e.binary(hlo.OpSubtract, one, e.add(hlo.OpErf, wide, xw))
	if x.Shape.Elem == dtype.F64 {
		return r
	}
	return e.add(hlo.OpConvert, x.Shape, r)
}

// The Lanczos approximation (g = 7, nine terms) XLA's lgamma and digamma use.
const lanczosG = 7

var lanczosCoeffs = [...]float64{
	0.99999999999980993227684700473478, 676.520368121885098567009190444019, -1259.13921672240287047156078755283,
	771.3234287776530788486528258894, -176.61502916214059906584551354, 12.507343278686904814458936853,
	-0.13857109526572011689554707, 9.984369578019570859563e-6, 1.50563273514931155834e-7,
}

// f64 emits instructions in float64 over one shape.
type f64 struct {
	emitter
	shape hlo.Shape
}

func (f f64) k(v float64) *hlo.Instruction { return f.splat(f.shape, math.Float64bits(v)) }
func (f f64) un(code hlo.Opcode, x *hlo.Instruction) *hlo.Instruction {
	return f.add(code, f.shape, x)
}
func (f f64) bin(code hlo.Opcode, x, y *hlo.Instruction) *hlo.Instruction {
	return f.binary(code, x, y)
}

// widen converts x to float64 for a decomposition computed in float64, failing for non-float types.
func (c *converter) widen(sc *scope, op *Op) (f64, *hlo.Instruction) {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1, "operand")
	x := ins[0]
	if !x.Shape.Elem.IsFloat() {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(x.Shape))
	}
	f := f64{emitter{c, sc, op}, x.Shape.WithElem(dtype.F64)}
	if x.Shape.Elem != dtype.F64 {
		x = f.add(hlo.OpConvert, f.shape, x)
	}
	return f, x
}

// narrow rounds a float64 result back to the type of op's result.
func (f f64) narrow(op *Op, r *hlo.Instruction) *hlo.Instruction {
	if t := op.OutTypes; len(t) == 1 && t[0].Elem != dtype.F64 {
		return f.add(hlo.OpConvert, t[0], r)
	}
	return r
}

// lanczos returns, for z = x - 1 (x >= 0.5), the series a = c0 + sum ci/(z+i), its derivative term
// -sum ci/(z+i)^2, and t = z + g + 0.5.
func (f f64) lanczos(z *hlo.Instruction) (a, da, t *hlo.Instruction) {
	a, da = f.k(lanczosCoeffs[0]), f.k(0)
	for i := 1; i < len(lanczosCoeffs); i++ {
		zi := f.bin(hlo.OpAdd, z, f.k(float64(i)))
		term := f.bin(hlo.OpDivide, f.k(lanczosCoeffs[i]), zi)
		a = f.bin(hlo.OpAdd, a, term)
		da = f.bin(hlo.OpSubtract, da, f.bin(hlo.OpDivide, term, zi))
	}
	t = f.bin(hlo.OpAdd, z, f.k(lanczosG+0.5))
	return a, da, t
}

// reflect returns whether x < 0.5, where the reflection formulas take over, and the argument the
// approximation is evaluated at: x, or 1 - x.
func (f f64) reflect(x *hlo.Instruction) (*hlo.Instruction, *hlo.Instruction) {
	small := f.compare("LT", x, f.k(0.5))
	return small, f.sel(small, f.bin(hlo.OpSubtract, f.k(1), x), x)
}

// sinPi returns |sin(pi x)| computed from the fractional part of |x|, exact at the integers.
func (f f64) sinPi(x *hlo.Instruction) *hlo.Instruction {
	ax := f.un(hlo.OpAbs, x)
	frac := f.bin(hlo.OpSubtract, ax, f.un(hlo.OpFloor, ax))
	red := f.sel(f.compare("GT", frac, f.k(0.5)), f.bin(hlo.OpSubtract, f.k(1), frac), frac)
	return f.un(hlo.OpSin, f.bin(hlo.OpMultiply, f.k(math.Pi), red))
}

// lgamma decomposes chlo.lgamma: log|Γ(x)| by the Lanczos approximation in float64, with the reflection
// formula log(π / |sin(πx)|) - lgamma(1 - x) below 0.5; +inf at the poles and at ±inf.
func (c *converter) lgamma(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widen(sc, op)
	return f.narrow(op, f.lgamma(x))
}

func (f f64) lgamma(x *hlo.Instruction) *hlo.Instruction {
	small, y := f.reflect(x)
	z := f.bin(hlo.OpSubtract, y, f.k(1))
	a, _, t := f.lanczos(z)
	// 0.5 log(2π) + (z + 0.5) log(t) - t + log(a)
	logT := f.un(hlo.OpLog, t)
	r := f.bin(hlo.OpAdd, f.k(0.5*math.Log(2*math.Pi)), f.bin(hlo.OpMultiply, f.bin(hlo.OpAdd, z, f.k(0.5)), logT))
	r = f.bin(hlo.OpAdd, f.bin(hlo.OpSubtract, r, t), f.un(hlo.OpLog, a))
	refl := f.bin(hlo.OpSubtract, f.un(hlo.OpLog, f.bin(hlo.OpDivide, f.k(math.Pi), f.sinPi(x))), r)
	r = f.sel(small, refl, r)
	inf := f.compare("EQ", f.un(hlo.OpAbs, x), f.k(math.Inf(1)))
	return f.sel(inf, f.k(math.Inf(1)), r)
}

// digamma decomposes chlo.digamma: Γ'(x)/Γ(x) from the derivative of the Lanczos approximation in
// float64, with the reflection formula ψ(1 - x) - π cos(πx)/sin(πx) below 0.5; NaN at the poles.
func (c *converter) digamma(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widen(sc, op)
	return f.narrow(op, f.digamma(x))
}

func (f f64) digamma(x *hlo.Instruction) *hlo.Instruction {
	small, y := f.reflect(x)
	z := f.bin(hlo.OpSubtract, y, f.k(1))
	a, da, t := f.lanczos(z)
	// log(t) + da/a - g/t
	r := f.bin(hlo.OpAdd, f.un(hlo.OpLog, t), f.bin(hlo.OpDivide, da, a))
	r = f.bin(hlo.OpSubtract, r, f.bin(hlo.OpDivide, f.k(lanczosG), t))
	pix := f.bin(hlo.OpMultiply, f.k(math.Pi), x)
	cot := f.bin(hlo.OpDivide, f.un(hlo.OpCos, pix), f.un(hlo.OpSin, pix))
	refl := f.bin(hlo.OpSubtract, r, f.bin(hlo.OpMultiply, f.k(math.Pi), cot))
	r = f.sel(small, refl, r)
	pole := f.binary(hlo.OpAnd, f.compare("LE", x, f.k(0)), f.compare("EQ", x, f.un(hlo.OpFloor, x)))
	return f.sel(pole, f.k(math.NaN()), r)
}

// The Euler-Maclaurin summation of the Hurwitz zeta function of Cephes, which CHLO's zeta decomposition
// follows: the (2j)! / B_2j that divide its correction terms.
var zetaCorrections = [...]float64{12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
	7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
	1.8152105401943546773e17, -7.1661652561756670113e18}

// widen2 converts the two operands of op to float64, failing for non-float types.
func (c *converter) widen2(sc *scope, op *Op) (f f64, a, b *hlo.Instruction) {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 2 && ins[0].Shape.Equal(ins[1].Shape), "two operands of one type")
	if !ins[0].Shape.Elem.IsFloat() {
		c.fail(op.Pos, "%s of %s is not supported", op.Name, typeString(ins[0].Shape))
	}
	f = f64{emitter{c, sc, op}, ins[0].Shape.WithElem(dtype.F64)}
	for i := range ins {
		if ins[i].Shape.Elem != dtype.F64 {
			ins[i] = f.add(hlo.OpConvert, f.shape, ins[i])
		}
	}
	return f, ins[0], ins[1]
}

// zeta decomposes chlo.zeta(x, q), the Hurwitz zeta function Σ (q + k)^-x, in float64: ten terms of the
// sum, the integral of the rest and twelve Euler-Maclaurin corrections, as CHLO's decomposition does;
// +inf at x = 1, NaN below; for q <= 0, NaN unless x is an integer, and at the poles (integer q) +inf
// for an even x, NaN for an odd one.
func (c *converter) zeta(sc *scope, op *Op) *hlo.Instruction {
	f, x, q := c.widen2(sc, op)
	return f.narrow(op, f.zeta(x, q))
}

func (f f64) zeta(x, q *hlo.Instruction) *hlo.Instruction {
	negX := f.un(hlo.OpNegate, x)
	s := f.bin(hlo.OpPower, q, negX)
	a, b := q, s
	for range 9 {
		a = f.bin(hlo.OpAdd, a, f.k(1))
		b = f.bin(hlo.OpPower, a, negX)
		s = f.bin(hlo.OpAdd, s, b)
	}
	w := a
	s = f.bin(hlo.OpAdd, s, f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, b, w), f.bin(hlo.OpSubtract, x, f.k(1))))
	s = f.bin(hlo.OpSubtract, s, f.bin(hlo.OpMultiply, f.k(0.5), b))
	fac, k := f.k(1), 0.0
	for _, corr := range zetaCorrections {
		fac = f.bin(hlo.OpMultiply, fac, f.bin(hlo.OpAdd, x, f.k(k)))
		b = f.bin(hlo.OpDivide, b, w)
		s = f.bin(hlo.OpAdd, s, f.bin(hlo.OpDivide, f.bin(hlo.OpMultiply, fac, b), f.k(corr)))
		k++
		fac = f.bin(hlo.OpMultiply, fac, f.bin(hlo.OpAdd, x, f.k(k)))
		b = f.bin(hlo.OpDivide, b, w)
		k++
	}
	nan, inf := f.k(math.NaN()), f.k(math.Inf(1))
	s = f.sel(f.compare("EQ", x, f.k(1)), inf, s)
	s = f.sel(f.compare("LT", x, f.k(1)), nan, s)
	qLeZero := f.compare("LE", q, f.k(0))
	xNotInt := f.compare("NE", x, f.un(hlo.OpFloor, x))
	s = f.sel(f.binary(hlo.OpAnd, qLeZero, xNotInt), nan, s)
	pole := f.binary(hlo.OpAnd, qLeZero, f.compare("EQ", q, f.un(hlo.OpFloor, q)))
	xOdd := f.compare("NE", f.bin(hlo.OpRemainder, x, f.k(2)), f.k(0))
	return f.sel(pole, f.sel(xOdd, nan, inf), s)
}

// polygamma decomposes chlo.polygamma(n, x), the n-th derivative of digamma, as CHLO's decomposition
// does: digamma(x) for n = 0, else (-1)^(n+1) n! zeta(n + 1, x), in float64; NaN unless n is a
// non-negative integer.
func (c *converter) polygamma(sc *scope, op *Op) *hlo.Instruction {
	f, n, x := c.widen2(sc, op)
	one := f.k(1)
	np1 := f.bin(hlo.OpAdd, n, one)
	sign := f.sel(f.compare("EQ", f.bin(hlo.OpRemainder, n, f.k(2)), f.k(0)), f.k(-1), one)
	r := f.bin(hlo.OpMultiply, f.bin(hlo.OpMultiply, sign, f.un(hlo.OpExp, f.lgamma(np1))), f.zeta(np1, x))
	r = f.sel(f.compare("EQ", n, f.k(0)), f.digamma(x), r)
	bad := f.binary(hlo.OpOr, f.compare("NE", n, f.un(hlo.OpFloor, n)), f.compare("LT", n, f.k(0)))
	return f.narrow(op, f.sel(bad, f.k(math.NaN()), r))
}

// Giles' single-precision approximation of erfinv ("Approximating the erfinv function", GPU Computing
// Gems Jade, 2011): coefficients for w = -log((1-x)(1+x)) below 5 (in w - 2.5) and above (in sqrt(w) - 3),
// highest degree first.
var (
	erfInvCentral = [...]float64{2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
		-0.00125372503, -0.00417768164, 0.246640727, 1.50140941}
	erfInvTail = [...]float64{-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
		-0.0076224613, 0.00943887047, 1.00167406, 2.83297682}
)

// erfInv decomposes chlo.erf_inv: Giles' approximation refined by three Newton steps on erf in float64;
// ±inf at ±1 and NaN beyond.
func (c *converter) erfInv(sc *scope, op *Op) *hlo.Instruction {
	f, y := c.widen(sc, op)
	w := f.un(hlo.OpNegate, f.un(hlo.OpLog, f.bin(hlo.OpMultiply, f.bin(hlo.OpSubtract, f.k(1), y), f.bin(hlo.OpAdd, f.k(1), y))))
	poly := func(coeffs []float64, v *hlo.Instruction) *hlo.Instruction {
		p := f.k(coeffs[0])
		for _, c := range coeffs[1:] {
			p = f.bin(hlo.OpAdd, f.k(c), f.bin(hlo.OpMultiply, p, v))
		}
		return p
	}
	central := poly(erfInvCentral[:], f.bin(hlo.OpSubtract, w, f.k(2.5)))
	tail := poly(erfInvTail[:], f.bin(hlo.OpSubtract, f.un(hlo.OpSqrt, w), f.k(3)))
	x := f.bin(hlo.OpMultiply, f.sel(f.compare("LT", w, f.k(5)), central, tail), y)
	// Newton on erf(x) = y: x -= (erf(x) - y) / (2/√π · exp(-x²)).
	for i := 0; i < 3; i++ {
		slope := f.bin(hlo.OpMultiply, f.k(2/math.SqrtPi), f.un(hlo.OpExp, f.un(hlo.OpNegate, f.bin(hlo.OpMultiply, x, x))))
		step := f.bin(hlo.OpDivide, f.bin(hlo.OpSubtract, f.un(hlo.OpErf, x), y), slope)
		// Where the slope underflows (|x| beyond 26) the estimate stands.
		x = f.sel(f.add(hlo.OpIsFinite, f.shape.WithElem(dtype.PRED), step), f.bin(hlo.OpSubtract, x, step), x)
	}
	ay := f.un(hlo.OpAbs, y)
	x = f.sel(f.compare("EQ", ay, f.k(1)), f.bin(hlo.OpMultiply, y, f.k(math.Inf(1))), x)
	x = f.sel(f.compare("GT", ay, f.k(1)), f.k(math.NaN()), x)
	return f.narrow(op, x)
}

// besselI1e decomposes chlo.bessel_i1e, exp(-|x|) I1(x), in float64: the power series
// I1(x) = sum (x/2)^(2k+1) / (k! (k+1)!) up to |x| = 20, and the asymptotic expansion
// sign(x) (1 - 3/(8|x|) - 15/(128 x²) - 315/(3072 |x|³) - ...) / sqrt(2π|x|) beyond.
func (c *converter) besselI1e(sc *scope, op *Op) *hlo.Instruction {
	f, x := c.widen(sc, op)
	ax := f.un(hlo.OpAbs, x)
	// The series, on x clamped to where it is used so that no term overflows.
	xs := f.sel(f.compare("LE", ax, f.k(20)), x, f.k(0))
	q := f.bin(hlo.OpMultiply, f.bin(hlo.OpMultiply, xs, xs), f.k(0.25))
	term := f.bin(hlo.OpMultiply, xs, f.k(0.5))
	sum := term
	for k := 0; k < 60; k++ {
		term = f.bin(hlo.OpMultiply, term, f.bin(hlo.OpDivide, q, f.k(float64((k+1)*(k+2)))))
		sum = f.bin(hlo.OpAdd, sum, term)
	}
	series := f.bin(hlo.OpMultiply, sum, f.un(hlo.OpExp, f.un(hlo.OpNegate, f.un(hlo.OpAbs, xs))))
	// The asymptotic expansion: a_k = prod_{j=1..k} (4 - (2j-1)²) / (k! 8^k), terms (-1)^k a_k / |x|^k.
	xa := f.sel(f.compare("GT", ax, f.k(20)), ax, f.k(20))
	inv := f.bin(hlo.OpDivide, f.k(1), xa)
	acc, a, p := f.k(1), 1.0, f.k(1)
	for k := 1; k <= 8; k++ {
		a *= (4 - float64((2*k-1)*(2*k-1))) / float64(8*k)
		p = f.bin(hlo.OpMultiply, p, inv)
		acc = f.bin(hlo.OpAdd, acc, f.bin(hlo.OpMultiply, p, f.k(math.Pow(-1, float64(k))*a)))
	}
	asym := f.bin(hlo.OpDivide, acc, f.un(hlo.OpSqrt, f.bin(hlo.OpMultiply, xa, f.k(2*math.Pi))))
	asym = f.bin(hlo.OpMultiply, asym, f.un(hlo.OpSign, x))
	r := f.sel(f.compare("LE", ax, f.k(20)), series, asym)
	r = f.sel(f.compare("NE", x, x), x, r)
	return f.narrow(op, r)
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
