package fuse

import (
	"fmt"
	"strings"

	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// operand is what one operand chain of a dot matched: an FP8 value, its dequantize and the ops between it
// and the dot that commute with the dequantize and are replayed on the FP8 value.
type operand struct {
	index int              // 0 for the lhs (A), 1 for the rhs (B)
	fp8   *hlo.Instruction // the FP8 value
	match.Dequantize
	// replay are the ops that commute with the dequantize, FP8 side first.
	replay []*hlo.Instruction
	// chain is every instruction between the FP8 value (excluded) and the dot, FP8 side first.
	chain []*hlo.Instruction
	// used are the rules the chain matched, dot side first.
	used []*rule
}

// refusal is why a dot is not rewritten, with the instructions the reason is about.
type refusal struct {
	msg string
	at  []*hlo.Instruction
}

func (r *refusal) Error() string { return r.msg }

func refuse(at *hlo.Instruction, format string, args ...any) *refusal {
	r := &refusal{msg: fmt.Sprintf(format, args...)}
	if at != nil {
		r.at = append(r.at, at)
	}
	return r
}

func keepsElem(in *hlo.Instruction) bool { return in.Shape.Elem == in.Operand(0).Shape.Elem }

// matchOperand walks up the chain of operand i of dot, from the dot to an FP8 value. It returns the match,
// or a refusal when the chain reaches an FP8 value through something that cannot be absorbed, or nil and
// nil when there is no FP8 value behind the operand at all.
func matchOperand(dot *hlo.Instruction, i int) (*operand, *refusal) {
	op := &operand{index: i}
	var path []*hlo.Instruction // dot side first
	var scaleStep *hlo.Instruction
	cur := dot.Operand(i)
	for !match.FP8(cur) {
		var c captures
		x := match.Op().Bind(&c.x)
		var r *rule
		switch {
		case cur.Opcode == hlo.OpConvert:
			if !ruleConvert.match(cur, x, &c) {
				if f := fp8Behind(cur, 8); f != nil {
					return nil, blocked(i, cur, "convert %%%s turns %s into %s between the FP8 value %%%s and the dot",
						cur.Name, cur.Operand(0).Shape.Elem, cur.Shape.Elem, f.Name)
				}
				return nil, nil
			}
			r = ruleConvert
		case ruleScale.match(cur, x, &c), ruleInverseScale.match(cur, x, &c), ruleConvertedScale.match(cur, x, &c):
			if c.x.Shape.Elem != cur.Shape.Elem {
				// A mixed-precision scale (the verifier allows one): its value is the product of the
				// converted value, but no convert lies in the chain to say to which type.
				return nil, blocked(i, cur, "%s %%%s takes %s and gives %s (mixed precision): the value must be converted before it is scaled",
					cur.Opcode, cur.Name, c.x.Shape.Elem, cur.Shape.Elem)
			}
			if scaleStep != nil {
				return nil, blocked(i, cur, "a second scale (%s %%%s) follows %s %%%s: one scale per operand can be absorbed",
					cur.Opcode, cur.Name, scaleStep.Opcode, scaleStep.Name)
			}
			scaleStep = cur
			switch {
			case cur.Opcode == hlo.OpDivide:
				r = ruleInverseScale
			case ruleScale.match(cur, match.Op(), &captures{}):
				r = ruleScale
			default:
				r = ruleConvertedScale
			}
		default:
			for _, s := range operandSteps {
				if s.match(cur, x, &c) {
					r = s
					break
				}
			}
			if r == nil {
				if f := fp8Behind(cur, 8); f != nil {
					return nil, blocked(i, cur, "%s", whyNotCommuting(cur, f))
				}
				return nil, nil
			}
			if c.x.Shape.Elem != cur.Shape.Elem {
				return nil, blocked(i, cur, "%s %%%s takes %s and gives %s (mixed precision): only converts may change the type",
					cur.Opcode, cur.Name, c.x.Shape.Elem, cur.Shape.Elem)
			}
		}
		op.used = append(op.used, r)
		path = append(path, cur)
		cur = c.x
	}
	op.used = append(op.used, ruleFP8)
	op.fp8 = cur
	for j := len(path) - 1; j >= 0; j-- {
		op.chain = append(op.chain, path[j])
	}
	op.Dequantize = match.FindDequantize(op.chain)
	for _, in := range op.chain {
		if in != op.Scale && in.Opcode != hlo.OpConvert {
			op.replay = append(op.replay, in)
		}
	}
	return op, nil
}

// blocked is the refusal of operand i at instruction at.
func blocked(i int, at *hlo.Instruction, format string, args ...any) *refusal {
	return refuse(at, "operand %d: %s", i, fmt.Sprintf(format, args...))
}

// whyNotCommuting explains why in, which lies between the FP8 value f and a dot, stops the match.
func whyNotCommuting(in, f *hlo.Instruction) string {
	what := fmt.Sprintf("%s %%%s lies between the FP8 value %%%s (%s) and the dot", in.Opcode, in.Name, f.Name, f.Shape.Elem)
	switch in.Opcode {
	case hlo.OpMultiply:
		return what + ": only a multiply by a broadcast scalar (a per-tensor scale) is absorbed"
	case hlo.OpDivide:
		return what + ": only a divide by a broadcast scalar (a per-tensor scale) is absorbed"
	case hlo.OpSelect:
		return what + ": a select commutes with the dequantize only when its other operand is a broadcast zero"
	case hlo.OpPad:
		return what + ": a pad commutes with the dequantize only when it pads with zero"
	case hlo.OpBitcast:
		return what + ": the bitcast changes the element type"
	case hlo.OpFusion, hlo.OpCustomCall, hlo.OpCall:
		return what + ": the dequantize is hidden inside a called computation"
	}
	return what + ": only converts, a scale, and bitcast, broadcast, copy, reshape, transpose, slice, " +
		"dynamic-slice, pad of zero and select against zero may lie there"
}

// fp8Behind looks up to depth instructions up the operands of in (through everything but the ops that
// start a new computation of their own: dots, reductions, calls, parameters) for an FP8 value.
func fp8Behind(in *hlo.Instruction, depth int) *hlo.Instruction {
	seen := map[*hlo.Instruction]bool{}
	var walk func(x *hlo.Instruction, d int) *hlo.Instruction
	walk = func(x *hlo.Instruction, d int) *hlo.Instruction {
		if seen[x] {
			return nil
		}
		seen[x] = true
		if match.FP8(x) {
			return x
		}
		if d == 0 {
			return nil
		}
		switch x.Opcode {
		case hlo.OpDot, hlo.OpConvolution, hlo.OpReduce, hlo.OpReduceWindow, hlo.OpParameter, hlo.OpConstant,
			hlo.OpWhile, hlo.OpCall, hlo.OpConditional, hlo.OpCustomCall, hlo.OpFusion, hlo.OpIota,
			hlo.OpRng, hlo.OpScatter, hlo.OpGather, hlo.OpSort:
			return nil
		}
		for _, o := range x.Operands() {
			if o.Shape.IsScalar() {
				continue
			}
			if f := walk(o, d-1); f != nil {
				return f
			}
		}
		return nil
	}
	return walk(in, depth)
}

// exactConvertType reports whether converting values of an FP8 type to t loses nothing: every FP8 value of
// e4m3fn and e5m2 is a bf16, f16, f32 and f64 value.
func exactConvertType(t dtype.Type) bool {
	return t == dtype.BF16 || t == dtype.F16 || t == dtype.F32 || t == dtype.F64
}

// check applies the rules the dequantize must follow once the chain is known.
func (op *operand) check() *refusal {
	// The converts between the FP8 value and the scale must not round: each goes to a type that holds
	// every FP8 value. After the scale they may round (bf16 normalization puts a convert to bf16 there).
	for _, c := range op.Converts {
		if op.Scale != nil && !before(op.chain, c, op.Scale) {
			if !c.Shape.Elem.IsFloat() {
				return blocked(op.index, c, "convert %%%s turns the dequantized value into %s", c.Name, c.Shape.Elem)
			}
			continue
		}
		if !exactConvertType(c.Shape.Elem) {
			return blocked(op.index, c, "convert %%%s turns the FP8 value into %s, which does not hold every %s value",
				c.Name, c.Shape.Elem, op.fp8.Shape.Elem)
		}
	}
	if op.Factor != nil && !op.Factor.Shape.Elem.IsFloat() {
		return blocked(op.index, op.Factor, "the scale %%%s is %s, not a floating-point scalar", op.Factor.Name, op.Factor.Shape.Elem)
	}
	return nil
}

func before(chain []*hlo.Instruction, a, b *hlo.Instruction) bool {
	for _, x := range chain {
		if x == a {
			return true
		}
		if x == b {
			return false
		}
	}
	return false
}

// describe says in words what the operand matched: "f8e4m3fn %x, convert %x_f32 to f32, multiply by
// broadcast scalar %x_scale".
func (op *operand) describe() string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%s %%%s", op.fp8.Shape.Elem, op.fp8.Name))
	for _, in := range op.chain {
		switch {
		case in == op.Scale:
			verb := "multiply %" + in.Name + " by"
			if op.Divide {
				verb = "divide %" + in.Name + " by"
			}
			what := "broadcast scalar"
			if op.Factor.Shape.Elem != in.Shape.Elem {
				what = "converted broadcast scalar"
			}
			parts = append(parts, fmt.Sprintf("%s %s %%%s (%s)", verb, what, op.Factor.Name, op.Factor.Shape.Elem))
		case in.Opcode == hlo.OpConvert:
			parts = append(parts, fmt.Sprintf("convert %%%s to %s", in.Name, in.Shape.Elem))
		default:
			parts = append(parts, fmt.Sprintf("%s %%%s", in.Opcode, in.Name))
		}
	}
	return strings.Join(parts, ", ")
}

// pattern is the dequantize the operand matched, in the notation of package match: the operand rules
// composed, as multiply(convert(FP8), broadcast(scalar)).
func (op *operand) pattern() string {
	converts := 0
	for _, c := range op.Converts {
		if op.Scale == nil || before(op.chain, c, op.Scale) {
			converts++
		}
	}
	var scale *rule
	switch {
	case op.Scale != nil && op.Divide:
		scale = ruleInverseScale
	case op.Scale != nil && op.Factor.Shape.Elem != op.Scale.Shape.Elem:
		scale = ruleConvertedScale
	case op.Scale != nil:
		scale = ruleScale
	}
	return dequantizePattern(converts, scale).Short()
}
