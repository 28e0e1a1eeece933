package match

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// Pattern matches one instruction and, through its operand patterns, the instructions it reads. The zero
// value is not useful; make patterns with the constructors of this package.
type Pattern struct {
	op   hlo.Opcode // hlo.OpInvalid: any opcode
	args []*Pattern // nil: the operands are not looked at
	// prefix: args match the first operands only (dynamic-slice's start indices are not looked at).
	prefix bool
	alts   []*Pattern // AnyOf: one of these
	bind   **hlo.Instruction
	same   **hlo.Instruction
	where  []predicate
	// name is what String and Short print for the pattern instead of its structure ("" when unnamed).
	name string
}

type predicate struct {
	desc string
	f    func(*hlo.Instruction) bool
}

// Match reports whether in matches p. On success the captures of p hold what they matched; on failure they
// are left as they were.
func Match(in *hlo.Instruction, p *Pattern) bool {
	var s state
	if p.match(in, &s) {
		return true
	}
	s.rollback(0)
	return false
}

// state is the undo log of the captures a match has made.
type state struct {
	log []capture
}

type capture struct {
	dst *(*hlo.Instruction)
	old *hlo.Instruction
}

func (s *state) set(dst **hlo.Instruction, in *hlo.Instruction) {
	s.log = append(s.log, capture{dst, *dst})
	*dst = in
}

func (s *state) rollback(mark int) {
	for i := len(s.log) - 1; i >= mark; i-- {
		*s.log[i].dst = s.log[i].old
	}
	s.log = s.log[:mark]
}

func (p *Pattern) match(in *hlo.Instruction, s *state) bool {
	if in == nil {
		return false
	}
	if p.alts != nil {
		mark := len(s.log)
		ok := false
		for _, a := range p.alts {
			if a.match(in, s) {
				ok = true
				break
			}
			s.rollback(mark)
		}
		if !ok {
			return false
		}
	}
	if p.op != hlo.OpInvalid && in.Opcode != p.op {
		return false
	}
	if p.same != nil && *p.same != in {
		return false
	}
	for _, w := range p.where {
		if !w.f(in) {
			return false
		}
	}
	if p.args != nil {
		ops := in.Operands()
		if p.prefix && len(ops) > len(p.args) {
			ops = ops[:len(p.args)]
		}
		if len(ops) != len(p.args) {
			return false
		}
		mark := len(s.log)
		if !matchOperands(ops, p.args, s) {
			s.rollback(mark)
			if len(p.args) != 2 || !p.op.IsCommutative() {
				return false
			}
			if !matchOperands([]*hlo.Instruction{ops[1], ops[0]}, p.args, s) {
				s.rollback(mark)
				return false
			}
		}
	}
	if p.bind != nil {
		s.set(p.bind, in)
	}
	return true
}

func matchOperands(ops []*hlo.Instruction, args []*Pattern, s *state) bool {
	for i, a := range args {
		if !a.match(ops[i], s) {
			return false
		}
	}
	return true
}

// Bind makes p capture the instruction it matches into *dst.
func (p *Pattern) Bind(dst **hlo.Instruction) *Pattern {
	q := p.clone()
	q.bind = dst
	return q
}

// Where adds a condition on the matched instruction; desc names it in String.
func (p *Pattern) Where(desc string, f func(*hlo.Instruction) bool) *Pattern {
	q := p.clone()
	q.where = append(q.where, predicate{desc, f})
	return q
}

// Elem requires the matched instruction to be an array of element type t.
func (p *Pattern) Elem(t dtype.Type) *Pattern {
	return p.Where(t.String(), func(in *hlo.Instruction) bool { return in.Shape.IsArray() && in.Shape.Elem == t })
}

// As names p: String and Short print name in place of p's opcode, conditions and operands, as a rule names
// the values it speaks of ("D", "FP8", "scalar"). Matching is unchanged.
func (p *Pattern) As(name string) *Pattern {
	q := p.clone()
	q.name = name
	return q
}

