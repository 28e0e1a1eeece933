package xlarules

import (
	"fmt"
	"strings"

	"octet/dtype"
	"octet/hlo"
)

// Verdict is XLA's decision about one dot.
type Verdict struct {
	// Fusible says whether XLA's FP8 GEMM rewriter makes the dot one FP8 cuBLASLt call as the module
	// stands (on the target of Assumes).
	Fusible bool `json:"fusible"`
	// Why says how, or why not: the condition that failed and the instructions it failed at.
	Why string `json:"why"`
	// Rule names the function of XLA's source that decided, with the condition, and the source read
	// (file@commit).
	Rule string `json:"rule,omitempty"`
	// Assumes says which XLA and which GPU the verdict is for.
	Assumes string `json:"assumes,omitempty"`
	// Bug is set only where XLA's own pattern matches and what XLA builds is wrong: a call outside
	// cuBLASLt's FP8 type table (naming the rule that built it and the table's row), or a call that
	// computes something else than the module (a pad of a nonzero value moved before the scale).
	Bug string `json:"bug,omitempty"`
	// Short says the verdict in a few words ("fuses", "no: a second convert"), for tables.
	Short string `json:"-"`
	// Compile predicts, for a module before optimization, what each XLA release modelled makes of the
	// dot in a full compile, passes that run before the FP8 rewrite included.
	Compile []Outcome `json:"compile,omitempty"`
}

// Outcome is what one XLA release makes of an FP8 dot in a full compile.
type Outcome struct {
	XLA string `json:"xla"`
	// Outcome is one of "cublaslt-fp8" (one FP8 cuBLASLt call), "triton-fp8" (a Triton GEMM on the FP8
	// values), "triton-dequantized" (a Triton GEMM that multiplies dequantized values: FP8 lost), "dot"
	// (no FP8 GEMM: a non-FP8 cuBLAS call, a dot the emitters compute, or a multiply and a reduce),
	// "autotuned" (autotuning picks one of two, both named in Why), or "compile-error" (XLA builds a call
	// no cuBLASLt algorithm runs, or has none to build, and the compile fails: Why quotes the error).
	Outcome string `json:"outcome"`
	Why     string `json:"why"`
	// Fallback is what the dot becomes when the GEMM fusion autotuner finds cuBLAS faster than Triton
	// (xla_gpu_cublas_fallback), for an outcome of a Triton GEMM; empty when cuBLAS has nothing to offer
	// for it (the Triton GEMM then stays).
	Fallback string `json:"fallback,omitempty"`
	// Path lists the passes that decided, in order.
	Path []string `json:"path"`
	// Flags are the XLA flags that would change the outcome.
	Flags []string `json:"flags,omitempty"`
}

// Outcomes of a full compile.
const (
	CublasLtFP8       = "cublaslt-fp8"
	TritonFP8         = "triton-fp8"
	TritonDequantized = "triton-dequantized"
	PlainDot          = "dot"
	Autotuned         = "autotuned"
	CompileError      = "compile-error"
)

// Decide applies the rules of the default target (the newest XLA, sm_90) to dot.
func Decide(dot *hlo.Instruction) Verdict { return DecideFor(dot, DefaultTarget()) }

// DecideFor applies the rules of target t's XLA release and GPU to dot as the module stands, and
// predicts what every release makes of it in a full compile on t's GPU with t's flags.
func DecideFor(dot *hlo.Instruction, t Target) Verdict {
	v := DecideAsIs(dot, t)
	if dot != nil && dot.Opcode == hlo.OpDot && dot.NumOperands() == 2 {
		for _, r := range releases {
			tr := t
			tr.Release = r
			v.Compile = append(v.Compile, predict(dot, tr))
		}
	}
	return v
}

// DecideAsIs is DecideFor without the compile predictions (Verdict.Compile is nil): XLA's rules applied to
// dot as the module stands, for modules that have been through XLA's passes already, or where only
// whether the rules fuse it matters.
func DecideAsIs(dot *hlo.Instruction, t Target) Verdict {
	return rewrite(dot, t, nil).verdict(t)
}

