package verify

import (
	"fmt"
	"math"
	"slices"

	"octet/dtype"
	"octet/hlo"
	"octet/interp"
	"octet/tensor"
)

// u is half of float32's epsilon: the largest relative change of a float32 rounding.
const u = 0x1p-24

// ulp returns the distance from |x| to the next larger value of the floating-point type t (the smallest
// subnormal below the smallest normal value; +Inf for an infinite x).
func ulp(t dtype.Type, x float64) float64 {
	x = math.Abs(x)
	fi := t.Finfo()
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		return math.Inf(1)
	case x < fi.SmallestNormal:
		return fi.SmallestSubnormal
	}
	return fi.Eps * math.Pow(2, math.Floor(math.Log2(x)))
}

// Bound returns the largest difference allowed between element e of a call's D and the value the
// original computes there, before both are rounded to D's type: S_e of the package comment. rounding is
// the sum of the unit roundoffs of the original's roundings (Rounding), k the contracting size, gelu
// whether the epilogue has GELU, scale |alpha a_scale b_scale| and magnitude M_e.
func Bound(rounding float64, k int64, gelu bool, scale, magnitude float64) float64 {
	ku := float64(k) * u
	gamma := ku / (1 - ku)
	if ku >= 1 {
		gamma = math.Inf(1)
	}
	gain := 1.0
	if gelu {
		gain = 2
	}
	return gain*(rounding+2*gamma+6*u)*magnitude + float64(k)*0x1p-126*scale
}

// unit is the unit roundoff of a floating-point type (half its epsilon), 0 for other types.
func unit(t dtype.Type) float64 {
	if !t.IsFloat() {
		return 0
	}
	return t.Finfo().Eps / 2
}

// Rounding sums the unit roundoffs of the roundings the original makes on the way from the FP8 values
// to the value the call replaces: along each operand chain of dot (the dequantize: a narrowing convert,
// the multiply or divide by the scale, and the scale's own narrowing converts), the dot itself, and
// each instruction of absorbed that rounds (arithmetic and narrowing converts; data movement, maximum,
// clamp, abs and select do not). last, the conversion to D's type that ends the chain, is left out: it is
// the final rounding both sides make.
func Rounding(dot *hlo.Instruction, absorbed []*hlo.Instruction, last *hlo.Instruction) float64 {
	sum := unit(dot.Shape.Elem)
	for _, x := range dot.Operands() {
		sum += operandRounding(x)
		if unit(dot.Shape.Elem) > unit(x.Shape.Elem) {
			// The dot converts a wider operand to its own type first (docs/numerics.md).
			sum += unit(dot.Shape.Elem)
		}
	}
	for _, x := range absorbed {
		if x != last || x.Opcode != hlo.OpConvert {
			sum += stepRounding(x)
		}
	}
	return sum
}

// NarrowRange reports whether the original computes a step on the way from the FP8 values to the value the
// call replaces (last left out, as in Rounding) in a type of less range than float32 (f16): there its
// chain can overflow where the call's float32 does not.
func NarrowRange(dot *hlo.Instruction, absorbed []*hlo.Instruction, last *hlo.Instruction) bool {
	narrow := func(x *hlo.Instruction) bool {
		return x.Shape.Elem.IsFloat() && !x.Shape.Elem.IsFP8() && x.Shape.Elem.Finfo().Max < math.MaxFloat32
	}
	if narrow(dot) {
		return true
	}
	for _, x := range absorbed {
		if x != last && narrow(x) {
			return true
		}
	}
	for _, x := range dot.Operands() {
		if slices.ContainsFunc(dataChain(x), narrow) {
			return true
		}
	}
	return false
}

// stepRounding is the unit roundoff of one instruction: its type's for arithmetic and for a convert that
// narrows, 0 for the rest.
func stepRounding(x *hlo.Instruction) float64 {
	switch x.Opcode {
	case hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply, hlo.OpDivide, hlo.OpDot, hlo.OpTanh, hlo.OpExp, hlo.OpExpm1,
		hlo.OpLog, hlo.OpLog1p, hlo.OpPower, hlo.OpSqrt, hlo.OpRsqrt, hlo.OpCbrt, hlo.OpLogistic, hlo.OpErf:
		return unit(x.Shape.Elem)
	case hlo.OpConvert:
		if from := x.Operand(0).Shape.Elem; from.IsFloat() && x.Shape.Elem.IsFloat() && unit(x.Shape.Elem) > unit(from) {
			return unit(x.Shape.Elem)
		}
	}
	return 0
}

