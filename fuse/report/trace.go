package report

import (
	"fmt"
	"slices"
	"strings"

	"octet/cublas"
	"octet/fuse/match"
	"octet/fuse/xlarules"
	"octet/hlo"
	"octet/hlo/printer"
)

// tracer follows values of a compiled module across computation boundaries: from a fusion's parameter (or
// that of a computation called once) to the caller's operand, from a get-tuple-element of a fusion into
// the fused computation's root tuple, and through slices of concatenations to the piece they take.
type tracer struct {
	callers map[*hlo.Computation][]*hlo.Instruction
	// target is the XLA release and GPU the verdicts are for; optimized is set when the module has been
	// through XLA's passes (scheduled, or holding fusions or GEMM calls), where no compile is predicted.
	target    xlarules.Target
	optimized bool
	// asIs is set where the verdicts need no compile predictions, whatever the module (PassTracker).
	asIs bool
	// names indexes the instructions of a computation by name, made the first time one is looked up.
	names map[*hlo.Computation]map[string]*hlo.Instruction
	// steps counts the instructions visited, for the tests that hold the analysis linear.
	steps int64
}

// lookup returns the instruction of c named name, or nil. Each computation is indexed once: a lookup per
// name, not a walk through the computation per GEMM.
func (t *tracer) lookup(c *hlo.Computation, name string) *hlo.Instruction {
	idx := t.names[c]
	if idx == nil {
		t.steps += int64(len(c.Instructions))
		idx = make(map[string]*hlo.Instruction, len(c.Instructions))
		for _, in := range c.Instructions {
			idx[in.Name] = in
		}
		if t.names == nil {
			t.names = map[*hlo.Computation]map[string]*hlo.Instruction{}
		}
		t.names[c] = idx
	}
	t.steps++
	return idx[name]
}

func newTracer(m *hlo.Module) *tracer {
	t := &tracer{callers: map[*hlo.Computation][]*hlo.Instruction{}, target: xlarules.DefaultTarget()}
	if b, ok := m.Attr("is_scheduled").(hlo.Bool); ok && bool(b) {
		t.optimized = true
	}
	for _, c := range m.Computations {
		t.steps += int64(len(c.Instructions))
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpFusion || in.Opcode == hlo.OpCustomCall && cublas.IsTarget(in.CustomCallTarget()) {
				t.optimized = true
			}
			if in.Opcode == hlo.OpFusion || in.Opcode == hlo.OpCall {
				for _, f := range in.Called() {
					t.callers[f] = append(t.callers[f], in)
				}
			}
		}
	}
	return t
}

// fusionOf returns the fusion instruction that calls c (the first, when several do), or nil.
func (t *tracer) fusionOf(c *hlo.Computation) *hlo.Instruction {
	for _, f := range t.callers[c] {
		t.steps++
		if f.Opcode == hlo.OpFusion {
			return f
		}
	}
	return nil
}

// callerOf returns the instruction whose operands c's parameters are: the fusion that calls c, or the one
// call of it (a module before optimization calls the functions JAX lowered apart); nil for a computation
// called from several places, or by a while loop or a conditional, whose parameters are no one operand.
func (t *tracer) callerOf(c *hlo.Computation) *hlo.Instruction {
	if f := t.fusionOf(c); f != nil {
		return f
	}
	if cs := t.callers[c]; len(cs) == 1 && cs[0].Opcode == hlo.OpCall {
		return cs[0]
	}
	return nil
}

// side is what a GEMM operand traced back to: an FP8 value, the way from it to the GEMM, and the
// dequantize on that way.
type side struct {
	fp8 *hlo.Instruction
	// path is every instruction from the FP8 value (excluded) to the GEMM's operand, FP8 side first, across
	// computations.
	path []*hlo.Instruction
	// The dequantize on the way, and scale, the scalar of its scale step traced out of fusions (nil when
	// there is none).
	match.Dequantize
	scale *hlo.Instruction
}

const traceDepth = 40