// result is what the FP8 GemmRewriter does with a dot.
type result struct {
	fused bool
	// rule is the function and the condition that decided; file the source it was read from; why the
	// sentence for a user.
	rule, why string
	// short is the condition that failed in a few words, for tables.
	short string
	file  Source
	a, b  *param
	out   *epilogue
	// f16 is set when HandleDot, not fusing a dot with FP8 operands, turns it into an f16 (or bf16) dot.
	f16 bool
}

func (r *result) verdict(t Target) Verdict {
	v := Verdict{Fusible: r.fused, Why: r.why, Assumes: t.Assumes()}
	v.Rule = r.rule + " (" + r.file.String() + ")"
	v.Short = "no: " + r.short + " (" + strings.TrimPrefix(strings.SplitN(r.rule, ":", 2)[0], "HandleDot: ") + ")"
	if r.fused {
		v.Short = "fuses"
		if e := r.out; e != nil {
			v.Short = fmt.Sprintf("fuses: %s, D %s", e.epi, e.d)
			if e.beta != 0 {
				v.Short += fmt.Sprintf(", C %s, beta 1", e.c)
			}
			if e.damax {
				v.Short += ", damax"
			}
		}
		if r.out != nil {
			v.Bug = r.out.bug
			switch {
			case r.out.tableErr != nil:
				v.Short += "; XLA bug: the call is outside cuBLASLt's FP8 type table"
			case v.Bug != "":
				v.Short += "; XLA bug: the call reads its own output"
			}
		}
		for _, p := range []*param{r.a, r.b} {
			if bug := p.padBug(); bug != "" && v.Bug == "" {
				v.Bug = bug
				v.Short += "; XLA bug: the padding is scaled"
			}
		}
	}
	return v
}

func refuse(rule, short, format string, args ...any) *result {
	return &result{rule: rule, short: short, why: fmt.Sprintf(format, args...)}
}

// rewrite runs GemmRewriterVisitor::HandleDot of t's release, with the FP8 rewrite (GemmRewriterOptions
// kFp8Only, f8_rewrite=true), on dot as the module stands, and when it makes the call, the handlers of
// the instructions after the dot. view, when not nil, is how the passes before the rewriter changed the
// dot's operands (see predict).
func rewrite(dot *hlo.Instruction, t Target, view *operandView) *result {
	r := rewriteDot(dot, t, view)
	r.file = t.Release.Rewriter
	if r.fused {
		r.out = runEpilogue(dot, r, t, view)
		r.why = fmt.Sprintf("XLA's FP8 GEMM rewriter makes it one %s call: A %s, B %s", targetF8, r.a.describe(), r.b.describe())
		if s := r.out.summary(); s != "" {
			r.why += "; " + s
		}
	}
	return r
}

const targetF8 = "__cublas$lt$matmul$f8"

