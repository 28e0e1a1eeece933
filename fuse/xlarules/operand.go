package xlarules

import (
	"fmt"
	"strings"

	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// param is what the FP8 matcher found for one operand.
type param struct {
	fp8, scale *hlo.Instruction
	divide     bool
	// commuting are the ops between the dequantize and the dot, FP8 side first.
	commuting []step
	// rank, when not 0, is the rank of the operand as CreateF8CustomCall sees it after the passes that
	// run before the rewriter (a DotDecomposer reshape or a GemvRewriter bitcast put last).
	rank int
	// dequant are the instructions of the dequantize: the convert, and the scale's multiply or divide
	// and broadcast.
	dequant []*hlo.Instruction
	// upcast, when valid, is the type OperandUpcaster converted the FP8 operand to: the convert the
	// matcher takes is that pass's.
	upcast dtype.Type
	// moved are the reshapes and transposes ReshapeMover sinks below the scale, from between the convert
	// and the scale.
	moved []*hlo.Instruction
}

// step is one instruction of the walk and the operand index the walk came from.
type step struct {
	in   *hlo.Instruction
	from int
}

// find is FindF8SubgraphRecursive: from x up through single-operand ops, divide, dynamic-slice and pad
// (operand 0), multiply (operand 0, then 1) and select (operand 1, then 2) to an FP8 value. It returns the
// path, FP8 value first, or nil.
func find(x *hlo.Instruction, seen map[*hlo.Instruction]bool) []step {
	// The walk is iterative where it does not branch, so that a long chain costs no deep recursion.
	var path []step
	for {
		if seen[x] {
			return nil
		}
		seen[x] = true
		if match.FP8(x) {
			return prepend(path, step{x, -1})
		}
		switch {
		case x.NumOperands() == 1 || x.Opcode == hlo.OpDivide || x.Opcode == hlo.OpDynamicSlice || x.Opcode == hlo.OpPad:
			if x.NumOperands() == 0 {
				return nil
			}
			path = append(path, step{x, 0})
			x = x.Operand(0)
			continue
		case x.Opcode == hlo.OpMultiply || x.Opcode == hlo.OpSelect:
			first := 0
			if x.Opcode == hlo.OpSelect {
				first = 1
			}
			for i := first; i < first+2 && i < x.NumOperands(); i++ {
				if p := find(x.Operand(i), seen); p != nil {
					return append(p, prepend(path, step{x, i})...)
				}
			}
		}
		return nil
	}
}

// prepend returns the walk so far (collected from the dot up) reversed after head, FP8 side first.
func prepend(path []step, head step) []step {
	out := []step{head}
	for i := len(path) - 1; i >= 0; i-- {
		out = append(out, path[i])
	}
	return out
}

// matchParam is the FP8 matcher on one dot operand x: MatchFp8Param (newest) or IsSupportedF8Pattern
// (2024). x itself FP8; or an FP8 value, a convert, then a multiply or divide of the convert by a
// broadcast (or, in MatchFp8Param, no scale), then only ops that commute with the dequantize. compile
// says the module goes through a full compile first, where ReshapeMover sinks reshapes and transposes
// that lie between the convert and a scale by a broadcast scalar below the scale (see moveRearranges).
func matchParam(x *hlo.Instruction, rel *Release, compile bool) (p *param, why, short string) {
	path := find(x, map[*hlo.Instruction]bool{})
	if path == nil {
		return nil, fmt.Sprintf("%%%s reaches no FP8 value through single-operand ops, divide, dynamic-slice, pad, "+
			"multiply and select", x.Name), "no FP8 value"
	}
	p = &param{fp8: path[0].in}
	if len(path) == 1 {
		return p, "", ""
	}
	n := 0
	convert := func(in *hlo.Instruction) bool { return in.Opcode == hlo.OpConvert }
	if compile {
		path = moveRearranges(path)
	}
	if len(path) > 2 {
		s := path[2].in
		switch s.Opcode {
		case hlo.OpMultiply:
			for j := range 2 {
				if convert(s.Operand(j)) && s.Operand(1-j).Opcode == hlo.OpBroadcast {
					p.fp8, p.scale, n = s.Operand(j).Operand(0), s.Operand(1-j).Operand(0), 2
					p.dequant = []*hlo.Instruction{s.Operand(j), s, s.Operand(1 - j)}
					break
				}
			}
		case hlo.OpDivide:
			if convert(s.Operand(0)) && s.Operand(1).Opcode == hlo.OpBroadcast {
				p.fp8, p.scale, p.divide, n = s.Operand(0).Operand(0), s.Operand(1).Operand(0), true, 2
				p.dequant = []*hlo.Instruction{s.Operand(0), s, s.Operand(1)}
			}
		case hlo.OpTranspose, hlo.OpReshape:
			if path[2].from == movedStep {
				// ReshapeMover sank these below the scale: the scale is the first step that is not.
				k := 2
				for path[k].from == movedStep {
					p.moved = append(p.moved, path[k].in)
					k++
				}
				s := path[k].in
				p.fp8, p.scale, p.divide, n = path[0].in, s.Operand(1-path[k].from).Operand(0), s.Opcode == hlo.OpDivide, 2
				p.dequant = []*hlo.Instruction{path[1].in, s, s.Operand(1 - path[k].from)}
				moved := make([]step, 0, len(path))
				moved = append(append(append(moved, path[:2]...), path[k]), path[2:k]...)
				for j := 3; j < len(moved); j++ {
					moved[j].from = 0
				}
				path = append(moved, path[k+1:]...)
			}
		}
	}
	if n == 0 && rel.bareConvert && convert(path[1].in) {
		n = 1
		p.dequant = []*hlo.Instruction{path[1].in}
	}
	if n == 0 {
		s := path[1].in
		what := fmt.Sprintf("the FP8 value %%%s (%s) is followed by %s %%%s", path[0].in.Name, path[0].in.Shape.Elem, s.Opcode, s.Name)
		short = "no scale right after the convert"
		switch {
		case !convert(s):
			what += ", and XLA's matcher wants a convert right after the FP8 value"
			short = "no convert right after the FP8 value"
		case len(path) > 2:
			what += fmt.Sprintf(", then %s %%%s: the dequantize XLA's matcher takes is the convert, then a multiply or divide of it by a "+
				"broadcast right after it", path[2].in.Opcode, path[2].in.Name)
			if !rel.bareConvert {
				what += " (IsSupportedF8Pattern takes no convert without a scale)"
			}
		default:
			what += ", a convert with no scale after it, and IsSupportedF8Pattern wants a multiply or divide by a broadcast right after the convert"
		}
		return nil, what, short
	}
	for _, st := range path[1+n:] {
		in := st.in
		if !commutes(in, rel) {
			what := fmt.Sprintf("%s %%%s lies between the dequantize and the dot", in.Opcode, in.Name)
			short = fmt.Sprintf("a %s between the dequantize and the dot", in.Opcode)
			switch {
			case in.Opcode == hlo.OpConvert:
				what += ": a second convert; XLA's dequantize is one convert, then at most one scale, right after it"
				short = "a second convert"
			case (in.Opcode == hlo.OpMultiply || in.Opcode == hlo.OpDivide) && st.from >= 0 && in.Operand(st.from) == path[1].in:
				other := in.Operand(1 - st.from)
				what += fmt.Sprintf(": the scale XLA absorbs is a broadcast right beside the convert, and %%%s is a %s", other.Name, other.Opcode)
				short = "the scale is not a broadcast"
			case in.Opcode == hlo.OpMultiply || in.Opcode == hlo.OpDivide:
				what += ": the scale must come right after the convert, and only one"
				short = "the scale is not right after the convert"
			case in.Opcode == hlo.OpBitcast:
				what += ": the bitcast changes the element type"
			case collective(in) && rel.collectives:
				what += ": collectives commute with the dequantize only in an SPMD-partitioned module (num_partitions > 1)"
				short = "a collective outside SPMD"
			case collective(in):
				what += ": this XLA moves no collective (all-gather, all-to-all, collective-permute) before the FP8 GEMM; XLA of 2024 did, under SPMD"
				short = "a collective, which this XLA does not move"
			default:
				what += ": only bitcast, broadcast, copy, dynamic-slice, pad, reshape, select, slice and transpose"
				if rel.collectives {
					what += " (and, under SPMD, all-gather, all-to-all and collective-permute)"
				}
				what += " are moved before the FP8 GEMM"
			}
			return nil, what, short
		}
		if in.Opcode == hlo.OpSelect {
			other := 2
			if st.from == 2 {
				other = 1
			}
			if !broadcastZero(in.Operand(other)) {
				return nil, fmt.Sprintf("select %%%s: its other operand %%%s is not a broadcast constant 0, so it does not "+
					"commute with the dequantize", in.Name, in.Operand(other).Name), "a select against nonzero"
			}
		}
	}
	p.commuting = path[1+n:]
	return p, "", ""
}

// movedStep marks, in a path, a reshape or transpose ReshapeMover sinks below the scale.
const movedStep = -2

// moveRearranges is ReshapeMover (IsReshapeMoveCandidate, SinkRearrangeOperands) on the path from an FP8
// value: when reshapes or transposes of one user each lie between the convert and a multiply or divide
// (the converted value its dividend) by a broadcast of a scalar, which any reshape or transpose leaves a
// broadcast (CanTriviallyRearrange), the pass moves them below the multiply to a fixed point, and they
// reach the dot as ops that commute with the dequantize. It marks them (movedStep); the path is otherwise
// unchanged.
func moveRearranges(path []step) []step {
	if len(path) < 4 || path[1].in.Opcode != hlo.OpConvert {
		return path
	}
	k := 2
	for k < len(path) && (path[k].in.Opcode == hlo.OpTranspose || path[k].in.Opcode == hlo.OpReshape) && len(path[k].in.Users()) == 1 {
		k++
	}
	if k == 2 || k == len(path) {
		return path
	}
	s := path[k]
	if s.in.NumOperands() != 2 || s.from < 0 || s.from > 1 || !(s.in.Opcode == hlo.OpMultiply || s.in.Opcode == hlo.OpDivide && s.from == 0) {
		return path
	}
	if b := s.in.Operand(1 - s.from); b.Opcode != hlo.OpBroadcast || !b.Operand(0).Shape.IsScalar() {
		return path
	}
	out := append([]step{}, path...)
	for j := 2; j < k; j++ {
		out[j].from = movedStep
	}
	return out
}

// matchUpcast is the FP8 matcher on a dot operand x that OperandUpcaster converted to t: the matcher
// starts from that convert.
func matchUpcast(x *hlo.Instruction, t dtype.Type, rel *Release) (p *param, why, short string) {
	conv := fmt.Sprintf("OperandUpcaster's convert of %%%s to %s", x.Name, t)
	switch {
	case !match.FP8(x) && find(x, map[*hlo.Instruction]bool{}) == nil:
		return nil, fmt.Sprintf("%s reaches no FP8 value", conv), "no FP8 value"
	case !match.FP8(x):
		return nil, fmt.Sprintf("%s follows a %s value: a second convert; XLA's dequantize is one convert, then at most one scale, right after it",
			conv, x.Shape.Elem), "a second convert"
	case !rel.bareConvert:
		return nil, fmt.Sprintf("%s has no scale after it, and IsSupportedF8Pattern wants a multiply or divide by a broadcast right after the convert", conv),
			"no scale right after the convert"
	}
	return &param{fp8: x, upcast: t}, "", ""
}

// outside returns the first instruction of the dequantize and the ops after it that is not in within
// (the instructions of a GEMM fusion), or "" when they all are; upcastIn says whether OperandUpcaster's
// convert, which has no instruction here, is in the fusion.
func (p *param) outside(within map[*hlo.Instruction]bool, upcastIn bool) string {
	if p.upcast != dtype.Invalid && !upcastIn {
		return fmt.Sprintf("OperandUpcaster's convert of %%%s", p.fp8.Name)
	}
	for _, x := range p.dequant {
		if !within[x] {
			return fmt.Sprintf("%s %%%s", x.Opcode, x.Name)
		}
	}
	for _, st := range p.commuting {
		if !within[st.in] {
			return fmt.Sprintf("%s %%%s", st.in.Opcode, st.in.Name)
		}
	}
	return ""
}

func collective(in *hlo.Instruction) bool {
	return in.Opcode == hlo.OpAllGather || in.Opcode == hlo.OpAllToAll || in.Opcode == hlo.OpCollectivePermute
}

// commutes is the list of ops the matcher moves before the FP8 GEMM.
func commutes(in *hlo.Instruction, rel *Release) bool {
	switch in.Opcode {
	case hlo.OpBitcast:
		return in.Shape.Elem == in.Operand(0).Shape.Elem
	case hlo.OpBroadcast, hlo.OpCopy, hlo.OpDynamicSlice, hlo.OpPad, hlo.OpReshape, hlo.OpSelect, hlo.OpSlice,
		hlo.OpTranspose:
		return true
	case hlo.OpAllGather, hlo.OpAllToAll, hlo.OpCollectivePermute:
		return rel.collectives && spmd(in)
	}
	return false
}

// spmd reports whether the module of in is SPMD-partitioned as far as its text says: HloModuleConfig's
// use_spmd_partitioning is not printed, and num_partitions > 1 stands for it.
func spmd(in *hlo.Instruction) bool {
	if in.Parent == nil || in.Parent.Module == nil {
		return false
	}
	n, ok := in.Parent.Module.Attr("num_partitions").(hlo.Int)
	return ok && n > 1
}

func broadcastZero(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpBroadcast {
		return false
	}
	v, ok := match.ConstantValue(in.Operand(0))
	return ok && v == 0
}

// padBug reports a pad XLA moves before a scale when it pads with a value other than zero: the call
// then scales the padding too, which the original did not.
func (p *param) padBug() string {
	if p == nil || p.scale == nil {
		return ""
	}
	for _, st := range p.commuting {
		if st.in.Opcode != hlo.OpPad {
			continue
		}
		if v, ok := match.ConstantValue(st.in.Operand(1)); !ok || v != 0 {
			return fmt.Sprintf("the matcher moves pad %%%s before the scale %%%s, and it pads with %%%s, not zero: the call scales "+
				"the padding, which the original does not (CreateF8CustomCall's shift_ops replays the pad on the FP8 value)",
				st.in.Name, p.scale.Name, st.in.Operand(1).Name)
		}
	}
	return ""
}

// describe says what the matcher found on one side.
func (p *param) describe() string {
	s := fmt.Sprintf("%s %%%s", p.fp8.Shape.Elem, p.fp8.Name)
	switch {
	case p.upcast != dtype.Invalid:
		s += fmt.Sprintf(", converted to %s by OperandUpcaster", p.upcast)
	case p.scale != nil && p.divide:
		s += fmt.Sprintf(", converted and divided by %%%s", p.scale.Name)
	case p.scale != nil:
		s += fmt.Sprintf(", converted and multiplied by %%%s", p.scale.Name)
	}
	if len(p.moved) > 0 {
		var ms []string
		for _, m := range p.moved {
			ms = append(ms, fmt.Sprintf("%s %%%s", m.Opcode, m.Name))
		}
		s += " (ReshapeMover sinks " + strings.Join(ms, ", ") + " below the scale)"
	}
	if len(p.commuting) > 0 {
		var ops []string
		for _, st := range p.commuting {
			ops = append(ops, st.in.Opcode.String())
		}
		s += ", then " + strings.Join(ops, ", ")
	}
	return s
}

// Commutes reports whether rel's FP8 matcher moves in before the FP8 GEMM: one of the ops it looks
// through between a dequantize and the dot.
func Commutes(in *hlo.Instruction, rel *Release) bool { return commutes(in, rel) }
