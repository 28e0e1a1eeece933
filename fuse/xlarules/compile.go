package xlarules

import (
	"fmt"
	"math"
	"strings"

	"octet/dtype"
	"octet/fuse/match"
	"octet/hlo"
)

// operandView is a dot as the passes that run before the GEMM rewriter leave it: the instruction each
// operand's matching starts from, the operands' shapes and the dimension numbers, and what the passes
// did.
type operandView struct {
	ops    [2]*hlo.Instruction
	shapes [2]hlo.Shape
	dims   dimensions
	out    hlo.Shape
	// rank, when not 0, is an operand's rank after a pass put a reshape or bitcast last on it.
	rank [2]int
	// reshaped: a pass put a reshape or bitcast after the dot, so the output handlers see that, not the call.
	reshaped bool
	// upcast: OperandUpcaster converted operand i to the dot's result type (shapes has the new type).
	upcast [2]bool
	// within, when not nil, is what the GEMM rewriter sees: the instructions of a GEMM fusion (the cuBLAS
	// fallback rewrites the fusion's own computation); withinUpcast whether OperandUpcaster's convert of
	// operand i is in it.
	within       map[*hlo.Instruction]bool
	withinUpcast [2]bool
	path         []string
}

// fp8Operand reports whether the dot reads operand i's FP8 value itself: an FP8 operand that
// OperandUpcaster did not convert. v may be nil (the module as it stands).
func (v *operandView) fp8Operand(dot *hlo.Instruction, i int) bool {
	if v == nil {
		return match.FP8(dot.Operand(i))
	}
	return match.FP8(v.ops[i]) && !v.upcast[i]
}

// upcastOperands is OperandUpcaster as RunOptimizationPasses runs it (after DotDecomposer), with
// gpu_compiler.cc's upcaster_filter: on a dot that is not a matrix multiplication cuBLAS takes
// (IsCublasSupportedMatMul without matrix-vector products; IsMatrixMultiplication in 2024), such as a
// matrix-vector dot, OperandUpcaster::InstructionMatchesPattern matches when the type the operands give
// (the higher precision of the two) widens to the result's, and the operands of another type are
// converted to the result's type.
func (v *operandView) upcastOperands(rel *Release) {
	out := v.out.Elem
	matmul := isMatrixMultiplication(v.dims, v.shapes, v.out)
	if rel.supportedMatMul {
		matmul = cublasMatMul(v.dims, v.shapes, out, false) == ""
	}
	a, b := v.shapes[0].Elem, v.shapes[1].Elem
	if matmul || !a.IsFloat() || !b.IsFloat() || !out.IsFloat() || a == out && b == out || higherPrecision(higherPrecision(a, b), out) != out {
		return
	}
	var conv []string
	for i := range 2 {
		if v.shapes[i].Elem == out {
			continue
		}
		s := v.shapes[i].Clone()
		s.Elem = out
		conv = append(conv, fmt.Sprintf("operand %d (%s %%%s)", i, v.shapes[i].Elem, v.ops[i].Name))
		v.shapes[i], v.upcast[i] = s, true
	}
	v.path = append(v.path, fmt.Sprintf("OperandUpcaster converts %s to %s: the dot is not a matrix multiplication cuBLAS takes "+
		"(gpu_compiler.cc's upcaster_filter; %s, %s)", strings.Join(conv, " and "), out, srcUpcasterFilter, srcUpcaster))
}

func newView(dot *hlo.Instruction) *operandView {
	return &operandView{ops: [2]*hlo.Instruction{dot.Operand(0), dot.Operand(1)},
		shapes: [2]hlo.Shape{dot.Operand(0).Shape, dot.Operand(1).Shape},
		dims:   dotDims(dot, nil), out: dot.Shape}
}

func (v *operandView) setBatch(i int, l []int64) {
	if i == 0 {
		v.dims.lhsBatch = l
	} else {
		v.dims.rhsBatch = l
	}
}

func (v *operandView) setContracting(i int, l []int64) {
	if i == 0 {
		v.dims.lhsContracting = l
	} else {
		v.dims.rhsContracting = l
	}
}