// rewriteDot is HandleDot's gates, in XLA's order, then the FP8 matcher and CreateF8CustomCall.
func rewriteDot(dot *hlo.Instruction, t Target, view *operandView) *result {
	if dot == nil || dot.Opcode != hlo.OpDot || dot.NumOperands() != 2 {
		return refuse("HandleDot", "not a dot", "not a dot with two operands")
	}
	rel := t.Release
	ops := [2]*hlo.Instruction{dot.Operand(0), dot.Operand(1)}
	if view != nil {
		ops = view.ops
	}
	shapes := [2]hlo.Shape{ops[0].Shape, ops[1].Shape}
	if view != nil {
		shapes = view.shapes
	}
	dims := dotDims(dot, view)
	out := dot.Shape
	if view != nil {
		out = view.out
	}
	if rel.supportedMatMul {
		if why := cublasSupportedMatMul(dims, shapes, dot.Shape.Elem); why != "" {
			return refuse("HandleDot: IsCublasSupportedMatMul", "not a product cuBLAS takes", "HandleDot leaves the dot: %s (IsCublasSupportedMatMul)", why)
		}
	} else {
		if why := matrixMultiplication(dims, shapes, out); why != "" {
			return refuse("HandleDot: IsMatrixMultiplication, IsMatrixVectorMultiplication", "not a matrix product",
				"HandleDot leaves the dot: %s (neither IsMatrixMultiplication nor IsMatrixVectorMultiplication)", why)
		}
		if dot.NumOperands() > 2 {
			return refuse("HandleDot: sparse_operands", "sparse operands", "HandleDot leaves a dot with sparse operands")
		}
	}
	if tiny, size := tooSmall(dims, shapes, t.Flags.GemmRewriteSizeThreshold); tiny && classicalEmitters(dot.Shape.Elem) {
		return refuse("HandleDot: IsMatrixMultiplicationTooSmallForRewriting, IsDotSupportedByClassicalEmitters", "below the size threshold",
			"HandleDot leaves the dot to XLA's own emitters: (m+n)*k = %d is below xla_gpu_gemm_rewrite_size_threshold=%d "+
				"(IsMatrixMultiplicationTooSmallForRewriting) and the emitters compute a %s result (IsDotSupportedByClassicalEmitters)",
			size, t.Flags.GemmRewriteSizeThreshold, dot.Shape.Elem)
	}
	if !rel.supportedMatMul {
		for i, x := range ops {
			if rank2Transpose(x) {
				return refuse("HandleDot: IsRank2Transpose", "a rank-2 transpose operand",
					"operand %d is the rank-2 transpose %%%s: HandleDot CHECK-fails on it; in a compile TransposeFolding folds it into the dot first", i, x.Name)
			}
		}
	}
	if why := cublasLtSupports(dims, shapes, dot, t); why != "" {
		short := "the dot's own types are not in cuBLASLt's table"
		if strings.Contains(why, "batches") {
			short = "more than 65535 batches"
		}
		r := refuse("GemmIsSupportedByCublasLt", short, "%s (GemmIsSupportedByCublasLt, on the dot's own types, before any FP8 matching)", why)
		r.f16 = view.fp8Operand(dot, 0)
		return r
	}
	var ps [2]*param
	for i := range 2 {
		var p *param
		var why, short string
		if view != nil && view.upcast[i] {
			p, why, short = matchUpcast(ops[i], shapes[i].Elem, rel)
		} else {
			p, why, short = matchParam(ops[i], rel, view != nil)
		}
		if p != nil && view != nil && view.within != nil {
			if x := p.outside(view.within, view.withinUpcast[i]); x != "" {
				p, short = nil, "the dequantize is outside the GEMM fusion"
				why = fmt.Sprintf("%s is outside the Triton GEMM fusion whose computation the cuBLAS fallback rewrites (FissionBackend), "+
					"so the dot there reads a %s parameter, not a dequantize", x, shapes[i].Elem)
			}
		}
		if p == nil {
			r := refuse(matcherName(rel), short, "operand %d: %s (%s)", i, why, matcherName(rel))
			r.f16 = view.fp8Operand(dot, 0)
			return r
		}
		if view != nil && view.rank[i] > 0 {
			p.rank = view.rank[i]
		}
		ps[i] = p
	}
	if rule, why := callChecks(dot, ps, dims, t); why != "" {
		r := refuse("CreateF8CustomCall: "+rule, callShort[rule], "%s (CreateF8CustomCall)", why)
		r.f16 = view.fp8Operand(dot, 0)
		return r
	}
	return &result{fused: true, rule: "CreateF8CustomCall", a: ps[0], b: ps[1]}
}

// callShort says each of CreateF8CustomCall's checks in a few words.
var callShort = map[string]string{
	"compute capability":     "the GPU has no FP8 GEMM",
	"CUDA version":           "the toolkit is too old",
	"ROCm version":           "the toolkit is too old",
	"operand types":          "FP8 types the call does not take",
	"scaling factors":        "a scale that is not a scalar",
	"output type":            "a result type the call does not take",
	"contracting dimensions": "more than one contracting dimension",
	"operand rank":           "an operand not of rank batch+2",
}

