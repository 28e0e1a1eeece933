package fuse

import (
	"math"
	"slices"

	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// A rule is one thing the rewrite can absorb into a cuBLASLt FP8 call: a named pattern of package match
// and what the call does with what it matches. The patterns are the ones the rewrite matches with, and
// their text (match.Pattern.Short) is what --explain prints in brackets, so the table documents exactly
// what fuses. Whether a match may be absorbed (types, order, other users) is decided after the match, by
// the code that uses the rule, which records its reason.
type rule struct {
	name string
	// side is the side of the dot the rule looks at: before it (an operand chain) or after it.
	side side
	// pattern makes the rule's pattern. x is the pattern of the value the rule applies to: the data operand
	// of a step up an operand chain, the dot's result D after the dot. Captures go to c.
	pattern func(x *match.Pattern, c *captures) *match.Pattern
	// effect says what the call does with the match.
	effect string
	// opcodes are those an instruction the pattern matches may have, whatever x (nil: any), made with the
	// table (init).
	opcodes []hlo.Opcode
}

// side is the side of the dot a rule looks at.
type side int

const (
	operandSide side = iota
	epilogueSide
)

func (s side) String() string {
	if s == operandSide {
		return "operand"
	}
	return "epilogue"
}

// captures are what a rule's pattern binds.
type captures struct {
	// x is the data operand of an operand step; s a scalar scale or constant; c a matrix bias or the
	// broadcast of a vector bias; b the vector; zero the zero a pad or select fills with.
	x, s, c, b, zero *hlo.Instruction
	// The intermediates of GELU, input side first.
	sq, cube, inner, sum, scaled, th, onePlus, cdf, half *hlo.Instruction
}

// subject is the pattern the table shows for x: what the rule applies to.
func (r *rule) subject() *match.Pattern {
	if r.side == epilogueSide {
		return match.Op().As("D")
	}
	return match.Op().As("x")
}

// Short is the rule's pattern without its conditions, as --explain prints it: add(D, broadcast(vector)).
func (r *rule) Short() string { return r.pattern(r.subject(), &captures{}).Short() }

// String is the rule's pattern with the conditions on each instruction.
func (r *rule) String() string { return r.pattern(r.subject(), &captures{}).String() }

// match reports whether in matches the rule applied to x, with the captures in c. An instruction of an
// opcode the pattern's root cannot have (the pattern made with any x) is ruled out before the pattern is
// made.
func (r *rule) match(in *hlo.Instruction, x *match.Pattern, c *captures) bool {
	if in == nil || r.opcodes != nil && !slices.Contains(r.opcodes, in.Opcode) {
		return false
	}
	return match.Match(in, r.pattern(x, c))
}

// The operand side: an FP8 value, its dequantize, and the ops between it and the dot that commute with the
// dequantize (they move data without computing on it, or fill with zero), so that the call can replay them
// on the FP8 value.
var (
	ruleFP8 = &rule{name: "fp8", side: operandSide,
		pattern: func(_ *match.Pattern, _ *captures) *match.Pattern {
			return match.Op().Where("an 8-bit float", match.FP8).As("FP8")
		},
		effect: "the FP8 value the call reads as A or B"}
	ruleConvert = &rule{name: "convert", side: operandSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.Convert(x).Where("float from float", floatConvert)
		},
		effect: "dequantize: dropped, the call reads the FP8 value (a convert before the scale must hold every FP8 value)"}
	ruleScale = &rule{name: "scale", side: operandSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleMultiply(x, match.Scalar().Bind(&c.s))
		},
		effect: "dequantize: the scalar becomes a_scale or b_scale (f32)"}
	ruleInverseScale = &rule{name: "inverse-scale", side: operandSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleDivide(x, match.Scalar().Bind(&c.s))
		},
		effect: "dequantize: 1/scalar becomes a_scale or b_scale (f32)"}
	ruleConvertedScale = &rule{name: "converted-scale", side: operandSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ConvertedScaleMultiply(x, match.Scalar().Bind(&c.s))
		},
		effect: "dequantize: a per-tensor scale converted after its broadcast; the scalar, rounded as the convert rounds it, becomes a_scale or b_scale (f32)"}

	ruleCommuteBitcast = commuting("bitcast", func(x *match.Pattern) *match.Pattern {
		return match.Bitcast(x).Where("same element type", keepsElem)
	})
	ruleCommuteBroadcast    = commuting("broadcast", match.Broadcast)
	ruleCommuteCopy         = commuting("copy", match.Copy)
	ruleCommuteReshape      = commuting("reshape", match.Reshape)
	ruleCommuteTranspose    = commuting("transpose", match.Transpose)
	ruleCommuteSlice        = commuting("slice", match.Slice)
	ruleCommuteDynamicSlice = commuting("dynamic-slice", match.DynamicSlice)
	ruleCommutePad          = &rule{name: "commute-pad-zero", side: operandSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern { return match.Pad(x, zero(c)) },
		effect:  "replayed on the FP8 value: zero is zero after the dequantize"}
	ruleCommuteSelect = &rule{name: "commute-select-zero", side: operandSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			pred := match.Op().As("pred")
			return match.AnyOf(match.Select(pred, x, zero(c)), match.Select(pred, zero(c), x))
		},
		effect: "replayed on the FP8 value: zero is zero after the dequantize"}
)

