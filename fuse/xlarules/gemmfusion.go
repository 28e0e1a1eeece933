package xlarules

import (
	"fmt"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// The GEMM fusion into Triton (GemmFusion, the pass named triton-gemm-rewriter), as gemm_fusion.cc,
// triton_tiling_propagation.cc and the legacy Triton support checks (support_legacy.cc) decide it.

// tritonType is legacy_triton::IsTritonSupportedDataType: f16, f32 and bf16, f8e5m2 on CUDA Ampere and
// later, f8e4m3fn on CUDA Hopper and later (no FP8 on ROCm), and pred and the signed integers.
func tritonType(t dtype.Type, g *GPU) bool {
	switch t {
	case dtype.F16, dtype.F32, dtype.BF16, dtype.PRED, dtype.S8, dtype.S16, dtype.S32:
		return true
	case e5m2:
		return g.AtLeast(8, 0)
	case e4m3:
		return g.AtLeast(9, 0)
	}
	return false
}

// tritonDotOutput is IsTritonSupportedDotOutputType.
func tritonDotOutput(t dtype.Type, g *GPU) bool {
	switch t {
	case dtype.F16, dtype.F32, dtype.BF16:
		return true
	case e5m2:
		return g.AtLeast(8, 0)
	case e4m3:
		return g.AtLeast(9, 0)
	}
	return false
}

// tritonElementwise is CanTritonHandleElementwise: supported types, and an op of the legacy emitters'
// lists for the operand's type.
func tritonElementwise(in *hlo.Instruction, g *GPU) bool {
	if !tritonType(in.Shape.Elem, g) {
		return false
	}
	for _, o := range in.Operands() {
		if !tritonType(o.Shape.Elem, g) {
			return false
		}
	}
	t := in.Operand(0).Shape.Elem
	switch in.Opcode {
	case hlo.OpConvert, hlo.OpAbs, hlo.OpNegate, hlo.OpAdd, hlo.OpCompare, hlo.OpMaximum, hlo.OpMinimum, hlo.OpMultiply,
		hlo.OpSubtract, hlo.OpSelect, hlo.OpClamp:
		return true
	case hlo.OpCos, hlo.OpExp, hlo.OpExpm1, hlo.OpFloor, hlo.OpCeil, hlo.OpLog, hlo.OpLog1p, hlo.OpRsqrt, hlo.OpSin,
		hlo.OpSqrt, hlo.OpCbrt, hlo.OpTan, hlo.OpTanh, hlo.OpErf, hlo.OpAtan2, hlo.OpDivide, hlo.OpPower:
		return t == dtype.F32 || t == dtype.BF16 || t == dtype.F64
	}
	return false
}

// tritonInstruction is legacy_triton::IsTritonSupportedInstruction for the ops around a dot.
func tritonInstruction(in *hlo.Instruction, g *GPU) bool {
	if in.Opcode.IsElementwise() {
		return tritonElementwise(in, g)
	}
	switch in.Opcode {
	case hlo.OpBitcast, hlo.OpTranspose, hlo.OpSlice, hlo.OpReshape, hlo.OpConcatenate, hlo.OpParameter, hlo.OpBroadcast,
		hlo.OpDynamicSlice:
		return true
	}
	return false
}

// tritonGEMM is CanTritonHandleGEMM: default operand precisions (TensorFloat-32 assumed enabled, as by
// default) or a supported algorithm, supported types, at most one batch dimension. operands are the dot's
// operand types as the passes leave them.
func tritonGEMM(dot *hlo.Instruction, v *operandView, g *GPU) string {
	if x := nonDefaultPrecision(dot); x != "" {
		return fmt.Sprintf("operand precision %s (Triton takes DEFAULT precisions with the algorithm unset)", x)
	}
	if a := dot.Attr("algorithm"); a != nil {
		if s := strings.ToLower(fmt.Sprint(a)); s != "" && s != "alg_unset" && !strings.Contains(s, "bf16_bf16_f32") && !strings.Contains(s, "tf32") {
			return fmt.Sprintf("algorithm %s is not one Triton runs", s)
		}
	}
	if !tritonDotOutput(dot.Shape.Elem, g) {
		return fmt.Sprintf("Triton takes no %s dot result on %s", dot.Shape.Elem, g.Name)
	}
	for i := range 2 {
		if !tritonType(v.shapes[i].Elem, g) {
			return fmt.Sprintf("Triton takes no %s dot operand on %s", v.shapes[i].Elem, g.Name)
		}
	}
	if len(v.dims.lhsBatch) > 1 {
		return "the dot has more than one batch dimension"
	}
	return ""
}

// nonDefaultPrecision returns the first of the dot's operand precisions that is not DEFAULT, or "".
func nonDefaultPrecision(dot *hlo.Instruction) string {
	p, _ := dot.Attr("operand_precision").(hlo.Enums)
	for _, x := range p {
		if !strings.EqualFold(x, "default") {
			return x
		}
	}
	return ""
}

// noFreeDimension is why GemmFusion leaves a dot with a vector operand.
const noFreeDimension = "the dot has no non-contracting dimension on one side (IsTritonSupportedInstruction)"

func byteSize(s hlo.Shape) int64 {
	if !s.IsArray() {
		return 0
	}
	return s.NumElements() * int64(s.Elem.ByteSize())
}

// inputMinusOutputBytes is InputMinusOutputBytes: how many more bytes an op reads than it writes.
func inputMinusOutputBytes(in *hlo.Instruction) int64 {
	var n int64
	for _, o := range in.Operands() {
		n += byteSize(o.Shape)
	}
	return n - byteSize(in.Shape)
}

const ioToleranceBytes = 1024

func paramOrConstant(in *hlo.Instruction) bool {
	return in.Opcode == hlo.OpParameter || in.Opcode == hlo.OpConstant
}

// inputWorthFusing is IsInputWorthFusing.
func inputWorthFusing(in *hlo.Instruction) bool {
	if inputMinusOutputBytes(in) <= ioToleranceBytes {
		return true
	}
	if len(in.Users()) > 1 {
		return false
	}
	all, single := true, true
	for _, o := range in.Operands() {
		if !paramOrConstant(o) {
			all = false
		}
		if len(o.Users()) != 1 {
			single = false
		}
	}
	if in.Opcode == hlo.OpSlice && all {
		return true
	}
	return all && single
}

// outputWorthFusing is IsOutputWorthFusing.
func outputWorthFusing(in *hlo.Instruction) bool {
	root := in.IsRoot() || len(in.Users()) == 1 && in.Users()[0].IsRoot() && in.Users()[0].Opcode == hlo.OpTuple
	return root || inputMinusOutputBytes(in) >= -ioToleranceBytes
}

// distributiveOverAddition is legacy_triton::IsDistributiveOverAddition: the ops GemmFusion fuses after
// the dot (divide is not among them).
func distributiveOverAddition(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpMultiply, hlo.OpNegate, hlo.OpBitcast, hlo.OpReshape, hlo.OpCopy, hlo.OpTranspose, hlo.OpConvert, hlo.OpBroadcast,
		hlo.OpSlice:
		return true
	}
	return false
}

