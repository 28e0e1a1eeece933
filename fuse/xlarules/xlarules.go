// Package xlarules decides, for a dot of an HLO module, whether XLA's GPU GEMM rewriter would turn it into
// one cuBLASLt FP8 call (__cublas$lt$matmul$f8) on a CUDA Hopper target, as the module stands, and why
// not: the first of its rules that fails.
//
// The rules are written from XLA's source (Version names it): HandleDot's preconditions (a dot that is not
// of rank batch+2 is first canonicalized, as DotDecomposer does before the rewriter), MatchFp8Param
// and the walk of FindF8SubgraphRecursive on each operand, and the checks of CreateF8CustomCall (types,
// scalar scales, the result type, one contracting and one non-contracting dimension). They are XLA's
// rules, not octet fuse's: Octet accepts more (chained converts before the scale, data movement between
// the convert and the scale, a pad only of zero), and XLA accepts a few things Octet refuses (a pad with
// any value). XLA's output-side patterns (F8ConvertD) do not check cuBLASLt's FP8 type table; where they
// would make a call outside it, the Verdict says so in Bug.
//
// The verdict is for the GEMM rewriter on the module as given: in a full compile, passes that run before
// it (float normalization, SimplifyFPConversions, algebraic simplification, the Triton GEMM fusion) may
// have changed the pattern first.
//
// Block-scaled GEMMs (MX formats, NVFP4) have rules of their own, written from XLA's block scaling
// rewriter and matcher and its cuDNN and Triton support checks (blockscaled.go: DecideBlockScaledCall,
// DecideBlockDequantizedDot): whether XLA makes a block-scaled kernel of the GEMM, seen in the module or
// inferred for Blackwell, and the first rule that fails.
package xlarules