// commuting is the rule of an op that only moves data, made by op from the pattern of its data operand.
func commuting(name string, op func(*match.Pattern) *match.Pattern) *rule {
	return &rule{name: "commute-" + name, side: operandSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern { return op(x) },
		effect:  "replayed on the FP8 value: it moves data, which commutes with the dequantize"}
}

func zero(c *captures) *match.Pattern {
	return match.Op().Bind(&c.zero).Where("zero", match.IsZero).As("zero")
}

func floatConvert(in *hlo.Instruction) bool {
	return in.Shape.Elem.IsFloat() && in.Operand(0).Shape.Elem.IsFloat()
}

// operandSteps are the operand rules of one step up a chain that is not part of the dequantize, in the
// order they are tried.
var operandSteps = []*rule{ruleCommuteBitcast, ruleCommuteBroadcast, ruleCommuteCopy, ruleCommuteReshape,
	ruleCommuteTranspose, ruleCommuteSlice, ruleCommuteDynamicSlice, ruleCommutePad, ruleCommuteSelect}

// dequantizePattern is the pattern of a dequantize with converts converts before an optional scale step
// (ruleScale or ruleInverseScale): the operand rules composed, as --explain prints what an operand matched.
func dequantizePattern(converts int, scale *rule) *match.Pattern {
	p := ruleFP8.pattern(nil, &captures{})
	for range converts {
		p = ruleConvert.pattern(p, &captures{})
	}
	if scale != nil {
		p = scale.pattern(p, &captures{})
	}
	return p
}

// The epilogue side, in the order cuBLASLt computes
// D = d_scale * activation(alpha * a_scale * b_scale * (A @ B) + beta * C + bias) and the abs-max.
var (
	ruleReshapeD = &rule{name: "reshape-d", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.AnyOf(match.Reshape(x).Where("same element type", keepsElem),
				match.Bitcast(x).Where("same element type", keepsElem))
		},
		effect: "the call's result is reshaped after the call"}
	ruleSliceD = &rule{name: "slice-d", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern { return match.Slice(x) },
		effect:  "the call's result is sliced (from 0, stride 1, before any reshape)"}
	ruleAlpha = &rule{name: "alpha", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Multiply(x, match.BroadcastScalar(match.ConstantScalar().Bind(&c.s).As("constant")))
		},
		effect: "alpha *= constant (before any bias or activation)"}
	ruleOutputScale = &rule{name: "output-scale", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleMultiply(x, match.Scalar().Bind(&c.s))
		},
		effect: "folded into a_scale (before any bias or activation)"}
	ruleOutputInverseScale = &rule{name: "output-inverse-scale", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleDivide(x, match.Scalar().Bind(&c.s))
		},
		effect: "1/scalar folded into a_scale (before any bias or activation)"}
	ruleVectorBias = &rule{name: "vector-bias", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Add(x, match.Broadcast(match.Op().Bind(&c.b).As("vector")).Bind(&c.c))
		},
		effect: "bias operand, epilogue BIAS (a bf16 or f16 vector along the columns of D, before C)"}
	ruleMatrixBias = &rule{name: "matrix-bias", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Add(x, match.Op().Bind(&c.c).As("C"))
		},
		effect: "C operand with beta 1 (D's shape and type, not FP8, not a broadcast)"}
	ruleRelu = &rule{name: "relu", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.Maximum(x, match.BroadcastScalar(match.ConstantScalar().Value(0)))
		},
		effect: "epilogue RELU (BIAS_RELU after a vector bias)"}
	ruleGelu = &rule{name: "gelu", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Multiply(x, match.Multiply(constant(0.5), geluOnePlus(x, c)).Bind(&c.cdf))
		},
		effect: "epilogue GELU (BIAS_GELU after a vector bias): x * (0.5 * (1 + tanh(...)))"}
	ruleGeluHalfX = &rule{name: "gelu-half-x", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Multiply(match.Multiply(constant(0.5), x).Bind(&c.half), geluOnePlus(x, c))
		},
		effect: "epilogue GELU (BIAS_GELU after a vector bias): (0.5 * x) * (1 + tanh(...))"}
	ruleAbsMax = &rule{name: "abs-max", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.Reduce(match.Abs(x), initAtMostZero()).Where("max over every dimension", maxOverAll)
		},
		effect: "the damax output (an FP8 D only)"}
	ruleAbsMaxRelu = &rule{name: "abs-max-after-relu", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.Reduce(x, initAtMostZero()).Where("max over every dimension", maxOverAll)
		},
		effect: "the damax output, after RELU where D is never negative (an FP8 D only)"}
	ruleDScale = &rule{name: "d-scale", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleMultiply(x, match.Scalar().Bind(&c.s))
		},
		effect: "d_scale of an FP8 D (after any bias or activation)"}
	ruleDInverseScale = &rule{name: "d-inverse-scale", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.ScaleDivide(x, match.Scalar().Bind(&c.s))
		},
		effect: "1/scalar as d_scale of an FP8 D"}
	ruleWiden = &rule{name: "widen", side: epilogueSide,
		pattern: func(x *match.Pattern, _ *captures) *match.Pattern {
			return match.Convert(x).Where("to a wider float", func(in *hlo.Instruction) bool {
				return wider(in.Shape.Elem, in.Operand(0).Shape.Elem)
			})
		},
		effect: "absorbed before the clamp of an FP8 D: it changes no value"}
	ruleFP8Output = &rule{name: "fp8-output", side: epilogueSide,
		pattern: func(x *match.Pattern, c *captures) *match.Pattern {
			return match.Convert(match.Clamp(match.Op().Bind(&c.s).As("-max"), x, match.Op().Bind(&c.c).As("max"))).
				Where("f8e4m3fn|f8e5m2", func(in *hlo.Instruction) bool {
					return in.Shape.Elem == dtype.F8E4M3FN || in.Shape.Elem == dtype.F8E5M2
				})
		},
		effect: "D is FP8 (the clamp exactly to the format's range)"}
)

