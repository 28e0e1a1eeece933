package stablehlo

import (
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