// foldTransposes is TransposeFolding with CanFoldTransposeOperandIntoDot: a transpose operand whose
// non-contracting dimensions keep their order and whose batch dimensions stay leading is folded into the
// dot's dimension numbers (it runs before layout assignment and again before the GEMM rewriter).
func (v *operandView) foldTransposes() {
	for i := range 2 {
		x := v.ops[i]
		if x.Opcode != hlo.OpTranspose {
			continue
		}
		perm := x.Ints("dimensions")
		if len(perm) != x.Shape.Rank() {
			continue
		}
		mapDims := func(l []int64) []int64 {
			out := make([]int64, len(l))
			for j, d := range l {
				out[j] = perm[d]
			}
			return out
		}
		batch, contracting := mapDims(v.dims.batch(i)), mapDims(v.dims.contracting(i))
		ok := true
		for j, b := range batch {
			ok = ok && b == int64(j)
		}
		last := int64(-1)
		for j := range x.Shape.Rank() {
			if has(v.dims.batch(i), int64(j)) || has(v.dims.contracting(i), int64(j)) {
				continue
			}
			if perm[j] < last {
				ok = false
			}
			last = perm[j]
		}
		if !ok {
			continue
		}
		v.ops[i], v.shapes[i] = x.Operand(0), x.Operand(0).Shape
		v.setBatch(i, batch)
		v.setContracting(i, contracting)
		v.path = append(v.path, fmt.Sprintf("TransposeFolding folds transpose %%%s into the dot", x.Name))
	}
}

// decompose is DotDecomposer: a dot with more than one contracting or non-contracting dimension a
// side, batch dimensions not leading, or neither batch nor contracting dimensions, becomes a dot of
// [batch..., m, k] x [batch..., k, n] on transposes and reshapes of its operands, with a reshape of its
// result after it.
func (v *operandView) decompose() {
	d := v.dims
	nb := len(d.lhsBatch)
	canonical := len(d.lhsContracting) == 1 && v.shapes[0].Rank() <= nb+2 && v.shapes[1].Rank() <= len(d.rhsBatch)+2 &&
		!(nb == 0 && len(d.lhsContracting) == 0)
	for i := range 2 {
		for j, b := range d.batch(i) {
			canonical = canonical && b == int64(j)
		}
	}
	if canonical {
		return
	}
	k := product(sizes(v.shapes[0], d.lhsContracting))
	m := product(d.nonContracting(0, v.shapes[0]))
	n := product(d.nonContracting(1, v.shapes[1]))
	batch := sizes(v.shapes[0], d.lhsBatch)
	mk := func(t hlo.Shape, a, b int64) hlo.Shape {
		s := t.Clone()
		s.Dims = append(append([]int64{}, batch...), a, b)
		return s
	}
	v.shapes = [2]hlo.Shape{mk(v.shapes[0], m, k), mk(v.shapes[1], k, n)}
	seq := func(from, count int) []int64 {
		l := make([]int64, count)
		for j := range l {
			l[j] = int64(from + j)
		}
		return l
	}
	v.dims = dimensions{seq(0, nb), seq(0, nb), []int64{int64(nb + 1)}, []int64{int64(nb)}}
	v.rank = [2]int{nb + 2, nb + 2}
	v.out = mk(v.out, m, n)
	v.reshaped = true
	v.path = append(v.path, "DotDecomposer canonicalizes the dot: [batch..., m, k] x [batch..., k, n] on transposes and reshapes "+
		"of its operands, and a reshape after it")
}

// vectors reports which operands have no non-contracting dimension.
func (v *operandView) vectors() (lhs, rhs bool) { return v.vector(0), v.vector(1) }

// vector reports whether operand i has no non-contracting dimension.
func (v *operandView) vector(i int) bool {
	return len(v.dims.batch(i))+len(v.dims.contracting(i)) == v.shapes[i].Rank()
}

// gemv is GemvRewriter: a matrix-vector dot gets a dimension of 1 on its vector side (a bitcast), and a
// bitcast of its result after it.
func (v *operandView) gemv() bool {
	l, r := v.vectors()
	if l == r {
		return false
	}
	i := 0
	if r {
		i = 1
	}
	s := v.shapes[i].Clone()
	s.Dims = append(s.Dims, 1)
	v.shapes[i] = s
	v.rank[i] = s.Rank()
	out := v.out.Clone()
	if i == 1 {
		out.Dims = append(out.Dims, 1)
	} else {
		n := len(out.Dims)
		out.Dims = append(append(append([]int64{}, out.Dims[:n-1]...), 1), out.Dims[n-1])
	}
	v.out = out
	v.reshaped = true
	v.path = append(v.path, fmt.Sprintf("GemvRewriter gives operand %d a dimension of 1 (a bitcast) and bitcasts the result back", i))
	return true
}