// Value requires the matched instruction to be a scalar constant equal to v (as read in its own type). An
// unnamed pattern is named after v.
func (p *Pattern) Value(v float64) *Pattern {
	return p.valueName(formatValue(v)).Where(formatValue(v), func(in *hlo.Instruction) bool {
		x, ok := ConstantValue(in)
		return ok && (x == v || math.IsNaN(x) && math.IsNaN(v))
	})
}

// Near requires the matched instruction to be a scalar constant within a relative tolerance of v: the
// larger of two units of its type's precision (2 * eps) and 1.5e-5, the tolerance XLA's
// BcastConstScalarNear gives f32. A constant written for one type and rounded to bf16 (0.796875 for
// sqrt(2/pi)) is near; a different constant is not.
//
// An unnamed pattern is named ≈v.
func (p *Pattern) Near(v float64) *Pattern {
	return p.valueName("≈"+formatValue(v)).Where("≈"+formatValue(v), func(in *hlo.Instruction) bool {
		x, ok := ConstantValue(in)
		if !ok {
			return false
		}
		tol := 1.5e-5
		if in.Shape.Elem.IsFloat() {
			if fi := in.Shape.Elem.Finfo(); 2*fi.Eps > tol {
				tol = 2 * fi.Eps
			}
		}
		return math.Abs(x-v) <= tol*math.Abs(v)
	})
}

func (p *Pattern) valueName(name string) *Pattern {
	if p.name != "" {
		return p
	}
	return p.As(name)
}

