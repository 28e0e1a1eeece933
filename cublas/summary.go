package cublas

import (
	"slices"
	"strconv"

	"octet/hlo"
)

// Summary returns a one-line description of a cuBLAS GEMM custom call, or "" when in is not one:
//
//	cuBLASLt FP8 GEMM: D f8e5m2[128,128] = f8e4m3fn[128,128] × f8e5m2[128,128]ᵀ, a_scale=s b_scale=s, epilogue DEFAULT, alpha 1, beta 0, no amax
//
// A product reads Aᵀ or Bᵀ when the operand contracts a dimension other than the one a row-major
// product would. A call that does not decode is described with the reason.
func Summary(in *hlo.Instruction) string {
	if in == nil || in.Opcode != hlo.OpCustomCall || !IsTarget(in.CustomCallTarget()) {
		return ""
	}
	return string(appendSummary(nil, in))
}

// Annotate returns the comment lines that the readable printer puts under a cuBLAS GEMM custom call:
// its Summary. It returns nil for any other instruction. It has the type of printer.Config.Annotate.
func Annotate(in *hlo.Instruction) []string {
	if s := Summary(in); s != "" {
		return []string{s}
	}
	return nil
}

func appendSummary(b []byte, in *hlo.Instruction) []byte {
	switch in.CustomCallTarget() {
	case TargetF8:
		b = append(b, "cuBLASLt FP8 GEMM: "...)
	case TargetLt:
		b = append(b, "cuBLASLt GEMM: "...)
	default:
		b = append(b, "cuBLAS GEMM: "...)
	}
	call, err := Decode(in)
	if err != nil {
		b = append(b, "cannot decode: "...)
		return append(b, err.Error()...)
	}
	cfg := &call.Config
	b = append(b, "D "...)
	b = append(b, call.D.String()...)
	b = append(b, " = "...)
	b = append(b, call.A.Shape.String()...)
	if transposedLhs(call) {
		b = append(b, "ᵀ"...)
	}
	b = append(b, " × "...)
	b = append(b, call.B.Shape.String()...)
	if transposedRhs(call) {
		b = append(b, "ᵀ"...)
	}
	if call.C != nil {
		b = append(b, " + C"...)
	}
	b = append(b, ", "...)
	named := false
	operand := func(label string, x *hlo.Instruction) {
		if x == nil {
			return
		}
		if named {
			b = append(b, ' ')
		}
		named = true
		b = append(b, label...)
		b = append(b, '=')
		b = append(b, x.Name...)
	}
	operand("c", call.C)
	operand("a_scale", call.AScale)
	operand("b_scale", call.BScale)
	operand("c_scale", call.CScale)
	operand("d_scale", call.DScale)
	operand("bias", call.Bias)
	if named {
		b = append(b, ", "...)
	}
	b = append(b, "epilogue "...)
	b = append(b, cfg.Epilogue...)
	b = append(b, ", alpha "...)
	b = appendAlpha(b, cfg)
	b = append(b, ", beta "...)
	b = strconv.AppendFloat(b, cfg.Beta, 'g', -1, 64)
	if call.IsFP8() {
		if call.HasAmax {
			b = append(b, ", amax f32[]"...)
		} else {
			b = append(b, ", no amax"...)
		}
	}
	if call.HasAux {
		b = append(b, ", aux output"...)
	}
	if call.Legacy {
		b = append(b, " (six-scalar operand form)"...)
	}
	if call.Inferred {
		b = append(b, " [inferred: no backend_config]"...)
	}
	return b
}

func appendAlpha(b []byte, cfg *GemmConfig) []byte {
	b = strconv.AppendFloat(b, cfg.AlphaReal, 'g', -1, 64)
	if cfg.AlphaImag != 0 {
		if cfg.AlphaImag > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendFloat(b, cfg.AlphaImag, 'g', -1, 64)
		b = append(b, 'i')
	}
	return b
}

// transposedLhs reports whether A contracts a dimension other than its last non-batch one (so the
// product reads Aᵀ).
func transposedLhs(c *Call) bool {
	return len(c.Config.LhsContracting) == 1 && c.Config.LhsContracting[0] != lastFree(c.A.Shape.Rank(), c.Config.LhsBatch)
}

// transposedRhs reports whether B contracts a dimension other than its first non-batch one (so the
// product reads Bᵀ).
func transposedRhs(c *Call) bool {
	return len(c.Config.RhsContracting) == 1 && c.Config.RhsContracting[0] != firstFree(c.B.Shape.Rank(), c.Config.RhsBatch)
}

func lastFree(rank int, batch []int64) int64 {
	for d := int64(rank - 1); d >= 0; d-- {
		if !slices.Contains(batch, d) {
			return d
		}
	}
	return -1
}

func firstFree(rank int, batch []int64) int64 {
	for d := int64(0); d < int64(rank); d++ {
		if !slices.Contains(batch, d) {
			return d
		}
	}
	return -1
}