// operandRounding follows a dot operand up its dequantize to the FP8 value, summing the roundings on the
// way: the data operand of a multiply, divide or select (not the broadcast scalar or the predicate), the
// operand of data movement; a scale's own chain is followed too. A divide by a scale counts twice: the
// original rounds x/s, the call rounds 1/s in the same type.
func operandRounding(x *hlo.Instruction) float64 {
	sum := 0.0
	for _, y := range dataChain(x) {
		sum += stepRounding(y)
		data := dataOperand(y)
		if data == nil || !scaling(y.Opcode) {
			continue
		}
		for _, o := range y.Operands() {
			if o != data && o.Shape.Elem != dtype.PRED {
				sum += scaleRounding(o)
			}
		}
		if y.Opcode == hlo.OpDivide && data == y.Operand(0) {
			// The call multiplies by 1/s rounded in the divide's type, as XLA's rewrite does: a
			// rounding of its own, which the original does not make.
			sum += unit(y.Shape.Elem)
		}
	}
	return sum
}

// movesData reports whether op moves or converts its operand 0's values without arithmetic on them.
func movesData(op hlo.Opcode) bool {
	switch op {
	case hlo.OpConvert, hlo.OpBitcast, hlo.OpReshape, hlo.OpCopy, hlo.OpTranspose, hlo.OpSlice, hlo.OpDynamicSlice,
		hlo.OpPad, hlo.OpBroadcast:
		return true
	}
	return false
}

// scaling reports whether op may scale (or select) a dequantized value: multiply, divide, select.
func scaling(op hlo.Opcode) bool {
	return op == hlo.OpMultiply || op == hlo.OpDivide || op == hlo.OpSelect
}

// dataChain returns the instructions from a dot operand x up to the FP8 value it dequantizes (left out):
// through data movement and the data operand of a multiply, divide or select, ending early at any other
// instruction (included), at most 64.
func dataChain(x *hlo.Instruction) []*hlo.Instruction {
	var chain []*hlo.Instruction
	for range 64 {
		if x.Shape.Elem.IsFP8() {
			break
		}
		chain = append(chain, x)
		switch {
		case movesData(x.Opcode):
			x = x.Operand(0)
			continue
		case scaling(x.Opcode):
			if data := dataOperand(x); data != nil {
				x = data
				continue
			}
		}
		break
	}
	return chain
}

// dataOperand returns the operand of a multiply, divide or select that carries the dequantized values,
// not a scale or a predicate: the one that is not scalar-like, or where every one is (a 1 x 1 GEMM), the
// one an FP8 value reaches. nil when there is none.
func dataOperand(x *hlo.Instruction) *hlo.Instruction {
	var one *hlo.Instruction
	for _, o := range x.Operands() {
		switch {
		case o.Shape.Elem == dtype.PRED:
		case !scalarLike(o):
			return o
		case one == nil && fromFP8(o):
			one = o
		}
	}
	return one
}

// fromFP8 reports whether an FP8 value reaches x through converts and data movement.
func fromFP8(x *hlo.Instruction) bool {
	for range 64 {
		if x.Shape.Elem.IsFP8() {
			return true
		}
		if !movesData(x.Opcode) {
			return false
		}
		x = x.Operand(0)
	}
	return false
}

// scalarLike reports whether x is a scalar, or a broadcast or reshape of one.
func scalarLike(x *hlo.Instruction) bool {
	for range 64 {
		if x.Shape.IsScalar() {
			return true
		}
		switch x.Opcode {
		case hlo.OpBroadcast, hlo.OpReshape, hlo.OpConvert, hlo.OpBitcast, hlo.OpCopy:
			x = x.Operand(0)
		default:
			return x.Shape.NumElements() == 1
		}
	}
	return false
}