// fusibleInput is GetPropagatedDimOrdersAndRequirementsIfProfitablyFusible toward the operands at
// xla_gpu_triton_fusion_level 2 (the default on Ampere and later): a supported op, and a binary
// elementwise op with a broadcast of a parameter or constant as an operand, or an op worth fusing as
// an input. The dimension-order propagation is assumed to succeed.
func fusibleInput(in *hlo.Instruction, g *GPU) bool {
	switch in.Opcode {
	case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpReduce, hlo.OpPad, hlo.OpParameter:
		return false
	}
	if !tritonInstruction(in, g) {
		return false
	}
	if in.Opcode.IsElementwise() && in.NumOperands() == 2 {
		for _, o := range in.Operands() {
			if o.Opcode == hlo.OpBroadcast && paramOrConstant(o.Operand(0)) {
				return true
			}
		}
	}
	return inputWorthFusing(in)
}

// fusibleOutput is the same toward the users: the one user of the dot (or of what was fused after it),
// distributive over addition, its other operands broadcasts of a scalar (in 2024 of a scalar constant) or
// parameters, and worth fusing as an output. In the newest release (outputElementwise) any elementwise
// user Triton supports is taken, its other operands broadcasts, parameters or constants: the GEMM
// fusions jaxlib 0.11.2 built hold a clamp and convert to FP8, an add of a bias, a maximum and a divide
// after the dot.
func fusibleOutput(u, from *hlo.Instruction, rel *Release, g *GPU) bool {
	if !(distributiveOverAddition(u) || rel.outputElementwise && u.Opcode.IsElementwise()) || !tritonInstruction(u, g) {
		return false
	}
	for _, o := range u.Operands() {
		if o == from {
			continue
		}
		if rel.outputElementwise && (o.Opcode == hlo.OpBroadcast || paramOrConstant(o)) {
			continue
		}
		scalar := o.Opcode == hlo.OpBroadcast && o.Operand(0).Shape.IsScalar()
		if !rel.outputAnyScalar {
			scalar = scalar && o.Operand(0).Opcode == hlo.OpConstant
		}
		if !scalar && o.Opcode != hlo.OpParameter {
			return false
		}
	}
	return outputWorthFusing(u)
}