import (
	"fmt"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// Version names the XLA code the rules describe.
const Version = "XLA's gemm_rewriter.cc as of 2025 (xla/service/gpu/transforms; MatchFp8Param, " +
	"FindF8SubgraphRecursive, CreateF8CustomCall, F8ConvertD), CUDA Hopper target"

// Verdict is XLA's decision about one dot.
type Verdict struct {
	// Fusible says whether XLA's GEMM rewriter makes the dot one __cublas$lt$matmul$f8 call.
	Fusible bool `json:"fusible"`
	// Why says how (fusible) or names the first rule that fails, with the instruction it fails at.
	Why string `json:"why"`
	// Bug is set when what XLA would make is wrong: a call outside cuBLASLt's FP8 type table, which
	// cuBLASLt rejects at run time, or a pad of a nonzero value moved before the scale. It is a bug in XLA
	// to report.
	Bug string `json:"bug,omitempty"`
}

// param is what MatchFp8Param found for one operand.
type param struct {
	fp8, scale *hlo.Instruction
	divide     bool
	// commuting are the ops between the dequantize and the dot, FP8 side first.
	commuting []step
}

// step is one instruction of the walk and the operand index the walk came from.
type step struct {
	in   *hlo.Instruction
	from int
}

// Decide applies XLA's rules to dot.
func Decide(dot *hlo.Instruction) Verdict {
	if dot == nil || dot.Opcode != hlo.OpDot || dot.NumOperands() != 2 {
		return no("not a dot")
	}
	canonical := true
	if why := matrixMultiplication(dot); why != "" {
		if !decomposable(dot) {
			return no(why)
		}
		// DotDecomposer, which runs before the GEMM rewriter in every compile, makes such a dot one of
		// rank batch+2 with transposes and reshapes of its operands, ops MatchFp8Param looks through.
		canonical = false
	}
	for i := range 2 {
		if x := dot.Operand(i); rank2Transpose(x) {
			return no(fmt.Sprintf("operand %d is the rank-2 transpose %%%s: HandleDot leaves a dot whose operand is a "+
				"transpose alone (transpose folding runs first in a full compile)", i, x.Name))
		}
	}
	batch := dot.Ints("lhs_batch_dims")
	if n := batchCount(dot, batch); n > 65535 {
		return no(fmt.Sprintf("the dot has %d batches: GemmIsSupportedByCublasLt allows at most 65535", n))
	}
	var ps [2]*param
	for i := range 2 {
		p, why := matchParam(dot, i)
		if p == nil {
			return no(fmt.Sprintf("operand %d: %s (MatchFp8Param)", i, why))
		}
		ps[i] = p
	}
	if why := callChecks(dot, ps, len(batch), canonical); why != "" {
		return no(why + " (CreateF8CustomCall)")
	}
	v := Verdict{Fusible: true, Why: fmt.Sprintf("XLA's GEMM rewriter makes it one %s call: A %s, B %s",
		cublas.TargetF8, ps[0].describe(), ps[1].describe())}
	if !canonical {
		v.Why += " (after DotDecomposer makes the dot [batch..., m, k] x [batch..., k, n])"
	}
	v.Bug = outputBug(dot, ps[0].fp8.Shape.Elem, ps[1].fp8.Shape.Elem)
	for _, p := range ps {
		if bug := p.padBug(); bug != "" && v.Bug == "" {
			v.Bug = bug
		}
	}
	return v
}

func no(why string) Verdict { return Verdict{Why: why} }

// matrixMultiplication is IsMatrixMultiplication: the result type is one the rewriter takes, and the
// operands and result have rank batch+2 and some elements.
func matrixMultiplication(dot *hlo.Instruction) string {
	out := dot.Shape.Elem
	switch out {
	case dtype.F8E4M3FN, dtype.F8E5M2, dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.F16, dtype.BF16, dtype.F32,
		dtype.F64, dtype.C64, dtype.C128:
	default:
		return fmt.Sprintf("the dot gives %s, which the GEMM rewriter does not take (IsMatrixMultiplication)", out)
	}
	nb := len(dot.Ints("lhs_batch_dims"))
	for _, s := range []hlo.Shape{dot.Operand(0).Shape, dot.Operand(1).Shape, dot.Shape} {
		if s.Rank() != nb+2 || s.NumElements() == 0 {
			return fmt.Sprintf("the dot is not a matrix multiplication as the GEMM rewriter sees one: its operands and "+
				"result must have rank %d (batch dimensions + 2) and elements (IsMatrixMultiplication)", nb+2)
		}
	}
	return ""
}

// decomposable reports whether DotDecomposer canonicalizes the dot: it has contracting dimensions, its
// operands have elements and are not rank batch+2 already.
func decomposable(dot *hlo.Instruction) bool {
	for i := range 2 {
		if dot.Operand(i).Shape.NumElements() == 0 {
			return false
		}
	}
	return len(dot.Ints("lhs_contracting_dims")) > 0 && dot.Shape.Elem.IsFloat()
}

// rank2Transpose is HloInstruction::IsRank2Transpose.
func rank2Transpose(x *hlo.Instruction) bool {
	if x.Opcode != hlo.OpTranspose || x.Shape.Rank() != 2 {
		return false
	}
	d := x.Ints("dimensions")
	o := x.Operand(0).Shape.Dims
	return len(d) == 2 && d[0] == 1 && d[1] == 0 && len(o) == 2 && x.Shape.Dims[0] == o[1] && x.Shape.Dims[1] == o[0]
}

func batchCount(dot *hlo.Instruction, batch []int64) int64 {
	if len(batch) == 0 {
		return 0
	}
	n := int64(1)
	for _, b := range batch {
		if int(b) < dot.Operand(0).Shape.Rank() {
			n *= dot.Operand(0).Shape.Dims[b]
		}
	}
	return n
}

// find is FindF8SubgraphRecursive: from x up through single-operand ops, divide, dynamic-slice and pad
// (operand 0), multiply (operand 0, then 1) and select (operand 1, then 2) to an FP8 value. It returns the
// path, FP8 value first, or nil.
func find(x *hlo.Instruction, seen map[*hlo.Instruction]bool) []step {
	if seen[x] {
		return nil
	}
	seen[x] = true
	if match.FP8(x) {
		return []step{{x, -1}}
	}
	switch {
	case x.NumOperands() == 1 || x.Opcode == hlo.OpDivide || x.Opcode == hlo.OpDynamicSlice || x.Opcode == hlo.OpPad:
		if p := find(x.Operand(0), seen); p != nil {
			return append(p, step{x, 0})
		}
	case x.Opcode == hlo.OpMultiply || x.Opcode == hlo.OpSelect:
		first := 0
		if x.Opcode == hlo.OpSelect {
			first = 1
		}
		for i := first; i < first+2 && i < x.NumOperands(); i++ {
			if p := find(x.Operand(i), seen); p != nil {
				return append(p, step{x, i})
			}
		}
	}
	return nil
}

// matchParam is MatchFp8Param on operand i of dot: an FP8 value, then a convert, then optionally a
// multiply or divide of the convert by a broadcast, then only ops that commute with the dequantize.
func matchParam(dot *hlo.Instruction, i int) (*param, string) {
	x := dot.Operand(i)
	path := find(x, map[*hlo.Instruction]bool{})
	if path == nil {
		return nil, fmt.Sprintf("%%%s reaches no FP8 value through single-operand ops, divide, dynamic-slice, pad, "+
			"multiply and select", x.Name)
	}
	p := &param{fp8: path[0].in}
	if len(path) == 1 {
		return p, ""
	}
	n := 0
	convertOf := func(in *hlo.Instruction) bool {
		return in.Opcode == hlo.OpConvert && in == path[1].in
	}
	if len(path) > 2 {
		s := path[2].in
		switch s.Opcode {
		case hlo.OpMultiply:
			for j := range 2 {
				if convertOf(s.Operand(j)) && s.Operand(1-j).Opcode == hlo.OpBroadcast {
					p.scale, n = s.Operand(1-j).Operand(0), 2
				}
			}
		case hlo.OpDivide:
			if convertOf(s.Operand(0)) && s.Operand(1).Opcode == hlo.OpBroadcast {
				p.scale, p.divide, n = s.Operand(1).Operand(0), true, 2
			}
		}
	}
	if n == 0 && convertOf(path[1].in) {
		n = 1
	}
	if n == 0 {
		s := path[1].in
		return nil, fmt.Sprintf("the FP8 value %%%s (%s) is followed by %s %%%s, and XLA's matcher wants a convert "+
			"right after the FP8 value", p.fp8.Name, p.fp8.Shape.Elem, s.Opcode, s.Name)
	}
	for _, st := range path[1+n:] {
		in := st.in
		if !commutes(in) {
			what := fmt.Sprintf("%s %%%s lies between the dequantize and the dot", in.Opcode, in.Name)
			switch {
			case in.Opcode == hlo.OpConvert:
				what += ": a second convert; XLA's dequantize is one convert, then at most one scale, right after it"
			case (in.Opcode == hlo.OpMultiply || in.Opcode == hlo.OpDivide) && st.from >= 0 && in.Operand(st.from) == path[1].in:
				other := in.Operand(1 - st.from)
				what += fmt.Sprintf(": the scale XLA absorbs is a broadcast right beside the convert, and %%%s is a %s", other.Name, other.Opcode)
			case in.Opcode == hlo.OpMultiply || in.Opcode == hlo.OpDivide:
				what += ": the scale must come right after the convert, and only one"
			case in.Opcode == hlo.OpBitcast:
				what += ": the bitcast changes the element type"
			case in.Opcode == hlo.OpAllGather || in.Opcode == hlo.OpAllToAll || in.Opcode == hlo.OpCollectivePermute:
				what += ": collectives commute with the dequantize only in an SPMD-partitioned module"
			default:
				what += ": only bitcast, broadcast, copy, dynamic-slice, pad, reshape, select, slice and transpose " +
					"(and, under SPMD, all-gather, all-to-all and collective-permute) are moved before the FP8 GEMM"
			}
			return nil, what
		}
		if in.Opcode == hlo.OpSelect {
			other := 2
			if st.from == 2 {
				other = 1
			}
			if !broadcastZero(in.Operand(other)) {
				return nil, fmt.Sprintf("select %%%s: its other operand %%%s is not a broadcast constant 0, so it does not "+
					"commute with the dequantize", in.Name, in.Operand(other).Name)
			}
		}
	}
	p.commuting = path[1+n:]
	return p, ""
}

// commutes is the list of ops MatchFp8Param moves before the FP8 GEMM.
func commutes(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpBitcast:
		return in.Shape.Elem == in.Operand(0).Shape.Elem
	case hlo.OpBroadcast, hlo.OpCopy, hlo.OpDynamicSlice, hlo.OpPad, hlo.OpReshape, hlo.OpSelect, hlo.OpSlice,
		hlo.OpTranspose:
		return true
	case hlo.OpAllGather, hlo.OpAllToAll, hlo.OpCollectivePermute:
		return spmd(in)
	}
	return false
}