// scaleRounding sums the narrowing converts of a scale's chain up to its scalar.
func scaleRounding(x *hlo.Instruction) float64 {
	sum := 0.0
	for range 64 {
		sum += stepRounding(x)
		switch x.Opcode {
		case hlo.OpBroadcast, hlo.OpReshape, hlo.OpConvert, hlo.OpBitcast, hlo.OpCopy:
			x = x.Operand(0)
		default:
			return sum
		}
	}
	return sum
}

// scalar returns the value of a one-element array, 1 when there is none (position -1).
func scalar(v interp.Value, at int) float64 {
	if at < 0 {
		return 1
	}
	return v.Tuple[at].Array.Float64s()[0]
}

// array returns the float64 values of an array of the result, nil when there is none.
func array(v interp.Value, at int) []float64 {
	if at < 0 {
		return nil
	}
	return v.Tuple[at].Array.Float64s()
}

// compare compares the call's D and abs-max with the original's values, element by element.
func (g *gemmCheck) compare(want, got interp.Value) (*GEMM, error) {
	if g.exact {
		return g.compareExact(want, got)
	}
	d, call := g.d, g.call
	cfg := call.Config
	w, o := want.Tuple[0].Array, got.Tuple[0].Array
	if w.Type != o.Type || w.NumElements() != o.NumElements() {
		return nil, fmt.Errorf("the call %%%s gives %s where the original has %s", d.Call, o, w)
	}
	res := &GEMM{Dot: d.Dot, Call: d.Call, DType: o.Type.String(), Elements: w.NumElements()}
	gelu := cfg.Epilogue.Activation() == "GELU"
	scale := math.Abs(cfg.AlphaReal * scalar(got, g.aScale) * scalar(got, g.bScale))
	beta := math.Abs(cfg.Beta * scalar(got, g.cScale))
	dScale := math.Abs(scalar(got, g.dScale))

	mag, c, bias := array(got, g.mag), array(got, g.c), array(got, g.bias)
	n := int64(max(len(bias), 1))
	// slack is S_e at element p of the (padded) D.
	slack := func(p int64) float64 {
		m := scale * mag[p]
		if c != nil {
			m += beta * math.Abs(c[p])
		}
		if bias != nil {
			m += math.Abs(bias[p%n])
		}
		return Bound(g.rounding, d.K, gelu, scale, m)
	}
	wv, ov := w.Float64s(), o.Float64s()
	top := w.Type.Finfo().Max
	worst := -1.0
	res.Worst.Index = -1
	for i := range res.Elements {
		a, b := wv[i], ov[i]
		if w.BitsAt(i) == o.BitsAt(i) {
			res.BitMatches++
			continue
		}
		if math.IsNaN(a) && math.IsNaN(b) {
			continue
		}
		if math.IsNaN(a) && w.Type.IsFP8() && math.Abs(b) == top {
			res.Saturated++
			continue
		}
		if g.narrow && !isFinite(a) {
			res.Overflowed++
			continue
		}
		e := element(w.Type, i, a, b, dScale*slack(g.toPadded(i)))
		share := e.Share()
		if share > 1 {
			res.Failures++
		}
		if share > worst {
			worst, res.Worst = share, e
		}
	}
	if g.amax != nil {
		wa, oa := want.Tuple[1].Array, got.Tuple[1].Array
		if wa.Type != oa.Type || wa.NumElements() != 1 || oa.NumElements() != 1 {
			return nil, fmt.Errorf("the call %%%s gives the abs-max %s where the original has %s", d.Call, oa, wa)
		}
		most := 0.0
		for p := range int64(len(mag)) {
			most = math.Max(most, slack(p))
		}
		e := element(wa.Type, 0, wa.Float64s()[0], oa.Float64s()[0], most)
		res.Amax = &e
	}
	return res, nil
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// element describes one compared element of type t: the bound is slack plus one ulp of t at the larger of
// the two values (each was rounded to t once at the end).
func element(t dtype.Type, i int64, want, got, slack float64) Element {
	bound := slack + ulp(t, math.Max(math.Abs(want), math.Abs(got)))
	unit := ulp(t, want)
	return Element{Index: i, Want: Float(want), Got: Float(got), Bound: Float(bound),
		ULPs: Float(diff(want, got) / unit), BoundULPs: Float(bound / unit)}
}

// Family is a kind of inputs Run tries after random normal values, chosen to expose what those hide.
type Family struct {
	Name string
	// Value is element i of a float parameter of type t whose elements are laid out as rows of cols (a
	// scalar is one row of one).
	Value func(t dtype.Type, i, cols int64) float64
	// ScalarsOne keeps scalar parameters (the scales of an FP8 GEMM) at 1 instead.
	ScalarsOne bool
}

// Families returns the families Run tries: every value 1 (no cancellation, a bias never outweighed), the
// FP8 operands at their format's largest value (saturation and range), rows and columns of very
// different magnitudes (powers of two from 2^-6 to 2^6, exact in every FP8 format), and zeros. The zeros
// leave the scalars, which are the scales, at 1: a rewrite takes a divide by a scale s as a multiply by
// 1/s, as XLA's does, which assumes s is not zero (a zero s gives infinities and NaNs the two modules need
// not share, even where the original's padding would be a zero).
func Families() []Family {
	return []Family{
		{"ones", func(dtype.Type, int64, int64) float64 { return 1 }, false},
		{"near-max", func(t dtype.Type, _, _ int64) float64 {
			if t.IsFP8() {
				return t.Finfo().Max
			}
			return 1
		}, false},
		{"magnitudes", func(_ dtype.Type, i, cols int64) float64 {
			r, c := i/cols, i%cols
			return math.Ldexp(1, int(r%7)-3) * math.Ldexp(1, 3-int(c%7))
		}, false},
		{"zeros", func(dtype.Type, int64, int64) float64 { return 0 }, true},
	}
}

// Inputs replaces the float arrays of args by the family's values.
func (f Family) Inputs(args []interp.Value) []interp.Value {
	out := make([]interp.Value, len(args))
	for i, a := range args {
		out[i] = a
		if a.Kind != interp.KindArray || !a.Array.Type.IsFloat() {
			continue
		}
		src := a.Array
		if f.ScalarsOne && len(src.Shape) == 0 {
			t := tensor.New(src.Type, nil)
			t.SetBitsAt(0, t.Type.EncodeFloat64(1))
			out[i] = interp.ArrayValue(t)
			continue
		}
		t := tensor.New(src.Type, src.Shape)
		cols := int64(1)
		if len(src.Shape) > 0 {
			cols = max(src.Shape[len(src.Shape)-1], 1)
		}
		for j := range t.NumElements() {
			t.SetBitsAt(j, t.Type.EncodeFloat64(f.Value(t.Type, j, cols)))
		}
		out[i] = interp.ArrayValue(t)
	}
	return out
}

// compareExact compares a block-scaled call's D with the value it replaced bit for bit (NaN for NaN): the
// bound of every element is zero.
func (g *gemmCheck) compareExact(want, got interp.Value) (*GEMM, error) {
	d := g.d
	w, o := want.Tuple[0].Array, got.Tuple[0].Array
	if w.Type != o.Type || w.NumElements() != o.NumElements() {
		return nil, fmt.Errorf("the call %%%s gives %s where the original has %s", d.Call, o, w)
	}
	res := &GEMM{Dot: d.Dot, Call: d.Call, DType: o.Type.String(), Elements: w.NumElements()}
	res.Worst.Index = -1
	var wv, ov []float64
	if w.Type.IsFloat() {
		wv, ov = w.Float64s(), o.Float64s()
	}
	for i := range res.Elements {
		if w.BitsAt(i) == o.BitsAt(i) {
			res.BitMatches++
			continue
		}
		if wv == nil {
			res.Failures++
			continue
		}
		if math.IsNaN(wv[i]) && math.IsNaN(ov[i]) {
			continue
		}
		res.Failures++
		if res.Worst.Index < 0 {
			res.Worst = element(w.Type, i, wv[i], ov[i], 0)
		}
	}
	return res, nil
}