// The sources of the passes modelled here that are not in Release.
var (
	srcUpcaster       = Source{File: "xla/hlo/transforms/operand_upcaster.cc", Commit: "80c095fc2f5ba8b1e8c8b7df79c0be532416dd69"}
	srcUpcasterFilter = Source{File: compilerFile, Note: "tensorflow/tensorflow@00464cb8's copy, RunOptimizationPasses"}
)

// predict is what release t.Release makes of dot in a full compile on t.GPU: the passes that change or
// claim a dot before the FP8 GEMM rewriter (gpu_compiler.cc), the rewriter, and the GEMM fusion
// autotuner's choice where it has one. The flags that would change the outcome are found by predicting
// again with each flipped.
func predict(dot *hlo.Instruction, t Target) Outcome {
	o := predictWith(dot, t)
	for _, alt := range flagAlternatives(dot, t) {
		p := predictWith(dot, alt.t)
		if p.Outcome != o.Outcome || p.Fallback != o.Fallback {
			o.Flags = append(o.Flags, fmt.Sprintf("%s: %s", alt.flag, p.Text()))
		}
	}
	return o
}

type flagAlt struct {
	flag string
	t    Target
}

func flagAlternatives(dot *hlo.Instruction, t Target) []flagAlt {
	var alts []flagAlt
	add := func(flag string, set func(*Flags)) {
		a := t
		set(&a.Flags)
		alts = append(alts, flagAlt{flag, a})
	}
	f := t.Flags
	add(fmt.Sprintf("--xla_gpu_enable_triton_gemm=%v", !f.TritonGemm), func(x *Flags) { x.TritonGemm = !x.TritonGemm })
	flip := !t.GemmAny()
	add(fmt.Sprintf("--xla_gpu_triton_gemm_any=%v", flip), func(x *Flags) { x.TritonGemmAny = &flip })
	add(fmt.Sprintf("--xla_gpu_cublas_fallback=%v", !f.CublasFallback), func(x *Flags) { x.CublasFallback = !x.CublasFallback })
	add(fmt.Sprintf("--xla_gpu_enable_dot_strength_reduction=%v", !f.DotStrengthReduction),
		func(x *Flags) { x.DotStrengthReduction = !x.DotStrengthReduction })
	if tiny, _ := tooSmall(dotDims(dot, nil), [2]hlo.Shape{dot.Operand(0).Shape, dot.Operand(1).Shape}, f.GemmRewriteSizeThreshold); tiny {
		add("--xla_gpu_gemm_rewrite_size_threshold=0", func(x *Flags) { x.GemmRewriteSizeThreshold = 0 })
	}
	return alts
}