// gemmFusion is what GemmFusion does with the dot: whether it claims it (a Triton GEMM fusion), with the
// ops it fuses, or why it leaves it.
type gemmFusion struct {
	claims bool
	fused  []*hlo.Instruction
	// upcast: the fusion takes OperandUpcaster's convert of operand i.
	upcast [2]bool
	why    string
}

// gemmAnyWhy says why the GEMM fusion takes a dot with nothing to fuse.
func gemmAnyWhy(t Target) string {
	if t.Flags.TritonGemmAny == nil {
		return "xla_gpu_triton_gemm_any (true by default in this release) lets it take any dot Triton supports, a lone dot too"
	}
	return "xla_gpu_triton_gemm_any is set"
}

// runGemmFusion is GemmFusionVisitor::HandleDot and CreateDotFusion: the size threshold, the dot
// supported by Triton, the ops fused toward the operands and the users, and the pure-matmul rule (a
// fusion of nothing but the dot, bitcasts and reshapes is left to cuBLAS unless cuBLAS needs padding or
// xla_gpu_triton_gemm_any is true, as it is by default in the newest release).
func runGemmFusion(dot *hlo.Instruction, v *operandView, t Target) gemmFusion {
	g, rel := t.GPU, t.Release
	if tiny, size := tooSmall(v.dims, v.shapes, t.Flags.GemmRewriteSizeThreshold); tiny && classicalEmitters(dot.Shape.Elem) {
		return gemmFusion{why: fmt.Sprintf("(m+n)*k = %d is below the size threshold", size)}
	}
	if l, r := v.vectors(); l || r {
		return gemmFusion{why: noFreeDimension}
	}
	if why := tritonGEMM(dot, v, g); why != "" {
		return gemmFusion{why: why + " (CanTritonHandleGEMM)"}
	}
	// The walk toward the operands takes what GemmFusion would (BuildFusionPlanTowardOperands), nearest
	// first, but at most maxFusionWalk instructions: a dot on a long chain of fusible ops (a residual
	// stream of many layers, each layer's dot on it) would otherwise walk the whole chain for every dot,
	// in time quadratic in the module. What is decided here needs only the nearest: whether anything
	// but a bitcast or reshape is fused, and whether the dequantize next to the dot is in the fusion.
	var fused []*hlo.Instruction
	seen := map[*hlo.Instruction]bool{}
	truncated := false
	// walk takes both operands' sides at once, nearest first, so that neither side's dequantize is left
	// out for the other side's chain.
	walk := func(queue []*hlo.Instruction) {
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			if seen[x] || !fusibleInput(x, g) {
				continue
			}
			if len(fused) == maxFusionWalk {
				truncated = true
				return
			}
			seen[x] = true
			fused = append(fused, x)
			queue = append(queue, x.Operands()...)
		}
	}
	var upcast [2]bool
	var names []string
	var roots []*hlo.Instruction
	for i := range 2 {
		if v.upcast[i] && tritonType(v.ops[i].Shape.Elem, g) {
			// OperandUpcaster's convert widens the operand: worth fusing as an input, where Triton reads
			// the type it converts from.
			upcast[i] = true
			names = append(names, fmt.Sprintf("convert (OperandUpcaster's) of %%%s", v.ops[i].Name))
			roots = append(roots, v.ops[i])
		} else if !v.upcast[i] {
			roots = append(roots, v.ops[i])
		}
	}
	walk(roots)
	for x := dot; len(x.Users()) == 1 && !v.reshaped; {
		u := x.Users()[0]
		if !fusibleOutput(u, x, rel, g) {
			break
		}
		fused = append(fused, u)
		x = u
	}
	pure := !upcast[0] && !upcast[1]
	for _, in := range fused {
		if in.Opcode != hlo.OpBitcast && in.Opcode != hlo.OpReshape {
			pure = false
		}
	}
	for i, in := range fused {
		if len(names) == maxFusionNames {
			more := fmt.Sprintf("and %d more", len(fused)-i)
			if truncated {
				more = fmt.Sprintf("and more than %d more", len(fused)-i)
			}
			names = append(names, more)
			break
		}
		names = append(names, fmt.Sprintf("%s %%%s", in.Opcode, in.Name))
	}
	switch {
	case !pure:
		return gemmFusion{claims: true, fused: fused, upcast: upcast, why: "it fuses " + join(names)}
	case t.GemmAny():
		return gemmFusion{claims: true, fused: fused, upcast: upcast, why: gemmAnyWhy(t)}
	case cublasNeedsPadding(v, g):
		return gemmFusion{claims: true, fused: fused, upcast: upcast, why: "cuBLAS would need the operands padded (CublasRequiresPadding)"}
	}
	return gemmFusion{why: "nothing but the dot would be in the fusion (CreateDotFusion: \"Pure Matmul\", left to cuBLAS)"}
}

