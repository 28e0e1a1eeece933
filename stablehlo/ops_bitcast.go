package stablehlo

import (
	"octet/dtype"
	"octet/hlo"
)

func init() {
	special["stablehlo.bitcast_convert"] = (*converter).bitcastConvert
}

// unsignedOfWidth is the unsigned integer type of n bits; 0 when there is none.
func unsignedOfWidth(n int64) dtype.Type {
	switch n {
	case 8:
		return dtype.U8
	case 16:
		return dtype.U16
	case 32:
		return dtype.U32
	case 64:
		return dtype.U64
	}
	return 0
}

// bitcastConvert converts bitcast_convert. StableHLO's i1 is one bit wide where HLO's pred is a byte, so
// a bitcast between i1[..., n] and an n-bit type is spelled out on n-bit unsigned integers, element k
// of the last dimension being bit k: packing shifts each bit into place and ORs them together, unpacking
// shifts each bit down and compares it with zero.
func (c *converter) bitcastConvert(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	out := c.result(op)
	c.need(op, len(ins) == 1, "one operand")
	x := ins[0]
	if (x.Shape.Elem == dtype.PRED) == (out.Elem == dtype.PRED) || !x.Shape.IsArray() || !out.IsArray() {
		return c.add(sc, op, hlo.OpBitcastConvert, out, x)
	}
	e := emitter{c, sc, op}
	bits, wide := x.Shape, out
	if x.Shape.Elem != dtype.PRED {
		bits, wide = out, x.Shape
	}
	r := bits.Rank()
	n := int64(0)
	if r > 0 {
		n = bits.Dims[r-1]
	}
	u := unsignedOfWidth(n)
	if u == 0 || wide.Elem.BitWidth() != int(n) || wide.Rank() != r-1 {
		c.fail(op.Pos, "%s from %s to %s: the last dimension of the i1 side must be the other's bit width", op.Name, x.Shape.String(), out.String())
	}
	ushape := bits.WithElem(u)
	shift := e.add(hlo.OpIota, ushape)
	shift.SetAttr("iota_dimension", hlo.Int(r-1))
	zero := e.splat(hlo.Scalar(u), 0)
	if x.Shape.Elem == dtype.PRED {
		// Pack.
		v := e.binary(hlo.OpShiftLeft, e.add(hlo.OpConvert, ushape, x), shift)
		or := c.scalarBinary(op, "or", hlo.OpOr, u)
		packed := e.add(hlo.OpReduce, wide.WithElem(u), v, zero)
		packed.SetAttr("dimensions", hlo.Ints{int64(r - 1)})
		packed.SetAttr("to_apply", hlo.CompRef{Comp: or})
		return e.add(hlo.OpBitcastConvert, out, packed)
	}
	// Unpack.
	w := e.add(hlo.OpBitcastConvert, wide.WithElem(u), x)
	dims := make(hlo.Ints, r-1)
	for i := range dims {
		dims[i] = int64(i)
	}
	b := e.add(hlo.OpBroadcast, ushape, w)
	b.SetAttr("dimensions", dims)
	one := e.splat(ushape, 1)
	bit := e.binary(hlo.OpAnd, e.binary(hlo.OpShiftRightLogical, b, shift), one)
	return e.compare("NE", bit, e.splat(ushape, 0))
}

// scalarBinary adds a computation applying code to two scalars of type t.
func (c *converter) scalarBinary(op *Op, role string, code hlo.Opcode, t dtype.Type) *hlo.Computation {
	comp := &hlo.Computation{Name: c.out.UniqueName(c.name(role)), Module: c.out, Pos: op.Pos}
	x := comp.Add(c.name("Arg_0"), hlo.OpParameter, paramShape(hlo.Scalar(t)))
	y := comp.Add(c.name("Arg_1"), hlo.OpParameter, paramShape(hlo.Scalar(t)))
	y.ParameterNumber = 1
	comp.Params = []*hlo.Instruction{x, y}
	comp.Root = comp.Add(c.name(code.String()), code, paramShape(hlo.Scalar(t)), x, y)
	c.out.AddComputation(comp)
	return comp
}