func predictWith(dot *hlo.Instruction, t Target) Outcome {
	rel, g := t.Release, t.GPU
	o := Outcome{XLA: rel.Name}
	if fp8Reach(dot) == 0 {
		o.Outcome, o.Why = PlainDot, "no FP8 value reaches the dot"
		return o
	}
	v := newView(dot)
	v.foldTransposes()
	v.decompose()
	v.upcastOperands(rel)
	o.Path = append(o.Path, v.path...)
	v.path = nil
	if l, r := v.vectors(); t.Flags.DotStrengthReduction && (l || r) {
		reduce := l && r
		why := "a vector-vector dot"
		if !reduce {
			tiny, size := tooSmall(v.dims, v.shapes, 10000000)
			if tiny {
				reduce, why = true, fmt.Sprintf("a matrix-vector dot with (m+n)*k = %d below 10000000", size)
			} else if rel.reduceUntriton && tritonGEMM(dot, v, g) != "" {
				reduce, why = true, "a matrix-vector dot Triton cannot take"
			}
		}
		if reduce {
			o.Path = append(o.Path, "algsimp (GpuAlgebraicSimplifier::ShouldStrengthReduceDotToReduce) turns "+why+" into a multiply and a reduce")
			o.Outcome, o.Why = PlainDot, "the dot strength reduction makes "+why+" an elementwise multiply and a reduce: no GEMM is left"
			return o
		}
	}
	if tiny, size := tooSmall(v.dims, v.shapes, t.Flags.GemmRewriteSizeThreshold); tiny && classicalEmitters(dot.Shape.Elem) {
		o.Outcome = PlainDot
		o.Why = fmt.Sprintf("(m+n)*k = %d is below xla_gpu_gemm_rewrite_size_threshold=%d: the GEMM rewriter and the GEMM fusion leave the %s dot to XLA's own emitters",
			size, t.Flags.GemmRewriteSizeThreshold, dot.Shape.Elem)
		o.Path = append(o.Path, "cublas-gemm-rewriter and triton-gemm-rewriter leave the dot (IsMatrixMultiplicationTooSmallForRewriting)")
		return o
	}
	triton := t.Flags.TritonGemm && (g.AtLeast(8, 0) || g.Vendor == ROCm && rel.tritonROCm)
	fp8 := func(stage string) (*result, bool) {
		r := rewrite(dot, t, v)
		if r.fused {
			o.Path = append(o.Path, stage+": "+r.why)
			return r, true
		}
		o.Path = append(o.Path, fmt.Sprintf("%s leaves the dot: %s", stage, r.why))
		return r, false
	}
	if rel.fp8First {
		r, ok := fp8("cublas-gemm-rewriter (FP8, before the Triton GEMM fusion)")
		if ok {
			o.Outcome, o.Why = CublasLtFP8, "the FP8 GEMM rewriter runs first and makes one FP8 call"
			return o
		}
		if r.f16 {
			o.Path = append(o.Path, "HandleDot turns the FP8 dot into an f16 dot on converted operands (TurnF8DotIntoF16Dot)")
		}
		if !triton {
			o.Outcome, o.Why = PlainDot, "the FP8 rewrite fails and the non-FP8 GEMM rewriter makes a non-FP8 cuBLAS call"
			return o
		}
		if v.gemv() {
			o.Path = append(o.Path, v.path...)
		}
		gf := runGemmFusion(dot, v, t)
		if r.f16 {
			gf = f16DotClaimed(dot, v, t)
		}
		if !gf.claims {
			o.Path = append(o.Path, "triton-gemm-rewriter leaves the dot: "+gf.why)
			o.Outcome, o.Why = PlainDot, "the FP8 rewrite fails, the Triton GEMM fusion leaves the dot, and the non-FP8 GEMM rewriter makes a non-FP8 cuBLAS call"
			return o
		}
		o.Path = append(o.Path, "triton-gemm-rewriter claims the dot: "+gf.why)
		o.Outcome, o.Why = TritonDequantized, "the FP8 rewrite fails, then the Triton GEMM fusion claims the dot and multiplies in "+
			computeType(v, r.f16)
		if t.Flags.CublasFallback {
			o.Fallback = PlainDot
		}
		return o
	}
	if triton {
		if v.gemv() {
			o.Path = append(o.Path, v.path...)
		}
		gf := runGemmFusion(dot, v, t)
		if gf.claims {
			o.Path = append(o.Path, "triton-gemm-rewriter (before the FP8 rewrite) claims the dot: "+gf.why)
			fallback, why := PlainDot, ""
			if rel.rewriteAfterAutotune {
				fallback, why = cublasFallback(dot, v, gf, t)
			}
			if v.fp8Operand(dot, 0) && v.fp8Operand(dot, 1) {
				o.Outcome, o.Why = TritonFP8, "the Triton GEMM fusion claims the dot on its FP8 operands first"
				switch {
				case t.Flags.CublasFallback && fallback == CublasLtFP8:
					o.Outcome, o.Fallback = Autotuned, fallback
					o.Why = "the Triton GEMM fusion claims the dot on its FP8 operands first; autotuning keeps that Triton GEMM (triton-fp8) " +
						"or, when cuBLAS is faster, the FP8 GEMM rewriter makes one FP8 call of it (cublaslt-fp8)"
				case t.Flags.CublasFallback && fallback != "":
					o.Fallback = fallback
				case t.Flags.CublasFallback:
					o.Why += "; cuBLAS offers autotuning nothing for it" + why
				}
				return o
			}
			o.Outcome = TritonDequantized
			o.Why = "the Triton GEMM fusion claims the dot before the FP8 rewrite can, and multiplies dequantized " + computeType(v, false) + " values: FP8 lost"
			if t.Flags.CublasFallback && fallback != "" {
				o.Fallback = fallback
				made := "one FP8 call (cublaslt-fp8)"
				if fallback == PlainDot {
					made = "a non-FP8 cuBLAS call (dot)"
				}
				o.Why += fmt.Sprintf(" (autotuning may still pick cuBLAS when it is faster: then the GEMM rewriter makes %s of it%s)", made, why)
			} else if t.Flags.CublasFallback {
				o.Why += " (cuBLAS offers autotuning nothing for it" + why + ")"
			}
			return o
		}
		o.Path = append(o.Path, "triton-gemm-rewriter leaves the dot: "+gf.why)
	}
	r, ok := fp8("cublas-gemm-rewriter (FP8)")
	if ok {
		if err := r.out.tableErr; err != nil && rel.outsideTableFails {
			o.Outcome = CompileError
			o.Why = fmt.Sprintf("the FP8 GEMM rewriter builds a call outside cuBLASLt's FP8 type table (%v): the autotuner finds no cuBLASLt "+
				"algorithm for it, and the compile fails with %q (%s)", err, errNoConfigs, measuredAs)
			return o
		}
		o.Outcome, o.Why = CublasLtFP8, "the FP8 GEMM rewriter makes one FP8 call"
		return o
	}
	o.Outcome = PlainDot
	o.Why = "the FP8 rewrite fails and the non-FP8 GEMM rewriter makes a non-FP8 cuBLAS call"
	if r.f16 {
		o.Why = "the FP8 rewrite fails; HandleDot turns the FP8 dot into an f16 dot on converted operands, which becomes a non-FP8 cuBLAS call"
	} else if why := nonFP8Unsupported(dot, v, t); why != "" {
		o.Outcome = CompileError
		o.Why = "the FP8 rewrite fails, and " + why
	}
	return o
}