// trace follows x up to an FP8 value. It returns nil when there is none within reach.
func (t *tracer) trace(x *hlo.Instruction) *side {
	seen := map[*hlo.Instruction]bool{}
	path := t.walk(x, traceDepth, seen)
	if path == nil {
		return nil
	}
	s := &side{fp8: path[0], path: path[1:], Dequantize: match.FindDequantize(path[1:])}
	if s.Factor != nil {
		s.scale = t.scalarSource(s.Factor)
	}
	return s
}

// walk returns the path from an FP8 value to x (both included), or nil.
func (t *tracer) walk(x *hlo.Instruction, depth int, seen map[*hlo.Instruction]bool) []*hlo.Instruction {
	if x == nil || seen[x] || depth == 0 {
		return nil
	}
	t.steps++
	seen[x] = true
	if match.FP8(x) {
		return []*hlo.Instruction{x}
	}
	up := func(y *hlo.Instruction) []*hlo.Instruction {
		if p := t.walk(y, depth-1, seen); p != nil {
			return append(p, x)
		}
		return nil
	}
	switch x.Opcode {
	case hlo.OpParameter:
		if f := t.callerOf(x.Parent); f != nil && int(x.ParameterNumber) < f.NumOperands() {
			return up(f.Operand(int(x.ParameterNumber)))
		}
		return nil
	case hlo.OpGetTupleElement:
		idx, _ := x.Int("index")
		src := x.Operand(0)
		switch src.Opcode {
		case hlo.OpTuple:
			if int(idx) < src.NumOperands() {
				if p := up(src.Operand(int(idx))); p != nil {
					return p
				}
			}
		case hlo.OpFusion:
			if c := src.CalledComputation("calls"); c != nil && c.Root != nil {
				root := c.Root
				if root.Opcode == hlo.OpTuple && int(idx) < root.NumOperands() {
					return up(root.Operand(int(idx)))
				}
			}
		}
		return nil
	case hlo.OpFusion:
		if c := x.CalledComputation("calls"); c != nil && c.Root != nil && !c.Root.Shape.IsTuple() {
			return up(c.Root)
		}
		return nil
	case hlo.OpSlice:
		if cat := x.Operand(0); cat.Opcode == hlo.OpConcatenate {
			if piece := slicedPiece(x, cat); piece != nil {
				if p := up(piece); p != nil {
					return append(p[:len(p)-1], cat, x)
				}
				return nil
			}
		}
		return up(x.Operand(0))
	case hlo.OpConvert, hlo.OpBitcast, hlo.OpReshape, hlo.OpCopy, hlo.OpTranspose, hlo.OpBroadcast,
		hlo.OpPad, hlo.OpDynamicSlice, hlo.OpAllGather, hlo.OpCollectivePermute, hlo.OpAllToAll:
		return up(x.Operand(0))
	case hlo.OpMultiply, hlo.OpDivide, hlo.OpSelect, hlo.OpConcatenate, hlo.OpAdd, hlo.OpSubtract,
		hlo.OpMaximum, hlo.OpMinimum, hlo.OpClamp, hlo.OpNegate, hlo.OpAbs:
		for _, o := range x.Operands() {
			if o.Shape.IsScalar() || o.Opcode == hlo.OpBroadcast && o.Operand(0).Shape.IsScalar() ||
				o.Shape.Elem.String() == "pred" {
				continue
			}
			if p := up(o); p != nil {
				return p
			}
		}
	}
	return nil
}

// slicedPiece returns the operand of the concatenation cat that the slice s takes whole or in part, when it
// takes from one operand only.
func slicedPiece(s, cat *hlo.Instruction) *hlo.Instruction {
	dims := cat.Ints("dimensions")
	sl, ok := s.Attr("slice").(hlo.Slice)
	if len(dims) != 1 || !ok || int(dims[0]) >= len(sl) {
		return nil
	}
	d := dims[0]
	lo, hi := sl[d].Start, sl[d].Limit
	off := int64(0)
	for _, o := range cat.Operands() {
		n := o.Shape.Dims[d]
		if lo >= off && hi <= off+n {
			return o
		}
		off += n
	}
	return nil
}

