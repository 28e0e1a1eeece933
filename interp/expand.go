package interp

import (
	"math"

	"octet/dtype"
	"octet/hlo"
)

// Some instructions XLA never runs as they are: a pass of its compilers replaces each by a computation of
// simpler instructions (BatchNormExpander, StochasticConvertDecomposer). The interpreter builds that
// computation, the pass's instructions in its order, once per instruction and evaluates it on the
// instruction's operands, so that every step rounds as it does in XLA and the sums are the interpreter's
// reductions.

// expansion returns the computation build makes for in, built once per instruction and evaluation in a
// module of its own, every instruction at in's position (an error in it points at in).
func (e *evaluator) expansion(in *hlo.Instruction, build func(c *hlo.Computation) error) (*hlo.Computation, error) {
	if c := e.expanded[in]; c != nil {
		return c, nil
	}
	m := &hlo.Module{Name: in.Opcode.String() + "_expansion"}
	if in.Parent != nil && in.Parent.Module != nil {
		m.Fset = in.Parent.Module.Fset
	}
	c := &hlo.Computation{Name: in.Name + "_expansion", IsEntry: true}
	m.AddComputation(c)
	m.Entry = c
	if err := build(c); err != nil {
		return nil, err
	}
	for _, k := range m.Computations {
		for _, x := range k.Instructions {
			x.Pos = in.Pos
		}
	}
	if e.expanded == nil {
		e.expanded = map[*hlo.Instruction]*hlo.Computation{}
	}
	e.expanded[in] = c
	return c, nil
}

// scalarAdd adds to m the computation (x, y) -> x + y of type ty, the reducer XLA's expansions use.
func scalarAdd(m *hlo.Module, ty dtype.Type) *hlo.Computation {
	c := &hlo.Computation{Name: "add_" + ty.String()}
	m.AddComputation(c)
	x, y := c.Parameter(hlo.Scalar(ty)), c.Parameter(hlo.Scalar(ty))
	c.Root = c.AddOp(x, y)
	return c
}

func init() {
	register((*evaluator).stochasticConvert, hlo.OpStochasticConvert)
	register((*evaluator).getDimensionSize, hlo.OpGetDimensionSize)
}

// stochasticConvert evaluates stochastic-convert as StochasticConvertDecomposer
// (xla/hlo/transforms/expanders/stochastic_convert_decomposer.cc, openxla/xla commit 0e1ce76) expands
// it, the only form XLA runs: a float x to a signed integer, rounding |x|'s fraction up where the random
// bits r are below fraction·2^width(r) (in f32 for an f16 x), then the sign restored, and x at or below
// the integer type's minimum, or at or above its maximum, giving that bound. Other result types are
// refused, as the decomposer refuses them.
func (e *evaluator) stochasticConvert(in *hlo.Instruction, ops []Value) (Value, error) {
	c, err := e.expansion(in, func(c *hlo.Computation) error {
		if in.NumOperands() != 2 || !in.Shape.IsArray() {
			return errorf(in, "stochastic-convert takes an operand and random bits and gives an array")
		}
		x, r, to := in.Operand(0).Shape, in.Operand(1).Shape, in.Shape.Elem
		if !to.IsSigned() || !x.IsArray() || !x.Elem.IsFloat() || !r.IsArray() || !r.Elem.IsUnsigned() {
			return unsupportedf(in, "stochastic-convert of %s to %s (XLA's StochasticConvertDecomposer converts floats to signed integers only)", x.String(), to)
		}
		buildStochasticConvert(c, x.Elem, r.Elem, to, x.Dims)
		return nil
	})
	if err != nil {
		return Value{}, err
	}
	return e.call(c, ops)
}

// buildStochasticConvert builds in c StochasticConvertDecomposer's computation.
func buildStochasticConvert(c *hlo.Computation, from, random, to dtype.Type, dims []int64) {
	shape := func(ty dtype.Type) hlo.Shape { return hlo.Array(ty, dims...) }
	splat := func(x *hlo.Instruction) *hlo.Instruction { return c.Broadcast(x, shape(x.Shape.Elem), nil) }
	frac := from
	if from == dtype.F16 {
		frac = dtype.F32 // 2^16 does not fit in f16
	}
	x, r := c.Parameter(shape(from)), c.Parameter(shape(random))
	negative := c.Compare(c.Unary(hlo.OpSign, x), splat(c.ScalarConstant(from, 0)), "LT")
	abs := c.Unary(hlo.OpAbs, x)
	truncated := c.Unary(hlo.OpFloor, abs)
	fraction := c.Subtract(abs, truncated)
	if frac != from {
		fraction = c.Convert(fraction, frac)
	}
	fixed := c.Multiply(fraction, splat(c.ScalarConstant(frac, math.Ldexp(1, random.BitWidth()))))
	up := c.Compare(r, c.Convert(fixed, random), "LT")
	truncatedI := c.Convert(truncated, to)
	rounded := c.Select(up, c.AddOp(truncatedI, splat(c.ScalarConstant(to, 1))), truncatedI)
	result := c.Select(negative, c.Unary(hlo.OpNegate, rounded), rounded)
	// x at or past a bound gives the bound: the bound as the operand's type (an s64 converted, as XLA's
	// literal conversion rounds it) and as the result's.
	bits := to.BitWidth()
	for _, bound := range []struct {
		dir string
		v   int64
	}{{"LE", int64(-1) << (bits - 1)}, {"GE", int64(uint64(1)<<(bits-1) - 1)}} {
		v64 := c.Constant(hlo.Scalar(dtype.S64), hlo.ArrayLiteral(fromI64(dtype.S64, nil, []int64{bound.v})))
		at := c.Compare(x, splat(c.Convert(v64, from)), bound.dir)
		result = c.Select(at, splat(c.Convert(v64, to)), result)
	}
	c.Root = result
}

// getDimensionSize gives the size of a dimension of its operand, as an s32: that of a static dimension
// (the size of a dynamic one is not known to the interpreter, which refuses it).
func (e *evaluator) getDimensionSize(in *hlo.Instruction, ops []Value) (Value, error) {
	if in.NumOperands() != 1 || !in.Operand(0).Shape.IsArray() {
		return Value{}, errorf(in, "get-dimension-size takes one array")
	}
	s := in.Operand(0).Shape
	d := in.Ints("dimensions")
	if len(d) != 1 || d[0] < 0 || d[0] >= int64(len(s.Dims)) {
		return Value{}, errorf(in, "get-dimension-size: dimensions=%v is not one dimension of %s", d, s.String())
	}
	if len(s.Dynamic) > 0 && s.Dynamic[d[0]] || s.Dims[d[0]] == hlo.UnboundedDim {
		return Value{}, unsupportedf(in, "get-dimension-size of the dynamic dimension %d of %s", d[0], s.String())
	}
	if s.Dims[d[0]] > math.MaxInt32 {
		return Value{}, errorf(in, "get-dimension-size: dimension %d of %s does not fit its s32 result", d[0], s.String())
	}
	return ArrayValue(fromI64(dtype.S32, nil, []int64{s.Dims[d[0]]})), nil
}