// maxFusionWalk is the most instructions runGemmFusion takes toward the dot's operands; maxFusionNames
// the most it names in words.
const (
	maxFusionWalk  = 64
	maxFusionNames = 16
)

// f16DotClaimed is GemmFusion on the dot HandleDot's TurnF8DotIntoF16Dot leaves when the FP8 rewrite
// fails: an f16 dot on converts of the FP8 operands, which it takes with the converts where Triton reads
// both FP8 types on the GPU.
func f16DotClaimed(dot *hlo.Instruction, v *operandView, t Target) gemmFusion {
	g := t.GPU
	for i := range 2 {
		if !tritonType(v.shapes[i].Elem, g) && !t.GemmAny() {
			return gemmFusion{why: fmt.Sprintf("Triton reads no %s on %s, so nothing but the f16 dot would be in the fusion", v.shapes[i].Elem, g.Name)}
		}
		if v.vector(i) {
			return gemmFusion{why: noFreeDimension}
		}
	}
	if x := nonDefaultPrecision(dot); x != "" {
		return gemmFusion{why: fmt.Sprintf("operand precision %s (CanTritonHandleGEMM)", x)}
	}
	if len(v.dims.lhsBatch) > 1 {
		return gemmFusion{why: "the dot has more than one batch dimension (CanTritonHandleGEMM)"}
	}
	if !tritonType(v.shapes[0].Elem, g) || !tritonType(v.shapes[1].Elem, g) {
		return gemmFusion{claims: true, why: gemmAnyWhy(t) + " (the f16 dot alone: Triton reads no FP8 of these types on " + g.Name + ")"}
	}
	return gemmFusion{claims: true, why: "it fuses the converts from FP8 that TurnF8DotIntoF16Dot put before the f16 dot"}
}

// cublasNeedsPadding is CublasRequiresPadding: an f16 (Volta and later) or bf16 (Ampere and later)
// operand whose two minor dimensions are not multiples of 8, or an s8 one not of 4.
func cublasNeedsPadding(v *operandView, g *GPU) bool {
	if g.Vendor != CUDA {
		return false
	}
	for _, s := range v.shapes {
		multiple := int64(0)
		switch {
		case s.Elem == dtype.F16 && g.AtLeast(7, 0), s.Elem == dtype.BF16 && g.AtLeast(8, 0):
			multiple = 8
		case s.Elem == dtype.S8 && g.AtLeast(7, 0):
			multiple = 4
		}
		if multiple == 0 || s.Rank() < 2 {
			continue
		}
		if s.Dims[s.Rank()-1]%multiple != 0 || s.Dims[s.Rank()-2]%multiple != 0 {
			return true
		}
	}
	return false
}