// scalarSource follows a scalar out of converts, reshapes and fusion parameters to the value it comes from
// (an entry parameter, a constant, ...).
func (t *tracer) scalarSource(x *hlo.Instruction) *hlo.Instruction {
	for i := 0; i < traceDepth; i++ {
		t.steps++
		switch x.Opcode {
		case hlo.OpConvert, hlo.OpReshape, hlo.OpBitcast, hlo.OpCopy:
			x = x.Operand(0)
			continue
		case hlo.OpParameter:
			if f := t.callerOf(x.Parent); f != nil && int(x.ParameterNumber) < f.NumOperands() {
				x = f.Operand(int(x.ParameterNumber))
				continue
			}
		}
		return x
	}
	return x
}

// describeValue names a value for a report: "%Arg_0.1.0 (parameter 0)", "constant 1", "%x".
func describeValue(x *hlo.Instruction) string {
	if x == nil {
		return "none"
	}
	switch x.Opcode {
	case hlo.OpParameter:
		if x.Parent != nil && x.Parent.Module != nil && x.Parent == x.Parent.Module.Entry {
			return fmt.Sprintf("%%%s (parameter %d)", x.Name, x.ParameterNumber)
		}
	case hlo.OpConstant:
		if x.Literal != nil && x.Shape.IsScalar() {
			return "constant " + printer.LiteralString(x.Literal, x.Shape)
		}
	}
	return "%" + x.Name
}

// where names the computation of in when it is not the entry: " in %fused_slice".
func (t *tracer) where(in *hlo.Instruction) string {
	c := in.Parent
	if c == nil || c.Module == nil || c == c.Module.Entry {
		return ""
	}
	if f := t.fusionOf(c); f != nil {
		return " in %" + f.Name
	}
	return " in %" + c.Name
}

// describe says in words where the side comes from: "f8e4m3fn[32,64] %Arg_0.1.0 (parameter 0),
// dequantized in bf16 in %input_slice_fusion (convert %convert.7.2, multiply %multiply.4.2 by %Arg_2.3.0
// (parameter 2)), then reshape, concatenate, slice, get-tuple-element, bitcast".
func (t *tracer) describe(s *side) string {
	var b strings.Builder
	o := t.origin(s.fp8)
	fmt.Fprintf(&b, "%s%s %s", s.fp8.Shape.Elem, "["+hlo.JoinInts(s.fp8.Shape.Dims)+"]", describeValue(o))
	if o.Opcode == hlo.OpConvert && !match.FP8(o.Operand(0)) {
		fmt.Fprintf(&b, " (quantized here from %s)", o.Operand(0).Shape.Elem)
	}
	var rest []*hlo.Instruction
	if convert := s.FirstConvert(); convert != nil {
		// The dequantize: the converts up to the scale (the first alone when there is none), then the scale,
		// in the type the scale computes in.
		last, elem := convert, convert.Shape.Elem
		converts := []*hlo.Instruction{convert}
		if s.Scale != nil {
			last, elem = s.Scale, s.Scale.Shape.Elem
			converts = nil
			for _, c := range s.Converts {
				if slices.Index(s.path, c) < slices.Index(s.path, s.Scale) {
					converts = append(converts, c)
				}
			}
		}
		fmt.Fprintf(&b, ", dequantized in %s%s (", elem, t.where(convert))
		for i, c := range converts {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "convert %%%s", c.Name)
		}
		if s.Scale != nil {
			fmt.Fprintf(&b, ", %s %%%s by %s", s.Scale.Opcode, s.Scale.Name, describeValue(s.scale))
		}
		b.WriteString(")")
		rest = s.path[slices.Index(s.path, last)+1:]
	} else {
		rest = s.path
	}
	var ops []string
	for _, in := range rest {
		if in.Opcode == hlo.OpParameter || in.Opcode == hlo.OpTuple {
			continue
		}
		ops = append(ops, in.Opcode.String())
	}
	if len(ops) > 0 {
		b.WriteString(", then " + strings.Join(compress(ops), ", "))
	}
	return b.String()
}

// compress folds runs of the same word: [bitcast bitcast slice] -> [bitcast ×2, slice].
func compress(words []string) []string {
	var out []string
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && words[j] == words[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", words[i], j-i))
		} else {
			out = append(out, words[i])
		}
		i = j
	}
	return out
}