// constant is a broadcast constant scalar of value v.
func constant(v float64) *match.Pattern {
	return match.BroadcastScalar(match.ConstantScalar().Value(v))
}

// geluOnePlus is 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x)) with the constants on either side, x*x*x in
// either order and the constants as near as their type holds them.
func geluOnePlus(x *match.Pattern, c *captures) *match.Pattern {
	cube := match.Multiply(x, match.Multiply(x, x).Bind(&c.sq)).Bind(&c.cube)
	inner := match.Multiply(match.BroadcastScalar(match.ConstantScalar().Near(0.044715)), cube).Bind(&c.inner)
	sum := match.Add(x, inner).Bind(&c.sum)
	k := match.BroadcastScalar(match.ConstantScalar().Near(math.Sqrt(2 / math.Pi)).As("≈sqrt(2/pi)"))
	th := match.Tanh(match.Multiply(k, sum).Bind(&c.scaled)).Bind(&c.th)
	return match.Add(constant(1), th).Bind(&c.onePlus)
}

func initAtMostZero() *match.Pattern {
	return match.Constant().Where("≤ 0", func(in *hlo.Instruction) bool {
		v, ok := match.SplatValue(in)
		return ok && v <= 0
	}).As("init")
}

// maxOverAll reports whether the reduce in computes a scalar maximum over every dimension of its input.
func maxOverAll(in *hlo.Instruction) bool {
	if in.NumOperands() != 2 || !in.Shape.IsScalar() || len(in.Ints("dimensions")) != in.Operand(0).Shape.Rank() {
		return false
	}
	comp := in.CalledComputation("to_apply")
	if comp == nil || comp.Root == nil || comp.Root.Opcode != hlo.OpMaximum {
		return false
	}
	a, b := comp.Root.Operand(0), comp.Root.Operand(1)
	return a.Opcode == hlo.OpParameter && b.Opcode == hlo.OpParameter && a != b
}

// rules is every rule, the operand side first, each side in the order its rules are tried: the table
// --rules prints. (A vector bias is tried before a matrix bias, whose pattern also matches it.)
var rules = []*rule{
	ruleFP8, ruleConvert, ruleScale, ruleInverseScale, ruleConvertedScale,
	ruleCommuteBitcast, ruleCommuteBroadcast, ruleCommuteCopy, ruleCommuteReshape, ruleCommuteTranspose,
	ruleCommuteSlice, ruleCommuteDynamicSlice, ruleCommutePad, ruleCommuteSelect,
	ruleReshapeD, ruleSliceD, ruleAlpha, ruleOutputScale, ruleOutputInverseScale, ruleVectorBias,
	ruleMatrixBias, ruleRelu, ruleGelu, ruleGeluHalfX, ruleAbsMax, ruleAbsMaxRelu, ruleDScale,
	ruleDInverseScale, ruleWiden, ruleFP8Output,
}

// init gives each rule of the table the opcodes its pattern's root may have.
func init() {
	for _, r := range rules {
		r.opcodes = r.pattern(match.Op(), &captures{}).Opcodes()
	}
}

// Rule is one entry of the table of what the rewrite absorbs.
type Rule struct {
	// Name names the rule; Side is "operand" (before the dot) or "epilogue" (after it).
	Name string `json:"name"`
	Side string `json:"side"`
	// Pattern is the HLO the rule matches, with the conditions on each instruction in braces; x is the
	// value an operand step applies to, D the dot's result.
	Pattern string `json:"pattern"`
	// Effect says what the cuBLASLt call does with the match.
	Effect string `json:"effect"`
}

// Rules returns the table of what the rewrite absorbs, the operand side first and each side in the order
// its rules are tried or computed.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = Rule{Name: r.name, Side: r.side.String(), Pattern: r.String(), Effect: r.effect}
	}
	return out
}
