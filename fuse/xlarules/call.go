package xlarules

import (
	"fmt"

	"octet/dtype"
	"octet/hlo"
)

const (
	e4m3   = dtype.F8E4M3FN
	e5m2   = dtype.F8E5M2
	e4fnuz = dtype.F8E4M3FNUZ
	e5fnuz = dtype.F8E5M2FNUZ
)

// ltRow is one (A, B, D) row of TypesAreSupportedByCublasLt's tables, compute type f32 and scale type
// float (what GetBlasComputationType gives every type below with the default algorithm).
type ltRow struct{ a, b, d dtype.Type }

func fp8Rows(x, y dtype.Type) []ltRow {
	// x is the e4m3 type of the family, y the e5m2 one: x*x gives bf16, x, f16 or f32; x*y and y*x
	// also give y.
	var rows []ltRow
	for _, d := range []dtype.Type{dtype.BF16, x, dtype.F16, dtype.F32} {
		rows = append(rows, ltRow{x, x, d})
	}
	for _, d := range []dtype.Type{dtype.BF16, x, y, dtype.F16, dtype.F32} {
		rows = append(rows, ltRow{x, y, d}, ltRow{y, x, d})
	}
	return rows
}

var (
	ltCUDARows  = fp8Rows(e4m3, e5m2)
	ltNANOORows = fp8Rows(e4fnuz, e5fnuz)
	ltOtherRows = []ltRow{
		{dtype.F16, dtype.F16, dtype.F16}, {dtype.F16, dtype.F16, dtype.F32},
		{dtype.BF16, dtype.BF16, dtype.BF16}, {dtype.BF16, dtype.BF16, dtype.F32},
		{dtype.F32, dtype.F32, dtype.F32}, {dtype.F64, dtype.F64, dtype.F64},
		{dtype.C64, dtype.C64, dtype.C64}, {dtype.C128, dtype.C128, dtype.C128},
		{dtype.S8, dtype.S8, dtype.S32}, {dtype.S8, dtype.S8, dtype.F32},
	}
)

func inRows(rows []ltRow, a, b, d dtype.Type) bool {
	for _, r := range rows {
		if r == (ltRow{a, b, d}) {
			return true
		}
	}
	return false
}

// typesSupported is TypesAreSupportedByCublasLt for the dot's own A, B and D types. The newest source
// looks up the FP8 rows of the platform (cuBLASLt's on CUDA, hipBLASLt's OCP and NANOO rows on ROCm);
// the 2024 source looks up cuBLASLt's and the NANOO rows on either.
func typesSupported(a, b, d dtype.Type, t Target) bool {
	if inRows(ltOtherRows, a, b, d) {
		return true
	}
	if !t.Release.rocmTypes {
		return inRows(ltCUDARows, a, b, d) || inRows(ltNANOORows, a, b, d)
	}
	if t.GPU.Vendor == CUDA {
		return inRows(ltCUDARows, a, b, d)
	}
	return inRows(ltCUDARows, a, b, d) || inRows(ltNANOORows, a, b, d)
}

// cublasLtSupports is GemmIsSupportedByCublasLt: the dot's own (A, B, D) types in the table, at most
// 65535 batches, and hipBLASLt on ROCm.
func cublasLtSupports(d dimensions, s [2]hlo.Shape, dot *hlo.Instruction, t Target) string {
	a, b, out := s[0].Elem, s[1].Elem, dot.Shape.Elem
	if !typesSupported(a, b, out, t) {
		why := fmt.Sprintf("the dot's own types %s are not in TypesAreSupportedByCublasLt's table", describeTypes(a, b, out))
		switch {
		case a != b && !a.IsFP8() && !b.IsFP8():
			why += ": A and B must have the same type"
		case a.IsFP8() && b.IsFP8() && a == e5m2 && b == e5m2:
			why += ": f8e5m2 x f8e5m2 has no row"
		case a.IsFP8() && b.IsFP8():
			why += fmt.Sprintf(": %s x %s gives no %s", a, b, out)
		case out.IsFP8():
			why += fmt.Sprintf(": no row gives %s from %s operands; the FP8 result must come from a clamp and a convert after the dot", out, a)
		default:
			why += fmt.Sprintf(": %s x %s gives no %s", a, b, out)
		}
		return why
	}
	if n := product(sizes(s[0], d.lhsBatch)); t.Release.batchLimit && len(d.lhsBatch) > 0 && n > 65535 {
		return fmt.Sprintf("the dot has %d batches, and cuBLASLt takes at most 65535", n)
	}
	return ""
}

