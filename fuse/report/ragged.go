package report

import (
	"fmt"

	"octet/cublas"
	"octet/fuse"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// raggedDotRule is where XLA's FP8 GEMM rewrite decides which instructions it rewrites.
const raggedDotRule = "GemmRewriterVisitor::HandleDot, whose FP8 path (CreateF8CustomCall) takes a kDot, " +
	"in xla/service/gpu/transforms/gemm_rewriter.cc@2b5fc4eb11f46b3b70921583369311c00e294353"

// raggedDot reports a ragged-dot whose operands trace back to FP8 values (a mixture of experts' layer,
// jax.lax.ragged_dot) as one GEMM: all its groups are one grouped product. XLA's FP8 GEMM rewrite makes
// cuBLASLt FP8 calls of dot instructions only, so a ragged-dot never becomes one.
func (t *tracer) raggedDot(in *hlo.Instruction) *GEMM {
	if in.NumOperands() != 3 {
		return nil
	}
	a, b := t.trace(in.Operand(0)), t.trace(in.Operand(1))
	if a == nil && b == nil {
		return nil
	}
	f := t.unfused(in, in, "ragged-dot", a, b)
	groups := "its groups"
	if r, err := hlo.ReadRaggedDot(in); err == nil {
		groups = fmt.Sprintf("%d groups", r.Groups)
	}
	f.Reason = fmt.Sprintf("a ragged-dot (a grouped GEMM of %s, %s x %s -> %s): XLA's FP8 GEMM rewrite makes %s calls "+
		"of dot instructions only", groups, in.Operand(0).Shape.Elem, in.Operand(1).Shape.Elem, in.Shape.Elem, cublas.TargetF8)
	no := false
	f.Fusible = &no
	f.FuseNote = "octet fuse rewrites dots, not ragged-dots"
	f.Octet = fuse.Verdict{Why: f.FuseNote}
	f.XLA = xlarules.Verdict{Why: "XLA's FP8 GEMM rewrite does not take a ragged-dot", Rule: raggedDotRule,
		Assumes: t.target.Assumes(), Short: "no: a ragged-dot"}
	f.Explain = append(f.Explain, f.Reason)
	return f
}