// Opcodes returns the opcodes an instruction p matches may have, nil when p takes any opcode: a quick test
// that rules an instruction out before a pattern is built for it.
func (p *Pattern) Opcodes() []hlo.Opcode {
	if p.op != hlo.OpInvalid {
		return []hlo.Opcode{p.op}
	}
	var ops []hlo.Opcode
	for _, a := range p.alts {
		aops := a.Opcodes()
		if aops == nil {
			return nil
		}
		for _, op := range aops {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	return ops
}

func (p *Pattern) clone() *Pattern {
	q := *p
	q.where = append([]predicate(nil), p.where...)
	return &q
}

// String describes the pattern in the HLO-like notation it is written in, with the conditions on each
// instruction in braces: multiply(convert(x{FP8}), broadcast(scalar)). A named pattern prints as its name
// and its conditions.
func (p *Pattern) String() string {
	var b strings.Builder
	p.format(&b, true)
	return b.String()
}

// Short is String without the conditions: the shape of the HLO the pattern matches, with its named parts,
// as multiply(convert(FP8), broadcast(scalar)).
func (p *Pattern) Short() string {
	var b strings.Builder
	p.format(&b, false)
	return b.String()
}

func (p *Pattern) format(b *strings.Builder, conditions bool) {
	if p.name != "" {
		b.WriteString(p.name)
		if conditions {
			p.formatWhere(b)
		}
		return
	}
	if p.alts != nil {
		for i, a := range p.alts {
			if i > 0 {
				b.WriteString(" | ")
			}
			a.format(b, conditions)
		}
		return
	}
	if p.op == hlo.OpInvalid {
		b.WriteString("x")
	} else {
		b.WriteString(p.op.String())
	}
	if conditions {
		p.formatWhere(b)
	}
	if p.args != nil {
		b.WriteByte('(')
		for i, a := range p.args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.format(b, conditions)
		}
		if p.prefix {
			b.WriteString(", ...")
		}
		b.WriteByte(')')
	}
}

// formatWhere prints the conditions of p in braces, each once, leaving out one its name already says.
func (p *Pattern) formatWhere(b *strings.Builder) {
	var done []string
	for _, w := range p.where {
		if w.desc == "" || w.desc == p.name || slices.Contains(done, w.desc) || p.same != nil && w.desc == "same" {
			continue
		}
		done = append(done, w.desc)
		b.WriteString("{" + w.desc + "}")
	}
}

// Op matches any instruction.
func Op() *Pattern { return &Pattern{} }

// Same matches only the instruction *x holds when it is tried (an earlier capture of the same pattern).
func Same(x **hlo.Instruction) *Pattern {
	return &Pattern{same: x, where: []predicate{{"same", func(*hlo.Instruction) bool { return true }}}}
}

// AnyOf matches what the first matching alternative matches.
func AnyOf(alts ...*Pattern) *Pattern { return &Pattern{alts: alts} }

// Opcode matches an instruction of opcode op whose operands match args in order (in either order for a
// commutative binary op). With no args the operands are not looked at.
func Opcode(op hlo.Opcode, args ...*Pattern) *Pattern {
	p := &Pattern{op: op}
	if len(args) > 0 {
		p.args = args
	}
	return p
}

// The patterns named after opcodes match an instruction of that opcode whose operands match theirs; a nil
// operand pattern stands for any operand.

// Abs matches abs(x).
func Abs(x *Pattern) *Pattern { return nary(hlo.OpAbs, x) }

// Bitcast matches bitcast(x).
func Bitcast(x *Pattern) *Pattern { return nary(hlo.OpBitcast, x) }

// Broadcast matches broadcast(x).
func Broadcast(x *Pattern) *Pattern { return nary(hlo.OpBroadcast, x) }

// Convert matches convert(x).
func Convert(x *Pattern) *Pattern { return nary(hlo.OpConvert, x) }

// Copy matches copy(x).
func Copy(x *Pattern) *Pattern { return nary(hlo.OpCopy, x) }

// GetTupleElement matches get-tuple-element(x).
func GetTupleElement(x *Pattern) *Pattern { return nary(hlo.OpGetTupleElement, x) }

// Reshape matches reshape(x).
func Reshape(x *Pattern) *Pattern { return nary(hlo.OpReshape, x) }

// Slice matches slice(x).
func Slice(x *Pattern) *Pattern { return nary(hlo.OpSlice, x) }

// Tanh matches tanh(x).
func Tanh(x *Pattern) *Pattern { return nary(hlo.OpTanh, x) }

// Transpose matches transpose(x).
func Transpose(x *Pattern) *Pattern { return nary(hlo.OpTranspose, x) }

// Add matches add(x, y) or add(y, x).
func Add(x, y *Pattern) *Pattern { return nary(hlo.OpAdd, x, y) }

// Divide matches divide(x, y).
func Divide(x, y *Pattern) *Pattern { return nary(hlo.OpDivide, x, y) }

// Dot matches dot(x, y).
func Dot(x, y *Pattern) *Pattern { return nary(hlo.OpDot, x, y) }

// Maximum matches maximum(x, y) or maximum(y, x).
func Maximum(x, y *Pattern) *Pattern { return nary(hlo.OpMaximum, x, y) }

// Minimum matches minimum(x, y) or minimum(y, x).
func Minimum(x, y *Pattern) *Pattern { return nary(hlo.OpMinimum, x, y) }

// Multiply matches multiply(x, y) or multiply(y, x).
func Multiply(x, y *Pattern) *Pattern { return nary(hlo.OpMultiply, x, y) }

// Pad matches pad(x, value).
func Pad(x, value *Pattern) *Pattern { return nary(hlo.OpPad, x, value) }

// Subtract matches subtract(x, y).
func Subtract(x, y *Pattern) *Pattern { return nary(hlo.OpSubtract, x, y) }

// Clamp matches clamp(lo, x, hi).
func Clamp(lo, x, hi *Pattern) *Pattern { return nary(hlo.OpClamp, lo, x, hi) }

// Reduce matches reduce(x, init) (one array reduced).
func Reduce(x, init *Pattern) *Pattern { return nary(hlo.OpReduce, x, init) }

// Select matches select(p, x, y).
func Select(p, x, y *Pattern) *Pattern { return nary(hlo.OpSelect, p, x, y) }

// Constant matches any constant.
func Constant() *Pattern { return &Pattern{op: hlo.OpConstant} }

// Parameter matches any parameter.
func Parameter() *Pattern { return &Pattern{op: hlo.OpParameter} }

// DynamicSlice matches dynamic-slice(x, start indices...), whatever the start indices.
func DynamicSlice(x *Pattern) *Pattern {
	p := nary(hlo.OpDynamicSlice, x)
	p.prefix = true
	return p
}

// CustomCall matches a custom-call to one of targets (to any target when none is given), whatever its
// operands.
func CustomCall(targets ...string) *Pattern {
	return Opcode(hlo.OpCustomCall).Where(strings.Join(targets, "|"), targetIn(targets))
}

func nary(op hlo.Opcode, args ...*Pattern) *Pattern {
	p := &Pattern{op: op, args: make([]*Pattern, len(args))}
	for i, a := range args {
		if a == nil {
			a = Op()
		}
		p.args[i] = a
	}
	return p
}

func targetIn(targets []string) func(*hlo.Instruction) bool {
	return func(in *hlo.Instruction) bool {
		t := in.CustomCallTarget()
		for _, x := range targets {
			if t == x {
				return true
			}
		}
		return len(targets) == 0
	}
}

// Scalar matches any rank-0 array; it prints as "scalar".
func Scalar() *Pattern {
	return Op().Where("scalar", func(in *hlo.Instruction) bool { return in.Shape.IsScalar() }).As("scalar")
}

// ConstantScalar matches a constant holding one element (rank 0, or every dimension 1).
func ConstantScalar() *Pattern {
	return Constant().Where("scalar", func(in *hlo.Instruction) bool {
		_, ok := ConstantValue(in)
		return ok
	})
}

// BroadcastScalar matches broadcast(s) of a rank-0 s: the form a scalar takes in an elementwise op.
func BroadcastScalar(s *Pattern) *Pattern {
	if s == nil {
		s = Scalar()
	} else {
		s = s.Where("scalar", func(in *hlo.Instruction) bool { return in.Shape.IsScalar() })
	}
	return Broadcast(s)
}

// FP8 reports whether in is an array of an 8-bit floating-point type.
func FP8(in *hlo.Instruction) bool { return in.Shape.IsArray() && in.Shape.Elem.IsFP8() }

// ConstantValue returns the value of a constant that holds one element (rank 0, or every dimension 1) of
// a real number type, as the literal holds it (rounded to its element type when it was read: "0.044715" in
// a bf16 constant is 0.044677734375). It reports false for anything else, and for an elided literal.
func ConstantValue(in *hlo.Instruction) (float64, bool) {
	if in == nil || in.Opcode != hlo.OpConstant || in.Literal == nil || !in.Shape.IsArray() ||
		in.Shape.NumElements() != 1 {
		return 0, false
	}
	return in.Literal.Float(0)
}

// SplatValue is the value an instruction holds in every element: that of a constant of one element, or
// of a broadcast, reshape, copy or bitcast of one (which keep each value), or of a convert of one (rounded
// to the convert's type). ok is false for anything else, a multi-element constant included.
func SplatValue(in *hlo.Instruction) (v float64, ok bool) {
	var converts []dtype.Type // outermost first
	for in != nil {
		switch in.Opcode {
		case hlo.OpConstant:
			if v, ok = ConstantValue(in); !ok {
				return 0, false
			}
			for i := len(converts) - 1; i >= 0; i-- {
				v = RoundTo(converts[i], v)
			}
			return v, true
		case hlo.OpConvert:
			converts = append(converts, in.Shape.Elem)
		case hlo.OpBroadcast, hlo.OpReshape, hlo.OpCopy, hlo.OpBitcast:
		default:
			return 0, false
		}
		if in.NumOperands() != 1 {
			return 0, false
		}
		in = in.Operand(0)
	}
	return 0, false
}

// IsZero reports whether in holds a zero in every element (SplatValue).
func IsZero(in *hlo.Instruction) bool {
	v, ok := SplatValue(in)
	return ok && v == 0
}

// RoundTo rounds v to the nearest value of the floating-point type t (ties to even, as ml_dtypes does);
// other types are returned unchanged.
func RoundTo(t dtype.Type, v float64) float64 {
	switch {
	case t == dtype.F64 || !t.IsFloat():
		return v
	case t == dtype.F32:
		return float64(float32(v))
	}
	return t.DecodeFloat64(t.EncodeFloat64(v))
}

func formatValue(v float64) string { return fmt.Sprint(v) }
