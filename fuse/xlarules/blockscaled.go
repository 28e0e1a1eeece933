package xlarules

import (
	"fmt"
	"strings"

	"octet/blockscale"
	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// Block-scaled GEMMs: whether XLA makes (or made) a block-scaled kernel of a GEMM whose operands are
// scaled per block (MXFP8, NVFP4), and if not the first rule that fails. The rules are written from XLA's
// source:
//
//   - the custom call __op$block_scaled_dot (what jax.nn.scaled_matmul lowers to): BlockScalingRewriter
//     (xla/backends/gpu/transforms/block_scaling_rewriter.cc at 80c095fc: BuildBlockScaledDot,
//     GetCudnnMxType, IsSupportedByCudnn) makes it cuDNN's __cudnn$blockScaledDot, its scales padded to
//     128 x 4 and swizzled, when it has a cuDNN version that supports the call, which the NVPTX compiler
//     passes only on Blackwell (xla/service/gpu/nvptx_compiler.cc, OptimizeHloPostLayoutAssignment);
//     else it dequantizes each operand in the result type and runs a dot. On an H100 (sm_90), JAX 0.11.2
//     shows the second: a call of the dequantize and the dot, after the pass block-scaling-rewriter.
//   - the composite mx.block_scaled_dot, a dequantize and a dot (block_scaling_matcher.cc at e75a8519:
//     BlockScaledDequantizeOps::Match, BlockScaledDotOps::IsSupported; block_scaling_rewriter.cc at
//     34e57fdc: IsCudnnSupported, BlockScalingRewriter::Run): a cuDNN fusion when the pattern, the formats,
//     the block sizes and the scales' origin pass, on Blackwell. A dequantize and a dot written out
//     elsewhere is not looked at: it stays a dot.
//   - the scaled-dot instruction: the GEMM fusion wraps it in a Triton fusion (tt.dot_scaled) under
//     --xla_gpu_experimental_scaled_dot_with_triton (on by default in newer XLA) when Triton supports it
//     (xla/backends/gpu/transforms/triton_scaled_dot_support.cc at c21973ac, IsTritonSupportedScaledDot:
//     FP4 only on both sides and from Hopper, NVFP4 only on Blackwell with both operands packed along K);
//     on Blackwell the autotuner may pick cuDNN instead (CudnnScaledDotHelper::IsSupported). Otherwise
//     ScaledDotRewriter dequantizes it (in bf16 for narrow types) and a dot runs.
//   - hipBLASLt's __cublas$lt$matmul$mx (ROCm gfx950, block_scaling_rewriter.cc at 6346965:
//     IsSupportedByHipblaslt).
//
// A verdict is Seen when the module shows the outcome (a block-scaled call or fusion, or a dot on
// dequantized blocks after XLA's passes), inferred otherwise; Made is for a Blackwell GPU with cuDNN 9.7
// or newer, and Hopper says what an sm_90 GPU gets.

// CudnnBlockScaledDotTarget is the target of cuDNN's block-scaled GEMM call.
const CudnnBlockScaledDotTarget = "__cudnn$blockScaledDot"

// BlockVersion names the XLA code the block-scaled rules describe.
const BlockVersion = "XLA's block_scaling_rewriter.cc (80c095fc, 34e57fdc, 6346965), block_scaling_matcher.cc (e75a8519), " +
	"triton_scaled_dot_support.cc (c21973ac), nvptx_compiler.cc"

// The kinds of block-scaled rules, as BlockScaled.Rule names them.
const (
	RuleGeneration = "gpu generation"
	RuleFormat     = "format pair"
	RuleBlockSize  = "block size"
	RuleAlignment  = "shape alignment"
	RuleLayout     = "scale layout"
	RulePattern    = "pattern"
	RuleOperands   = "operands"
)

// BlockScaled is XLA's verdict on one block-scaled GEMM.
type BlockScaled struct {
	// Form is what the module holds: "scaled-dot", "__op$block_scaled_dot", "__cudnn$blockScaledDot",
	// "__cublas$lt$matmul$mx", "cuDNN fusion", "Triton fusion", "mx.block_scaled_dot composite",
	// "dequantize and dot".
	Form string `json:"form"`
	// Format names the operands' formats ("MXFP8 (f8e4m3fn x f8e4m3fn)", "NVFP4").
	Format string `json:"format"`
	// Seen says whether the module shows the outcome; otherwise it is inferred from XLA's rules.
	Seen bool `json:"seen"`
	// Made says whether the GEMM is (Seen) or becomes, on Blackwell, a block-scaled kernel; Call names it.
	Made bool   `json:"made"`
	Call string `json:"call,omitempty"`
	// Rule is the kind of the first rule that fails (RuleGeneration, ...); Why says it, or how it is made.
	Rule string `json:"rule,omitempty"`
	Why  string `json:"why"`
	// Hopper says what XLA does with it on an sm_90 GPU, where it is inferred.
	Hopper string `json:"hopper,omitempty"`
	// Source names the XLA file and function the deciding rule is from.
	Source string `json:"source"`
}

const (
	srcCustomCall = "block_scaling_rewriter.cc: BuildBlockScaledDot, GetCudnnMxType, IsSupportedByCudnn"
	srcGeneration = "nvptx_compiler.cc: BlockScalingRewriter is given a cuDNN version only on Blackwell"
	srcComposite  = "block_scaling_matcher.cc: BlockScaledDotOps::Match, IsSupported; block_scaling_rewriter.cc: IsCudnnSupported"
	srcRun        = "block_scaling_rewriter.cc: BlockScalingRewriter::Run"
	srcScaledDot  = "triton_scaled_dot_support.cc: IsTritonSupportedScaledDot; block_scaling_rewriter.cc: CudnnScaledDotHelper::IsSupported"
	srcHipblaslt  = "block_scaling_rewriter.cc (6346965): IsSupportedByHipblaslt"
)

// cudnnFormat classifies one operand as cuDNN's block-scaled GEMM takes it (GetCudnnMxType): MXFP8
// (f8e4m3fn or f8e5m2 with f8e8m0fnu scales per 32) or NVFP4 (f4e2m1fn with f8e4m3fn scales per 16), the
// contracting size a multiple of the block. It returns the format's name, or the kind of rule that fails
// and why.
func cudnnFormat(elem, scale dtype.Type, block, k int64) (name, rule, why string) {
	switch {
	case (elem == dtype.F8E4M3FN || elem == dtype.F8E5M2) && scale == dtype.F8E8M0FNU:
		name = "MXFP8"
		if block != 32 {
			return name, RuleBlockSize, fmt.Sprintf("MXFP8 takes blocks of 32, not %d", block)
		}
	case elem == dtype.F4E2M1FN && scale == dtype.F8E4M3FN:
		name = "NVFP4"
		if block != 16 {
			return name, RuleBlockSize, fmt.Sprintf("NVFP4 takes blocks of 16, not %d", block)
		}
	case elem == dtype.F4E2M1FN && scale == dtype.F8E8M0FNU:
		return "MXFP4", RuleFormat, "MXFP4 (f4e2m1fn with f8e8m0fnu scales) is not a format cuDNN's block-scaled GEMM takes (MXFP8 and NVFP4 only)"
	default:
		return "", RuleFormat, fmt.Sprintf("%s elements with %s scales are neither MXFP8 (f8e4m3fn or f8e5m2 with f8e8m0fnu) nor NVFP4 (f4e2m1fn with f8e4m3fn)", elem, scale)
	}
	if block > 0 && k%block != 0 {
		return name, RuleAlignment, fmt.Sprintf("the contracting size %d is not a multiple of the block size %d", k, block)
	}
	return name, "", ""
}

// cudnnPair checks the pair: cuDNN multiplies MXFP8 by MXFP8 (any mix of f8e4m3fn and f8e5m2 but
// f8e5m2 x f8e5m2) or NVFP4 by NVFP4 (IsSupportedByCudnn).
func cudnnPair(lhs, rhs string, le, re dtype.Type) (rule, why string) {
	if lhs != rhs {
		return RuleFormat, fmt.Sprintf("%s x %s: cuDNN multiplies MXFP8 by MXFP8 or NVFP4 by NVFP4", lhs, rhs)
	}
	if le == dtype.F8E5M2 && re == dtype.F8E5M2 {
		return RuleFormat, "f8e5m2 x f8e5m2 is the one MXFP8 pair cuDNN's block-scaled GEMM does not take"
	}
	return "", ""
}

// formatName describes a pair of operands for a reader.
func formatName(lhs, rhs string, le, re dtype.Type) string {
	if lhs == "" || rhs == "" || lhs != rhs {
		return fmt.Sprintf("%s x %s", le, re)
	}
	if lhs == "MXFP8" {
		return fmt.Sprintf("MXFP8 (%s x %s)", le, re)
	}
	return lhs
}

const hopperExpands = "dequantized in the result type and run as a dot: XLA has no block-scaled kernel for it before Blackwell"

func defaultLayout(s hlo.Shape) bool {
	if s.Layout == nil || len(s.Layout.MinorToMajor) == 0 {
		return true
	}
	r := s.Rank()
	for i, d := range s.Layout.MinorToMajor {
		if d != int64(r-1-i) {
			return false
		}
	}
	return true
}

// DecideBlockScaledCall gives XLA's verdict on a block-scaled custom call or a scaled-dot instruction
// outside any fusion.
func DecideBlockScaledCall(in *hlo.Instruction) BlockScaled {
	switch in.Opcode {
	case hlo.OpScaledDot:
		return decideScaledDot(in)
	case hlo.OpCustomCall:
	default:
		return BlockScaled{Form: in.Opcode.String(), Why: "not a block-scaled GEMM"}
	}
	target := in.CustomCallTarget()
	v := BlockScaled{Form: target, Source: srcCustomCall}
	if in.NumOperands() >= 4 {
		v.Format = describePair(in.Operand(0).Shape.Elem, in.Operand(2).Shape.Elem, in.Operand(1).Shape.Elem, in.Operand(3).Shape.Elem)
	}
	switch target {
	case "__cudnn$blockScaledDot":
		v.Seen, v.Made, v.Call = true, true, target
		v.Why = "the module holds cuDNN's block-scaled GEMM call (scales padded to 128 x 4 and swizzled for the tensor memory layout)"
		return v
	case "__cublas$lt$matmul$mx":
		v.Seen, v.Made, v.Call, v.Source = true, true, target, srcHipblaslt
		v.Why = "the module holds hipBLASLt's MX GEMM call (ROCm gfx950)"
		return v
	}
	// __op$block_scaled_dot, as BlockScalingRewriter expands it.
	n := in.NumOperands()
	switch {
	case n < 3 || n > 5:
		v.Rule, v.Why = RuleOperands, fmt.Sprintf("%s takes 3 to 5 operands, not %d: XLA's rewriter fails on it", target, n)
		return v
	case n == 3:
		v.Rule = RuleOperands
		v.Why = "the rhs is not block-scaled (3 operands): the rewriter dequantizes the lhs and runs a dot; cuDNN's call needs both operands scaled"
		v.Hopper = hopperExpands
		return v
	}
	v.Hopper = hopperExpands
	lhs, rhs, ls, rs := in.Operand(0), in.Operand(1), in.Operand(2), in.Operand(3)
	for _, x := range []*hlo.Instruction{lhs, rhs, ls, rs} {
		if !x.Shape.IsArray() || x.Shape.Rank() != lhs.Shape.Rank() || (x.Shape.Rank() != 2 && x.Shape.Rank() != 3) {
			v.Rule, v.Why = RuleOperands, fmt.Sprintf("the operands must be arrays of rank 2 or 3, all of one rank (%%%s is %s)", x.Name, x.Shape.String())
			return v
		}
		if !defaultLayout(x.Shape) {
			v.Rule, v.Why = RuleLayout, fmt.Sprintf("%%%s has the layout %s, not the default one GetCudnnMxType requires: the rewriter dequantizes and runs a dot",
				x.Name, x.Shape.String())
			return v
		}
	}
	var block int64
	if bc := in.BackendConfig(); bc != nil {
		block = blockscale.ConfigBlockSize(bc.Text)
	}
	k := lhs.Shape.Dims[lhs.Shape.Rank()-1]
	side := func(data, scale *hlo.Instruction) (string, string, string) {
		b := block
		if b == 0 {
			sk := scale.Shape.Dims[scale.Shape.Rank()-1]
			if sk == 0 || k%sk != 0 {
				return "", RuleBlockSize, fmt.Sprintf("%d scales per row do not divide the %d elements into blocks", sk, k)
			}
			b = k / sk
		}
		return cudnnFormat(data.Shape.Elem, scale.Shape.Elem, b, k)
	}
	lf, rule, why := side(lhs, ls)
	if rule == "" {
		var rf string
		rf, rule, why = side(rhs, rs)
		if rule == "" {
			rule, why = cudnnPair(lf, rf, lhs.Shape.Elem, rhs.Shape.Elem)
		}
	}
	if rule != "" {
		v.Rule, v.Why = rule, why+": the rewriter dequantizes both operands in the result type and runs a dot, on every GPU"
		v.Hopper = ""
		return v
	}
	v.Made, v.Call = true, "__cudnn$blockScaledDot"
	v.Why = "on Blackwell with cuDNN 9.7 or newer the rewriter makes it cuDNN's __cudnn$blockScaledDot, padding rows to multiples of 128 and " +
		"the scales' columns to multiples of 4 and swizzling the scales"
	return v
}

// describePair names the formats of two (element, scale) pairs.
func describePair(le, ls, re, rs dtype.Type) string {
	name := func(e, s dtype.Type) string {
		switch {
		case (e == dtype.F8E4M3FN || e == dtype.F8E5M2) && s == dtype.F8E8M0FNU:
			return "MXFP8"
		case e == dtype.F4E2M1FN && s == dtype.F8E8M0FNU:
			return "MXFP4"
		case (e == dtype.F6E2M3FN || e == dtype.F6E3M2FN) && s == dtype.F8E8M0FNU:
			return "MXFP6"
		case e == dtype.F4E2M1FN && s == dtype.F8E4M3FN:
			return "NVFP4"
		}
		return ""
	}
	return formatName(name(le, ls), name(re, rs), le, re)
}

// decideScaledDot gives the verdict on a scaled-dot outside any fusion (a module before XLA's GEMM
// fusion): inferred from the Triton and cuDNN support rules.
func decideScaledDot(in *hlo.Instruction) BlockScaled {
	v := BlockScaled{Form: "scaled-dot", Source: srcScaledDot}
	if in.NumOperands() != 4 {
		v.Rule, v.Why = RuleOperands, "scaled-dot takes lhs, rhs, lhs_scale and rhs_scale"
		return v
	}
	lhs, rhs, ls, rs := in.Operand(0), in.Operand(1), in.Operand(2), in.Operand(3)
	le, re := lhs.Shape.Elem, rhs.Shape.Elem
	v.Format = describePair(le, ls.Shape.Elem, re, rs.Shape.Elem)
	lc, rc := in.Ints("lhs_contracting_dims"), in.Ints("rhs_contracting_dims")
	if len(lc) != 1 || len(rc) != 1 {
		v.Rule, v.Why = RulePattern, "a block-scaled GEMM has one contracting dimension"
		return v
	}
	for _, x := range []*hlo.Instruction{lhs, rhs, ls, rs} {
		if !x.Shape.IsArray() || x.Shape.Rank() == 0 && (x == lhs || x == rhs) {
			v.Rule, v.Why = RuleOperands, fmt.Sprintf("%%%s (%s) is not an array a GEMM can take", x.Name, x.Shape.String())
			return v
		}
	}
	if lc[0] < 0 || int(lc[0]) >= lhs.Shape.Rank() || rc[0] < 0 || int(rc[0]) >= rhs.Shape.Rank() {
		v.Rule, v.Why = RuleOperands, "the contracting dimensions are out of range"
		return v
	}
	// Triton (IsTritonSupportedScaledDot).
	lfp4, rfp4 := le == dtype.F4E2M1FN, re == dtype.F4E2M1FN
	kPacked := func(x *hlo.Instruction, c int64) bool {
		if x.Shape.Layout == nil || len(x.Shape.Layout.MinorToMajor) == 0 {
			return c == int64(x.Shape.Rank()-1)
		}
		return x.Shape.Layout.MinorToMajor[0] == c
	}
	tritonBlackwell, tritonHopper := true, true
	var tritonWhy string
	if lfp4 || rfp4 {
		switch {
		case !lfp4 || !rfp4:
			tritonBlackwell, tritonHopper = false, false
			tritonWhy = "Triton's scaled dot takes FP4 on both sides or on neither"
		case ls.Shape.Elem != rs.Shape.Elem:
			tritonBlackwell, tritonHopper = false, false
			tritonWhy = "Triton's FP4 scaled dot needs both scales of one type"
		case ls.Shape.Elem == dtype.F8E4M3FN:
			tritonHopper = false
			tritonWhy = "NVFP4 needs Blackwell in Triton"
			if !kPacked(lhs, lc[0]) || !kPacked(rhs, rc[0]) {
				tritonBlackwell = false
				tritonWhy = "Triton's NVFP4 MMA needs both operands packed along the contracting dimension (minor-most)"
			}
		}
	}
	// cuDNN (CudnnScaledDotHelper::IsSupported), on Blackwell through the autotuner.
	rank := lhs.Shape.Rank()
	cudnn := lc[0] == int64(rank-1) && rc[0] == int64(rhs.Shape.Rank()-1) && (rank == 2 || rank == 3) &&
		defaultLayout(lhs.Shape) && defaultLayout(rhs.Shape) && defaultLayout(ls.Shape) && defaultLayout(rs.Shape)
	if cudnn && ls.Shape.Rank() == rank && rs.Shape.Rank() == rhs.Shape.Rank() && rank > 0 {
		k := lhs.Shape.Dims[rank-1]
		blk := func(s *hlo.Instruction) int64 {
			if sk := s.Shape.Dims[s.Shape.Rank()-1]; sk > 0 && k%sk == 0 {
				return k / sk
			}
			return 0
		}
		lf, r1, _ := cudnnFormat(le, ls.Shape.Elem, blk(ls), k)
		rf, r2, _ := cudnnFormat(re, rs.Shape.Elem, blk(rs), k)
		r3, _ := cudnnPair(lf, rf, le, re)
		cudnn = r1 == "" && r2 == "" && r3 == ""
	} else {
		cudnn = false
	}
	switch {
	case tritonBlackwell && cudnn:
		v.Made, v.Call = true, "a Triton fusion (tt.dot_scaled) or cuDNN's, as the autotuner picks"
		v.Why = "the GEMM fusion wraps it in a Triton fusion; on Blackwell the autotuner may pick cuDNN's block-scaled GEMM"
	case tritonBlackwell:
		v.Made, v.Call = true, "a Triton fusion (tt.dot_scaled)"
		v.Why = "the GEMM fusion wraps it in a Triton fusion (block-scaled MMA on Blackwell)"
	case cudnn:
		v.Made, v.Call = true, "cuDNN's block-scaled GEMM"
		v.Why = tritonWhy + "; on Blackwell the autotuner can still pick cuDNN's block-scaled GEMM"
	default:
		v.Rule = RuleFormat
		v.Why = tritonWhy + ", and cuDNN does not take it: ScaledDotRewriter dequantizes the operands (in bf16 for narrow types) and a dot runs"
	}
	if tritonHopper {
		v.Hopper = "a Triton fusion (tt.dot_scaled): Hopper has no block-scaled MMA, so Triton decodes the blocks in the kernel and multiplies in bf16"
	} else {
		v.Hopper = "ScaledDotRewriter dequantizes the operands (in bf16 for narrow types) and a dot runs: " + tritonWhy
	}
	return v
}

// DecideBlockDequantizedDot gives XLA's verdict on a dot whose operands are block dequantizes (either may
// be nil: not a block dequantize). where says how the module holds it: "cudnn-fusion" (a cuDNN fusion:
// made), "composite" (the body of an mx.block_scaled_dot composite call, before the block scaling
// rewriter), "expanded" (the body of the call the rewriter expands __op$block_scaled_dot into), "fusion"
// (inside another fusion: a Triton or loop fusion of a compiled module), or "" (a dot in a computation).
func DecideBlockDequantizedDot(dot *hlo.Instruction, lhs, rhs *match.BlockDequantize, where string) BlockScaled {
	v := BlockScaled{Form: "dequantize and dot", Source: srcComposite}
	elem := func(d *match.BlockDequantize, i int) dtype.Type {
		if d == nil {
			return dot.Operand(i).Shape.Elem
		}
		return d.Data.Shape.Elem
	}
	scaleType := func(d *match.BlockDequantize) dtype.Type {
		if d == nil {
			return dtype.Invalid
		}
		return d.Scale.Shape.Elem
	}
	v.Format = describePair(elem(lhs, 0), scaleType(lhs), elem(rhs, 1), scaleType(rhs))
	dq := dtype.Invalid
	for _, d := range []*match.BlockDequantize{lhs, rhs} {
		if d != nil {
			dq = d.Type
		}
	}
	// What XLA's matcher and cuDNN's rules say of the pattern: all of them for the composite's body; for
	// a dot after XLA's passes (whose shape a split-K rewrite may have changed), those of the formats.
	var rule, why string
	if where == "composite" || where == "" {
		rule, why = blockDotRules(dot, lhs, rhs)
	} else {
		rule, why = formatRules(lhs, rhs)
	}
	switch where {
	case "cudnn-fusion":
		v.Form, v.Seen, v.Made, v.Call = "cuDNN fusion", true, true, "cuDNN's block-scaled GEMM (a __cudnn$fusion of the dequantize and the dot)"
		v.Why = "the module holds the cuDNN fusion XLA's block scaling rewriter makes of an mx.block_scaled_dot composite"
		return v
	case "composite":
		v.Form = "mx.block_scaled_dot composite"
		v.Source = srcComposite + "; " + srcRun
		if rule != "" {
			v.Rule, v.Why = rule, why+": the rewriter leaves the composite a call of the dequantize and the dot"
			v.Hopper = "a call of the dequantize and the dot"
			return v
		}
		v.Made, v.Call = true, "cuDNN's block-scaled GEMM (a __cudnn$fusion)"
		v.Why = "on Blackwell the block scaling rewriter makes the composite a cuDNN fusion, its scales padded and swizzled"
		v.Hopper = "a call of the dequantize and the dot: the rewriter is allowed cuDNN only on Blackwell"
		return v
	}
	v.Seen = true
	dqText := "in " + dq.String()
	v.Why = fmt.Sprintf("XLA dequantized the blocks %s and ran a dot: no block-scaled kernel", dqText)
	if where == "" {
		v.Why = fmt.Sprintf("the module dequantizes the blocks %s and multiplies with a plain dot", dqText)
	}
	switch where {
	case "expanded":
		v.Why += " (the call XLA's block scaling rewriter expands __op$block_scaled_dot into)"
		v.Source = srcCustomCall + "; " + srcGeneration
	case "fusion":
		v.Why += " (inside a fusion of the compiled module)"
		v.Source = srcRun
	default:
		v.Source = srcRun
	}
	if rule != "" {
		v.Rule, v.Why = rule, v.Why+"; and on any GPU: "+why
		return v
	}
	switch where {
	case "":
		v.Rule = RulePattern
		v.Why += ", which XLA compiles as it is: its block scaling rewriter only makes block-scaled calls of __op$block_scaled_dot " +
			"and mx.block_scaled_dot composites, not of a dequantize and a dot written out (octet fuse can make it a scaled-dot)"
	case "expanded":
		v.Rule = RuleGeneration
		v.Why += "; the formats, block sizes and pattern pass cuDNN's rules, so the GPU was likely not a Blackwell (inferred: " +
			"XLA gives its block scaling rewriter cuDNN only on Blackwell with cuDNN 9.7 or newer)"
	default:
		v.Rule = RulePattern
		v.Why += "; the formats and block sizes pass cuDNN's rules, so likely (inferred) the dequantize was written out, which XLA's " +
			"block scaling rewriter does not look at (it takes __op$block_scaled_dot and mx.block_scaled_dot composites only; " +
			"octet fuse can make the dot a scaled-dot), or it came from __op$block_scaled_dot compiled for a GPU before Blackwell"
		v.Source += "; " + srcGeneration
	}
	return v
}

// blockDotRules applies XLA's matcher and cuDNN's rules to a dot of block dequantizes (the composite's
// body): the dot's shape, both dequantizes in XLA's form, equal block sizes along the contracting
// dimension, the formats and their pair, the scales straight from parameters.
func blockDotRules(dot *hlo.Instruction, lhs, rhs *match.BlockDequantize) (rule, why string) {
	lb, lc := dot.Ints("lhs_batch_dims"), dot.Ints("lhs_contracting_dims")
	rc := dot.Ints("rhs_contracting_dims")
	if len(lb) > 1 || len(lc) != 1 || len(rc) != 1 || dot.Operand(0).Shape.Rank()-len(lb)-1 != 1 || dot.Operand(1).Shape.Rank()-len(lb)-1 != 1 {
		return RulePattern, "the dot must have one contracting dimension, one non-contracting dimension per operand and at most one batch dimension (IsCompatibleDot)"
	}
	for i, d := range []*match.BlockDequantize{lhs, rhs} {
		name := []string{"lhs", "rhs"}[i]
		if d == nil {
			return RulePattern, fmt.Sprintf("the %s is not a block dequantize, multiply(convert(x), reshape(broadcast(convert(scale)))) (BlockScaledDequantizeOps::Match)", name)
		}
		if !d.XLAForm() {
			return RulePattern, fmt.Sprintf("the %s's dequantize %%%s lacks a convert or the reshape XLA's matcher requires", name, d.Multiply.Name)
		}
	}
	for i, d := range []*match.BlockDequantize{lhs, rhs} {
		c := []int64{lc[0], rc[0]}[i]
		for _, dim := range d.BlockedDims() {
			if int64(dim) != c {
				return RuleBlockSize, fmt.Sprintf("the %s is blocked along dimension %d, not only along its contracting dimension %d",
					[]string{"lhs", "rhs"}[i], dim, c)
			}
		}
	}
	if r, w := formatRules(lhs, rhs); r != "" {
		return r, w
	}
	for i, d := range []*match.BlockDequantize{lhs, rhs} {
		// The operand of the scale's convert as written (not stepped over copies): IsCudnnSupported reads it so.
		s := d.Scale
		if d.ScaleConvert != nil {
			s = d.ScaleConvert.Operand(0)
		}
		if s.Opcode == hlo.OpSlice {
			s = s.Operand(0)
		}
		if s.Opcode != hlo.OpParameter {
			return RuleLayout, fmt.Sprintf("the %s's scales %%%s are computed (%s), not a parameter or a slice of one: cuDNN reads them from memory in its own layout",
				[]string{"lhs", "rhs"}[i], s.Name, s.Opcode)
		}
	}
	return "", ""
}

// formatRules checks the formats of two block dequantizes as cuDNN's block-scaled GEMM takes them: each
// blocked along one dimension, MXFP8 or NVFP4 with its block size, the same block size on both sides, a
// pair cuDNN multiplies.
func formatRules(lhs, rhs *match.BlockDequantize) (rule, why string) {
	var names [2]string
	var blocks [2]int64
	for i, d := range []*match.BlockDequantize{lhs, rhs} {
		side := []string{"lhs", "rhs"}[i]
		if d == nil {
			return RulePattern, fmt.Sprintf("the %s is not block-scaled: cuDNN's block-scaled GEMM needs both operands scaled", side)
		}
		dims := d.BlockedDims()
		if len(dims) != 1 {
			return RuleBlockSize, fmt.Sprintf("the %s's scales are blocked along %d dimensions (blocks of %s): MX and NVFP4 blocks run along one",
				side, len(dims), d.BlockText())
		}
		blocks[i] = d.Block[dims[0]]
		n, r, w := cudnnFormat(d.Data.Shape.Elem, d.Scale.Shape.Elem, blocks[i], d.Data.Shape.Dims[dims[0]])
		if r != "" {
			return r, side + ": " + w
		}
		names[i] = n
	}
	if blocks[0] != blocks[1] {
		return RuleBlockSize, fmt.Sprintf("the lhs has blocks of %d, the rhs of %d: they must be equal", blocks[0], blocks[1])
	}
	return cudnnPair(names[0], names[1], lhs.Data.Shape.Elem, rhs.Data.Shape.Elem)
}

// BlockScaledCallTarget reports whether a custom-call target is a block-scaled GEMM: XLA's
// __op$block_scaled_dot, cuDNN's __cudnn$blockScaledDot, hipBLASLt's __cublas$lt$matmul$mx.
func BlockScaledCallTarget(target string) bool {
	l := strings.ToLower(target)
	return strings.Contains(l, "block_scaled") || strings.Contains(l, "blockscaled") || target == "__cublas$lt$matmul$mx"
}
