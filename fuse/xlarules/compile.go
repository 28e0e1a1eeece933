package xlarules

import (
	"fmt"
	"strings"

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
	path     []string
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
func (v *operandView) vectors() (lhs, rhs bool) {
	d := v.dims
	return len(d.lhsBatch)+len(d.lhsContracting) == v.shapes[0].Rank(), len(d.rhsBatch)+len(d.rhsContracting) == v.shapes[1].Rank()
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
			computeType(dot, r.f16)
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
			fallback := PlainDot
			var why string
			if rel.rewriteAfterAutotune {
				fb := rewrite(dot, t, v)
				if fb.fused && !normalizedScale(fb, g) {
					fallback = CublasLtFP8
				} else if fb.fused {
					why = "; float-normalization-bf16 puts an f32 round trip around the bf16 scale multiply first (not native before Hopper), so the FP8 pattern no longer matches"
				}
			}
			if match.FP8(v.ops[0]) && match.FP8(v.ops[1]) {
				o.Outcome, o.Why = TritonFP8, "the Triton GEMM fusion claims the dot on its FP8 operands first"
				if t.Flags.CublasFallback && fallback == CublasLtFP8 {
					o.Outcome, o.Fallback = Autotuned, fallback
					o.Why = "the Triton GEMM fusion claims the dot on its FP8 operands first; autotuning keeps that Triton GEMM (triton-fp8) " +
						"or, when cuBLAS is faster, inlines the dot back and the FP8 GEMM rewriter makes one FP8 call (cublaslt-fp8)"
				} else if t.Flags.CublasFallback {
					o.Fallback = fallback
				}
				return o
			}
			o.Outcome = TritonDequantized
			o.Why = "the Triton GEMM fusion claims the dot before the FP8 rewrite can, and multiplies dequantized " + computeType(dot, false) + " values: FP8 lost"
			if t.Flags.CublasFallback {
				o.Fallback = fallback
				o.Why += fmt.Sprintf(" (autotuning may still pick cuBLAS when it is faster: then the dot is inlined back and becomes %s%s)", fallback, why)
			}
			return o
		}
		o.Path = append(o.Path, "triton-gemm-rewriter leaves the dot: "+gf.why)
	}
	r, ok := fp8("cublas-gemm-rewriter (FP8)")
	if ok {
		o.Outcome, o.Why = CublasLtFP8, "the FP8 GEMM rewriter makes one FP8 call"
		return o
	}
	o.Outcome = PlainDot
	o.Why = "the FP8 rewrite fails and the non-FP8 GEMM rewriter makes a non-FP8 cuBLAS call"
	if r.f16 {
		o.Why = "the FP8 rewrite fails; HandleDot turns the FP8 dot into an f16 dot on converted operands, which becomes a non-FP8 cuBLAS call"
	}
	return o
}

// computeType names what a GEMM that does not use the FP8 values multiplies in.
func computeType(dot *hlo.Instruction, f16 bool) string {
	if f16 {
		return "f16"
	}
	return dot.Operand(0).Shape.Elem.String()
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
var OutcomeNames = []string{CublasLtFP8, TritonFP8, TritonDequantized, PlainDot, Autotuned}

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