func matcherName(rel *Release) string {
	if rel.bareConvert {
		return "MatchFp8Param"
	}
	return "IsSupportedF8Pattern"
}

// dimensions are a dot's dimension numbers.
type dimensions struct {
	lhsBatch, rhsBatch, lhsContracting, rhsContracting []int64
}

func dotDims(dot *hlo.Instruction, view *operandView) dimensions {
	if view != nil {
		return view.dims
	}
	return dimensions{dot.Ints("lhs_batch_dims"), dot.Ints("rhs_batch_dims"), dot.Ints("lhs_contracting_dims"), dot.Ints("rhs_contracting_dims")}
}

func (d dimensions) batch(i int) []int64 {
	if i == 0 {
		return d.lhsBatch
	}
	return d.rhsBatch
}

func (d dimensions) contracting(i int) []int64 {
	if i == 0 {
		return d.lhsContracting
	}
	return d.rhsContracting
}

// nonContracting returns the sizes of operand i's dimensions that are neither batch nor contracting.
func (d dimensions) nonContracting(i int, s hlo.Shape) []int64 {
	var out []int64
	for j, n := range s.Dims {
		if !has(d.batch(i), int64(j)) && !has(d.contracting(i), int64(j)) {
			out = append(out, n)
		}
	}
	return out
}

func has(l []int64, x int64) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

func product(l []int64) int64 {
	p := int64(1)
	for _, x := range l {
		p *= x
	}
	return p
}

func sizes(s hlo.Shape, dims []int64) []int64 {
	var out []int64
	for _, d := range dims {
		if int(d) < s.Rank() {
			out = append(out, s.Dims[d])
		}
	}
	return out
}

// cublasSupportedMatMul is matmul_utils.cc's IsCublasSupportedMatMul with matrix-vector products
// allowed (as HandleDot asks): one contracting dimension each side, no batch dimension last, at most one
// non-contracting dimension, a matrix on at least one side, and a result type cuBLAS computes.
func cublasSupportedMatMul(d dimensions, s [2]hlo.Shape, out dtype.Type) string {
	return cublasMatMul(d, s, out, true)
}

// cublasMatMul is IsCublasSupportedMatMul; allowMV is its allow_matrix_vector_multiplication.
func cublasMatMul(d dimensions, s [2]hlo.Shape, out dtype.Type, allowMV bool) string {
	matrices := 0
	for i := range 2 {
		if len(d.contracting(i)) != 1 {
			return fmt.Sprintf("operand %d has %d contracting dimensions, and cuBLAS takes one", i, len(d.contracting(i)))
		}
		if r := int64(s[i].Rank()); r > 0 && has(d.batch(i), r-1) {
			return fmt.Sprintf("operand %d has a batch dimension last", i)
		}
		nc := d.nonContracting(i, s[i])
		if len(nc) > 1 {
			return fmt.Sprintf("operand %d has %d non-contracting dimensions, and cuBLAS takes one (DotDecomposer merges them first in a compile)", i, len(nc))
		}
		if len(nc) == 1 && nc[0] != 1 {
			matrices++
		}
	}
	if matrices == 0 {
		return "neither operand is a matrix (a vector-vector product)"
	}
	if matrices == 1 && !allowMV {
		return "one operand is a vector (a matrix-vector product)"
	}
	switch out {
	case dtype.F8E4M3FN, dtype.F8E5M2, dtype.F16, dtype.BF16, dtype.F32, dtype.F64, dtype.C64:
		return ""
	case dtype.F8E3M4, dtype.F8E4M3, dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.C128:
		if matrices == 2 {
			return ""
		}
		return fmt.Sprintf("a matrix-vector product with a %s result", out)
	}
	return fmt.Sprintf("the result type %s is not one cuBLAS computes", out)
}