// spmd reports whether the module of in is SPMD-partitioned, as far as its text says (num_partitions > 1).
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

// callChecks are CreateF8CustomCall's checks, in its order.
func callChecks(dot *hlo.Instruction, ps [2]*param, nb int, canonical bool) string {
	at, bt := ps[0].fp8.Shape.Elem, ps[1].fp8.Shape.Elem
	if at == dtype.F8E5M2 && bt == dtype.F8E5M2 {
		return "operands are f8e5m2 x f8e5m2: one of them must be f8e4m3fn"
	}
	ok := func(t dtype.Type) bool { return t == dtype.F8E4M3FN || t == dtype.F8E5M2 }
	if !ok(at) || !ok(bt) {
		return fmt.Sprintf("operands are %s x %s: on CUDA the input types must be f8e5m2 or f8e4m3fn", at, bt)
	}
	for i, p := range ps {
		if p.scale != nil && !p.scale.Shape.IsScalar() {
			return fmt.Sprintf("operand %d: the scale %%%s is %s, and the scaling factors must be scalars", i, p.scale.Name,
				p.scale.Shape.String())
		}
	}
	switch d := dot.Shape.Elem; d {
	case dtype.BF16, dtype.F16, dtype.F32, dtype.F8E4M3FN, dtype.F8E5M2:
	default:
		return fmt.Sprintf("the dot gives %s: the output element type must be f8e4m3fn, f8e5m2, bf16, f16 or f32", d)
	}
	if !canonical {
		return ""
	}
	if len(dot.Ints("lhs_contracting_dims")) != 1 || len(dot.Ints("rhs_contracting_dims")) != 1 {
		return "A and B must have one contracting dimension each"
	}
	for i, p := range ps {
		input := p.fp8
		if len(p.commuting) > 0 {
			input = p.commuting[len(p.commuting)-1].in
		}
		if input.Shape.Rank() != nb+2 {
			return fmt.Sprintf("operand %d (%%%s) has rank %d: inputs must have exactly one contracting and one "+
				"non-contracting dimension besides the %d batch dimensions", i, input.Name, input.Shape.Rank(), nb)
		}
	}
	return ""
}

