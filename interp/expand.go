package interp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/hlo/parser"
)

// Some instructions XLA never runs as they are: a pass of its compilers replaces each by a computation of
// simpler instructions (BatchNormExpander, StochasticConvertDecomposer). The interpreter writes that
// computation as HLO text, the pass's instructions in its order, reads it once per instruction and
// evaluates it on the instruction's operands, so that every step rounds as it does in XLA and the sums
// are the interpreter's reductions.

// expansion returns the computation write gives for in, read once per instruction and evaluation.
func (e *evaluator) expansion(in *hlo.Instruction, write func() (string, error)) (*hlo.Computation, error) {
	if c := e.expanded[in]; c != nil {
		return c, nil
	}
	src, err := write()
	if err != nil {
		return nil, err
	}
	m, err := parser.ParseString(in.Opcode.String()+" expansion", src)
	if err != nil {
		return nil, errorf(in, "%s: writing XLA's expansion: %v", in.Opcode, err)
	}
	if m.Entry == nil {
		return nil, errorf(in, "%s: the expansion has no entry computation", in.Opcode)
	}
	if e.expanded == nil {
		e.expanded = map[*hlo.Instruction]*hlo.Computation{}
	}
	e.expanded[in] = m.Entry
	return m.Entry, nil
}

// shapeText writes an array shape of type ty and dimensions dims as HLO text.
func shapeText(ty dtype.Type, dims ...int64) string {
	parts := make([]string, len(dims))
	for i, v := range dims {
		parts[i] = fmt.Sprint(v)
	}
	return ty.String() + "[" + strings.Join(parts, ",") + "]"
}

// formatFloat32 writes v so that the parser reads back the same float32: NaN and infinities as HLO
// writes them.
func formatFloat32(v float32) string {
	switch {
	case math.IsNaN(float64(v)):
		return "nan"
	case math.IsInf(float64(v), 1):
		return "inf"
	case math.IsInf(float64(v), -1):
		return "-inf"
	}
	return fmt.Sprintf("%.9g", v)
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
	c, err := e.expansion(in, func() (string, error) {
		if in.NumOperands() != 2 || !in.Shape.IsArray() {
			return "", errorf(in, "stochastic-convert takes an operand and random bits and gives an array")
		}
		x, r, to := in.Operand(0).Shape, in.Operand(1).Shape, in.Shape.Elem
		if !to.IsSigned() || !x.IsArray() || !x.Elem.IsFloat() || !r.IsArray() || !r.Elem.IsUnsigned() {
			return "", unsupportedf(in, "stochastic-convert of %s to %s (XLA's StochasticConvertDecomposer converts floats to signed integers only)", x.String(), to)
		}
		return stochasticConvertText(x.Elem, r.Elem, to, x.Dims), nil
	})
	if err != nil {
		return Value{}, err
	}
	return e.call(c, ops)
}

// stochasticConvertText writes StochasticConvertDecomposer's computation.
func stochasticConvertText(from, random, to dtype.Type, dims []int64) string {
	S := func(ty dtype.Type) string { return shapeText(ty, dims...) }
	T, I := from.String(), to.String()
	frac := from
	if from == dtype.F16 {
		frac = dtype.F32 // 2^16 does not fit in f16
	}
	bits := to.BitWidth()
	minV := int64(-1) << (bits - 1)
	maxV := int64(uint64(1)<<(bits-1) - 1)
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "  "+format+"\n", args...) }
	b.WriteString("HloModule expansion\n\nENTRY e {\n")
	line("x = %s parameter(0)", S(from))
	line("r = %s parameter(1)", S(random))
	line("zero = %s[] constant(0)", T)
	line("zeros = %s broadcast(zero), dimensions={}", S(from))
	line("sign = %s sign(x)", S(from))
	line("negative = %s compare(sign, zeros), direction=LT", S(dtype.PRED))
	line("abs = %s abs(x)", S(from))
	line("truncated = %s floor(abs)", S(from))
	line("fraction0 = %s subtract(abs, truncated)", S(from))
	if frac != from {
		line("fraction = %s convert(fraction0)", S(frac))
	} else {
		line("fraction = %s copy(fraction0)", S(frac))
	}
	line("two_bits = %s[] constant(%s)", frac, strconv.FormatFloat(math.Ldexp(1, random.BitWidth()), 'g', -1, 64))
	line("two_bits_b = %s broadcast(two_bits), dimensions={}", S(frac))
	line("fixed = %s multiply(fraction, two_bits_b)", S(frac))
	line("fixed_u = %s convert(fixed)", S(random))
	line("up = %s compare(r, fixed_u), direction=LT", S(dtype.PRED))
	line("truncated_i = %s convert(truncated)", S(to))
	line("one = %s[] constant(1)", I)
	line("ones = %s broadcast(one), dimensions={}", S(to))
	line("plus_one = %s add(truncated_i, ones)", S(to))
	line("rounded = %s select(up, plus_one, truncated_i)", S(to))
	line("negated = %s negate(rounded)", S(to))
	line("signed = %s select(negative, negated, rounded)", S(to))
	for _, bound := range []struct {
		name, dir string
		v         int64
	}{{"min", "LE", minV}, {"max", "GE", maxV}} {
		// The bound as the operand's type (an s64 converted, as XLA's literal conversion rounds it) and
		// as the result's.
		line("%s64 = s64[] constant(%d)", bound.name, bound.v)
		line("%s_x = %s[] convert(%s64)", bound.name, T, bound.name)
		line("%s_xb = %s broadcast(%s_x), dimensions={}", bound.name, S(from), bound.name)
		line("%s_i = %s[] convert(%s64)", bound.name, I, bound.name)
		line("%s_ib = %s broadcast(%s_i), dimensions={}", bound.name, S(to), bound.name)
		line("at_%s = %s compare(x, %s_xb), direction=%s", bound.name, S(dtype.PRED), bound.name, bound.dir)
	}
	line("clamped = %s select(at_min, min_ib, signed)", S(to))
	line("ROOT result = %s select(at_max, max_ib, clamped)", S(to))
	b.WriteString("}\n")
	return b.String()
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