// matrixMultiplication is IsMatrixMultiplication || IsMatrixVectorMultiplication: a result type the
// rewriter takes, operands and result of rank batch+2 (or one operand of rank batch+1 and a result of
// rank batch+1), with elements.
func matrixMultiplication(d dimensions, s [2]hlo.Shape, out hlo.Shape) string {
	nb := len(d.lhsBatch)
	mm := func() bool {
		return s[0].Rank() == nb+2 && s[1].Rank() == nb+2 && out.Rank() == nb+2
	}
	mv := func() bool {
		return (s[0].Rank() == nb+2 && s[1].Rank() == nb+1 || s[0].Rank() == nb+1 && s[1].Rank() == nb+2) && out.Rank() == nb+1
	}
	if s[0].NumElements() == 0 || s[1].NumElements() == 0 {
		return "an operand has no elements"
	}
	switch t := out.Elem; t {
	case dtype.F8E4M3FN, dtype.F8E5M2, dtype.F16, dtype.BF16, dtype.F32, dtype.F64, dtype.C64, dtype.C128:
	case dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ:
		if !mm() {
			return fmt.Sprintf("a %s result is taken for a matrix-matrix product only", t)
		}
	default:
		return fmt.Sprintf("the dot gives %s, which the GEMM rewriter does not take", t)
	}
	if mm() || mv() {
		return ""
	}
	return fmt.Sprintf("its operands and result must have rank %d (batch dimensions + 2), or one operand and the result rank %d", nb+2, nb+1)
}

// isMatrixMultiplication is ir_emission_utils.cc's IsMatrixMultiplication alone: operands and result of
// rank batch+2 with elements, and a result type it lists.
func isMatrixMultiplication(d dimensions, s [2]hlo.Shape, out hlo.Shape) bool {
	nb := len(d.lhsBatch)
	if s[0].Rank() != nb+2 || s[1].Rank() != nb+2 || out.Rank() != nb+2 || s[0].NumElements() == 0 || s[1].NumElements() == 0 {
		return false
	}
	switch out.Elem {
	case dtype.F8E4M3FN, dtype.F8E5M2, dtype.F8E4M3FNUZ, dtype.F8E5M2FNUZ, dtype.F16, dtype.BF16, dtype.F32, dtype.F64, dtype.C64, dtype.C128:
		return true
	case dtype.S32:
		return s[0].Elem == dtype.S8 && s[1].Elem == dtype.S8
	}
	return false
}

// tooSmall is IsMatrixMultiplicationTooSmallForRewriting: (m + n) * k below the threshold.
func tooSmall(d dimensions, s [2]hlo.Shape, threshold int64) (bool, int64) {
	k := product(sizes(s[0], d.lhsContracting))
	m := product(d.nonContracting(0, s[0]))
	n := product(d.nonContracting(1, s[1]))
	size := (m + n) * k
	return size < threshold, size
}

// classicalEmitters is IsDotSupportedByClassicalEmitters: XLA's own emitters take f16, f32 and bf16
// results.
func classicalEmitters(t dtype.Type) bool { return t == dtype.F16 || t == dtype.F32 || t == dtype.BF16 }

// rank2Transpose is HloInstruction::IsRank2Transpose.
func rank2Transpose(x *hlo.Instruction) bool {
	if x.Opcode != hlo.OpTranspose || x.Shape.Rank() != 2 {
		return false
	}
	d := x.Ints("dimensions")
	o := x.Operand(0).Shape.Dims
	return len(d) == 2 && d[0] == 1 && d[1] == 0 && len(o) == 2 && x.Shape.Dims[0] == o[1] && x.Shape.Dims[1] == o[0]
}

// describeTypes names the dot's (A, B, D) types.
func describeTypes(a, b, d dtype.Type) string { return fmt.Sprintf("(A %s, B %s, D %s)", a, b, d) }

func join(parts []string) string { return strings.Join(parts, ", ") }