// padBug reports a pad XLA moves before a scale when it pads with a value other than zero: the call
// then scales the padding too, which the original did not.
func (p *param) padBug() string {
	if p.scale == nil {
		return ""
	}
	for _, st := range p.commuting {
		if st.in.Opcode != hlo.OpPad {
			continue
		}
		if v, ok := match.ConstantValue(st.in.Operand(1)); !ok || v != 0 {
			return fmt.Sprintf("XLA moves pad %%%s before the scale %%%s, and it pads with %%%s, not zero: the call scales "+
				"the padding, which the original does not", st.in.Name, p.scale.Name, st.in.Operand(1).Name)
		}
	}
	return ""
}

// describe says what XLA matched on one side.
func (p *param) describe() string {
	s := fmt.Sprintf("%s %%%s", p.fp8.Shape.Elem, p.fp8.Name)
	switch {
	case p.scale != nil && p.divide:
		s += fmt.Sprintf(", converted and divided by %%%s", p.scale.Name)
	case p.scale != nil:
		s += fmt.Sprintf(", converted and multiplied by %%%s", p.scale.Name)
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

// outputBug looks down the single-user chain after the dot for the FP8 output XLA's F8ConvertD absorbs,
// convert(clamp(...)), and reports when it would make a call outside cuBLASLt's type table: F8ConvertD
// checks the clamp's bounds but not the operand types.
func outputBug(dot *hlo.Instruction, a, b dtype.Type) string {
	v := dot
	for range 8 {
		if v.IsRoot() || len(v.Users()) == 0 {
			return ""
		}
		var next *hlo.Instruction
		for _, u := range v.Users() {
			switch u.Opcode {
			case hlo.OpAbs, hlo.OpReduce:
				continue
			}
			if next != nil {
				return ""
			}
			next = u
		}
		if next == nil {
			return ""
		}
		if next.Opcode == hlo.OpClamp {
			if len(next.Users()) != 1 {
				return ""
			}
			conv := next.Users()[0]
			if conv.Opcode != hlo.OpConvert || !match.FP8(conv) {
				return ""
			}
			if err := cublas.CheckFP8Types(a, b, dtype.Invalid, conv.Shape.Elem, dtype.Invalid); err != nil {
				return fmt.Sprintf("XLA's F8ConvertD would fuse convert %%%s into the call, and %v: cuBLASLt rejects that call", conv.Name, err)
			}
			return ""
		}
		switch next.Opcode {
		case hlo.OpMultiply, hlo.OpDivide, hlo.OpAdd, hlo.OpMaximum, hlo.OpBitcast, hlo.OpSlice:
		default:
			return ""
		}
		v = next
	}
	return ""
}