// callChecks are CreateF8CustomCall's checks, in its order: the GPU and toolkit, the FP8 types, scalar
// scales, the result type, one contracting dimension each side and operands of rank batch+2. It returns
// the check that failed and why.
func callChecks(dot *hlo.Instruction, ps [2]*param, dd dimensions, t Target) (rule, why string) {
	g, rel := t.GPU, t.Release
	at, bt := ps[0].fp8.Shape.Elem, ps[1].fp8.Shape.Elem
	if g.Vendor == CUDA {
		if !g.AtLeast(8, 9) {
			return "compute capability", fmt.Sprintf("%s is compute capability %d.%d, and FP8 calls need Ada, Hopper or later (8.9+)", g.Name, g.Major, g.Minor)
		}
		if g.Toolkit < 12000 {
			return "CUDA version", fmt.Sprintf("FP8 calls need CUDA 12.0 or later, and %s is assumed", g.toolkitText())
		}
		if at == e5m2 && bt == e5m2 {
			return "operand types", "operands are f8e5m2 x f8e5m2: one of them must be f8e4m3fn"
		}
		ok := func(x dtype.Type) bool { return x == e4m3 || x == e5m2 }
		if !ok(at) || !ok(bt) {
			return "operand types", fmt.Sprintf("operands are %s x %s: on CUDA the input types must be f8e5m2 or f8e4m3fn", at, bt)
		}
	} else {
		if !g.nanoo && !g.ocp {
			return "compute capability", fmt.Sprintf("%s has no FP8 (FP8 calls need MI300 or later)", g.Name)
		}
		if g.Toolkit < 6000 {
			return "ROCm version", fmt.Sprintf("FP8 calls need ROCm 6.0 or later, and %s is assumed", g.toolkitText())
		}
		x, y := e4fnuz, e5fnuz
		if rel.rocmTypes && g.ocp {
			x, y = e4m3, e5m2
		}
		if at == y && bt == y {
			return "operand types", fmt.Sprintf("operands are %s x %s: one of them must be %s", at, bt, x)
		}
		if at != x && at != y || bt != x && bt != y {
			return "operand types", fmt.Sprintf("operands are %s x %s: on %s the input types must be %s or %s", at, bt, g.Name, x, y)
		}
	}
	for i, p := range ps {
		if p.scale != nil && !p.scale.Shape.IsScalar() {
			return "scaling factors", fmt.Sprintf("operand %d: the scale %%%s is %s, and the scaling factors must be scalars", i, p.scale.Name, p.scale.Shape.String())
		}
	}
	d0 := dot.Shape.Elem
	if g.Vendor == ROCm && (!rel.rocmTypes || g.Toolkit < 6020) && d0 != dtype.F16 && d0 != dtype.F32 {
		d0 = dtype.F32 // TurnF8DotWithUnsupportedOutputTypeIntoF32 ran first
	}
	if why := resultType(d0, t); why != "" {
		return "output type", why
	}
	if len(dd.lhsContracting) != 1 || len(dd.rhsContracting) != 1 {
		return "contracting dimensions", "A and B must have one contracting dimension each"
	}
	nb := len(dd.lhsBatch)
	for i, p := range ps {
		input, rank := p.fp8, p.fp8.Shape.Rank()
		if len(p.commuting) > 0 {
			input = p.commuting[len(p.commuting)-1].in
			rank = input.Shape.Rank()
		}
		if p.rank > 0 {
			// The passes before the rewriter put a reshape of rank batch+2 last (DotDecomposer) or a
			// bitcast adding a dimension of 1 (GemvRewriter).
			rank = p.rank
		}
		if rank != nb+2 {
			return "operand rank", fmt.Sprintf("operand %d (%%%s) has rank %d: inputs must have exactly one contracting and one "+
				"non-contracting dimension besides the %d batch dimensions", i, input.Name, rank, nb)
		}
	}
	return "", ""
}

// resultType is CreateF8CustomCall's check of D's type.
func resultType(d dtype.Type, t Target) string {
	g, rel := t.GPU, t.Release
	switch d {
	case dtype.BF16, dtype.F16, dtype.F32:
		return ""
	}
	if g.Vendor == CUDA || !rel.rocmTypes {
		if d == e4m3 || d == e5m2 {
			return ""
		}
		return fmt.Sprintf("the dot gives %s: the output type must be f8e4m3fn, f8e5m2, bf16, f16 or f32", d)
	}
	if g.nanoo && (d == e4fnuz || d == e5fnuz) || g.ocp && (d == e4m3 || d == e5m2) {
		return ""
	}
	return fmt.Sprintf("the dot gives %s: on %s the output type must be bf16, f16, f32 or its own FP8 types", d, g.Name)
}
