package stablehlo

import (
	"octet/hlo"
	"octet/tensor"
)

// Quantized tensors are held in their storage type; the ops on them are lowered to integer and float
// arithmetic as StableHLO's reference does: uniform_dequantize computes (q - zero_point) * scale in the
// expressed type, uniform_quantize round_nearest_even(x / scale) + zero_point clamped to the storage range,
// and any other op on quantized values dequantizes its operands, computes in the expressed type and
// quantizes its result.

// quantParam is a constant of shape (in the expressed type elem) holding a quantization's scales or zero
// points: one value everywhere, or one per slice along the quantized axis.
func (e emitter) quantParam(q *Quant, shape hlo.Shape, vals []float64) *hlo.Instruction {
	if q.Axis < 0 {
		return e.splat(shape, shape.Elem.EncodeFloat64(vals[0]))
	}
	if q.Axis >= shape.Rank() || shape.Dims[q.Axis] != int64(len(vals)) {
		e.c.fail(e.op.Pos, "%s: %d scales for dimension %d of %s", e.op.Name, len(vals), q.Axis, typeString(shape))
	}
	t := tensor.New(shape.Elem, []int64{int64(len(vals))})
	for i, v := range vals {
		t.SetBitsAt(int64(i), shape.Elem.EncodeFloat64(v))
	}
	k := e.add(hlo.OpConstant, hlo.Array(shape.Elem, int64(len(vals))))
	k.Literal = hlo.ArrayLiteral(t)
	b := e.add(hlo.OpBroadcast, shape, k)
	b.SetAttr("dimensions", hlo.Ints{int64(q.Axis)})
	return b
}

func zerosOf(q *Quant) []float64 {
	out := make([]float64, len(q.Zeros))
	for i, z := range q.Zeros {
		out[i] = float64(z)
	}
	return out
}

// dequantize turns x, stored values of quantization q, into values of its expressed type.
func (e emitter) dequantize(x *hlo.Instruction, q *Quant) *hlo.Instruction {
	shape := x.Shape.WithElem(q.Expressed)
	v := e.add(hlo.OpConvert, shape, x)
	v = e.binary(hlo.OpSubtract, v, e.quantParam(q, shape, zerosOf(q)))
	return e.binary(hlo.OpMultiply, v, e.quantParam(q, shape, q.Scales))
}

// quantize turns x, values of a float type, into stored values of quantization q.
func (e emitter) quantize(x *hlo.Instruction, q *Quant) *hlo.Instruction {
	if x.Shape.Elem != q.Expressed {
		x = e.add(hlo.OpConvert, x.Shape.WithElem(q.Expressed), x)
	}
	shape := x.Shape
	v := e.binary(hlo.OpDivide, x, e.quantParam(q, shape, q.Scales))
	v = e.add(hlo.OpRoundNearestEven, shape, v)
	v = e.binary(hlo.OpAdd, v, e.quantParam(q, shape, zerosOf(q)))
	lo := e.splat(hlo.Scalar(shape.Elem), shape.Elem.EncodeFloat64(float64(q.Min)))
	hi := e.splat(hlo.Scalar(shape.Elem), shape.Elem.EncodeFloat64(float64(q.Max)))
	v = e.add(hlo.OpClamp, shape, lo, v, hi)
	return e.add(hlo.OpConvert, shape.WithElem(q.Storage), v)
}

// movesQuantized lists the ops that move or select stored values without computing on them, so that they
// apply to quantized tensors as they are (the quantization travels with the type).
var movesQuantized = map[string]bool{
	"stablehlo.broadcast_in_dim": true, "stablehlo.transpose": true, "stablehlo.reshape": true,
	"stablehlo.slice": true, "stablehlo.concatenate": true, "stablehlo.reverse": true,
	"stablehlo.dynamic_slice": true, "stablehlo.get_tuple_element": true, "func.call": true,
	"stablehlo.uniform_quantize": true, "stablehlo.uniform_dequantize": true, "stablehlo.bitcast_convert": true,
}

// resultQuant is the quantization of op's result i; nil when it is not quantized.
func resultQuant(op *Op, i int) *Quant {
	if i < len(op.OutQuant) {
		return op.OutQuant[i]
	}
	return nil
}

// quantized reports whether any operand or result of op is quantized.
func quantized(op *Op) bool {
	for _, v := range op.Operands {
		if v.Quant != nil {
			return true
		}
	}
	for _, q := range op.OutQuant {
		if q != nil {
			return true
		}
	}
	return false
}

func (c *converter) uniformQuantize(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	q := resultQuant(op, 0)
	c.need(op, len(ins) == 1 && q != nil, "operand and quantized result type")
	e := emitter{c, sc, op}
	x := ins[0]
	if in := op.Operands[0].Quant; in != nil {
		x = e.dequantize(x, in)
	}
	return e.quantize(x, q)
}

func (c *converter) uniformDequantize(sc *scope, op *Op) *hlo.Instruction {
	ins := c.operands(sc, op)
	c.need(op, len(ins) == 1 && op.Operands[0].Quant != nil && len(op.OutTypes) == 1, "quantized operand")
	e := emitter{c, sc, op}
	r := e.dequantize(ins[0], op.Operands[0].Quant)
	if r.Shape.Elem != op.OutTypes[0].Elem {
		r = e.add(hlo.OpConvert, op.OutTypes[0], r)
	}
	return r
}

// dequantizeOpQuantize converts an elementwise op on quantized values: its operands dequantized, the op
// computed in the expressed type, its result quantized.
func (c *converter) dequantizeOpQuantize(sc *scope, op *Op, code hlo.Opcode) *hlo.Instruction {
	e := emitter{c, sc, op}
	ins := c.operands(sc, op)
	for i, v := range op.Operands {
		if v.Quant != nil {
			ins[i] = e.dequantize(ins[i], v.Quant)
		}
	}
	out := c.result(op)
	q := resultQuant(op, 0)
	if q != nil {
		out = out.WithElem(q.Expressed)
	}
	r := e.add(code, out, ins...)
	if q != nil {
		r = e.quantize(r, q)
	}
	return r
}