// The compile errors of jaxlib 0.11.2, and the run that showed them.
const (
	errNoConfigs = "All backends failed to find supported configs"
	errNoLegacy  = "GEMM is not supported by cublasLt and legacy cublas fallback is removed"
	measuredAs   = "jaxlib 0.11.2 on an H100"
)

// cublasFallback is what the GEMM fusion autotuner makes of a Triton GEMM fusion when cuBLAS is faster
// (xla_gpu_cublas_fallback): the GEMM rewriter, FP8 rewrite first, on the dot as it then stands. In
// the newest release that is the fusion's own computation (FissionBackend::GetFissionedAndRewrittenModule,
// with the FP8 and the non-FP8 GemmRewriter of GetCublasRewriterPipeline), so an operand dequantized
// outside the fusion reaches it as a parameter of the wider type, and only the users the fusion took
// reach the output handlers; before, the fusion was inlined and the rewriter saw the module. It returns
// the outcome, "" when cuBLAS has no call to offer (then the Triton GEMM stays), and why, in words.
func cublasFallback(dot *hlo.Instruction, v *operandView, gf gemmFusion, t Target) (string, string) {
	rel := t.Release
	fv := *v
	if rel.fissionFallback {
		fv.within = map[*hlo.Instruction]bool{dot: true}
		for _, x := range gf.fused {
			fv.within[x] = true
		}
		fv.withinUpcast = gf.upcast
	}
	fb := rewrite(dot, t, &fv)
	if fb.fused {
		if normalizedScale(fb, t.GPU) {
			return PlainDot, "; float-normalization-bf16 puts an f32 round trip around the bf16 scale multiply first (not native before Hopper), " +
				"so the FP8 pattern no longer matches"
		}
		if err := fb.out.tableErr; err != nil && rel.outsideTableFails {
			return "", fmt.Sprintf(": the FP8 call the GEMM rewriter would make of the fusion is outside cuBLASLt's FP8 type table (%v), "+
				"and no cuBLASLt algorithm runs it", err)
		}
		return CublasLtFP8, ""
	}
	if fb.f16 {
		return PlainDot, ""
	}
	if why := nonFP8Unsupported(dot, v, t); why != "" {
		return "", ": " + why
	}
	why := ""
	if rel.fissionFallback {
		why = fmt.Sprintf(", the FP8 rewrite seeing only the fusion's computation: %s", fb.why)
	}
	return PlainDot, why
}

// nonFP8Unsupported says why the non-FP8 GEMM rewriter cannot make a call of the dot, or "": in the
// newest release, where no legacy cuBLAS call backs cuBLASLt up, when the dot's own types, after
// DotOperandConverter gives both operands the wider type, are not in cuBLASLt's table.
func nonFP8Unsupported(dot *hlo.Instruction, v *operandView, t Target) string {
	if !t.Release.noLegacyCublas || t.GPU.Vendor != CUDA {
		return ""
	}
	a, b, d := v.shapes[0].Elem, v.shapes[1].Elem, dot.Shape.Elem
	if a != b && a.IsFloat() && b.IsFloat() {
		a = higherPrecision(a, b)
		b = a
	}
	if inRows(ltOtherRows, a, b, d) {
		return ""
	}
	return fmt.Sprintf("the non-FP8 GEMM rewriter has no call for the dot's own types %s: they are not in cuBLASLt's table "+
		"(GemmIsSupportedByCublasLt), no legacy cuBLAS call takes them, and the compile fails with %q (%s)",
		describeTypes(a, b, d), errNoLegacy, measuredAs)
}

// higherPrecision is primitive_util::HigherPrecisionType for floating-point types: the wider exponent
// range first, then the wider significand, then the wider type.
func higherPrecision(a, b dtype.Type) dtype.Type {
	if a == b {
		return a
	}
	key := func(t dtype.Type) [3]int {
		f := t.Finfo()
		_, e := math.Frexp(f.Max)
		return [3]int{e, f.Nmant, t.BitWidth()}
	}
	ka, kb := key(a), key(b)
	for i := range ka {
		if ka[i] != kb[i] {
			if ka[i] > kb[i] {
				return a
			}
			return b
		}
	}
	return b
}

// computeType names what a GEMM that does not use the FP8 values multiplies in.
func computeType(v *operandView, f16 bool) string {
	if f16 {
		return "f16"
	}
	return v.shapes[0].Elem.String()
}

// normalizedScale reports whether float normalization breaks the dequantize of a call the FP8 rewriter
// would make: before Hopper a bf16 multiply or divide is not native (GpuFloatSupport), and
// float-normalization-bf16 computes it in f32 between converts, which the matcher does not look through.
func normalizedScale(r *result, g *GPU) bool {
	if g.AtLeast(9, 0) {
		return false
	}
	for _, p := range []*param{r.a, r.b} {
		if p.scale != nil && p.scale.Shape.Elem.String() == "bf16" {
			return true
		}
	}
	return false
}

// fp8Reach counts the dot operands whose chain reaches an FP8 value.
func fp8Reach(dot *hlo.Instruction) int {
	n := 0
	for i := range 2 {
		if find(dot.Operand(i), map[*hlo.Instruction]bool{}) != nil {
			n++
		}
	}
	return n
}

// OutcomeNames are the outcomes of a full compile, for help texts.
var OutcomeNames = []string{CublasLtFP8, TritonFP8, TritonDequantized, PlainDot, Autotuned, CompileError}

// Text says an outcome in one line: "cublaslt-fp8", "triton-dequantized (cuBLAS fallback: cublaslt-fp8)".
func (o Outcome) Text() string {
	s := o.Outcome
	if o.Outcome == Autotuned {
		s += " (triton-fp8 or " + o.Fallback + ")"
	} else if o.Fallback != "" && o.Fallback != o.Outcome {
		s += " (if autotuning picks cuBLAS: " + o.Fallback + ")"
	}
	return s
}

// Summary is the outcomes of every release in one line: "0.4.31 cublaslt-fp8; 0.4.32 triton-dequantized".
func Summary(os []Outcome) string {
	var parts []string
	for _, o := range os {
		parts = append(parts, o.XLA+" "+o.Text())
	}
	return strings.Join(parts, "; ")
}
