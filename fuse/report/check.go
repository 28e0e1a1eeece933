package report

import (
	"fmt"
	"sort"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse"
	"octet/fuse/match"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// Report lists the FP8 GEMMs of a module, typically one a compiler produced: the cuBLASLt FP8 calls
// it made, and every GEMM on FP8 data that did not become one.
type Report struct {
	Module  string  `json:"module"`
	GEMMs   []*GEMM `json:"gemms"`
	Fused   int     `json:"fused"`
	Unfused int     `json:"not_fused"`
	// Fusible counts the GEMMs not fused that octet fuse can fuse.
	Fusible int `json:"fusible"`
	// Native counts the fused GEMMs that are Triton GEMM fusions on FP8 operands (FP8 kept, no cuBLASLt
	// call); BlockScaled the block-scaled low-precision GEMMs (scaled-dot, MX and NVFP4 calls), which are
	// neither fused nor not fused in the FP8 sense.
	Native      int `json:"native_fp8,omitempty"`
	BlockScaled int `json:"block_scaled,omitempty"`
}

// GEMM is one FP8 GEMM of a module, fused or not: where it is, where its operands come from, and the call
// it is or why it is not one.
type GEMM struct {
	// Name is the instruction: the custom call, the dot, or the fusion that holds the dot (then Dot names
	// the dot inside it). Computation is where Name is.
	Name        string `json:"name"`
	Computation string `json:"computation"`
	Dot         string `json:"dot,omitempty"`
	// Kind is "cublas-fp8" for a fused call, "dot" for a plain dot, "gemm-fusion" for a dot inside a fusion
	// (a kCustom GEMM fusion such as __triton_gemm or gemm_fusion_dot) on dequantized data, "triton-fp8"
	// for a GEMM fusion whose dot reads the FP8 values themselves (fused natively, FP8 kept), "cublas" for a
	// cuBLAS call that is not the FP8 one, "block-scaled" for a scaled-dot or a block-scaled GEMM call
	// (MX or NVFP4 formats, scales per block of values), "ragged-dot" for a ragged-dot (a grouped GEMM, a
	// mixture of experts' layer), which XLA's FP8 rewrite does not take.
	Kind  string `json:"kind"`
	Fused bool   `json:"fused"`
	// The call, when fused: its target, operand form ("current" or "legacy"), and whether its configuration
	// was inferred because the module was printed without backend_config.
	Target   string `json:"target,omitempty"`
	ABI      string `json:"abi,omitempty"`
	Inferred bool   `json:"inferred_config,omitempty"`
	// A and B are where the operands come from.
	A *Operand `json:"a,omitempty"`
	B *Operand `json:"b,omitempty"`
	// The scales of a fused call, described ("%Arg_2.3.0 (parameter 2)", "constant 1").
	AScale string `json:"a_scale,omitempty"`
	BScale string `json:"b_scale,omitempty"`
	CScale string `json:"c_scale,omitempty"`
	DScale string `json:"d_scale,omitempty"`
	// Bias names the vector bias of a BIAS epilogue.
	Bias     string          `json:"bias,omitempty"`
	Epilogue cublas.Epilogue `json:"epilogue"`
	Damax    bool            `json:"damax"`
	DType    string          `json:"d_type"`
	// D is the shape of the result ("f8e4m3fn[32,128]").
	D     string  `json:"d"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	// Reason says why a GEMM is not fused; BlockedBy names the pattern that stopped it.
	Reason    string `json:"reason,omitempty"`
	BlockedBy string `json:"blocked_by,omitempty"`
	// Fusible says, for a plain dot, whether octet fuse makes it one FP8 call; FuseNote says how or why not.
	Fusible  *bool  `json:"fusible,omitempty"`
	FuseNote string `json:"fuse,omitempty"`
	// Absorbed names the instructions (without %) the call octet fuse makes of a plain dot computes besides
	// the dot; BlockedAt those that stop octet fuse from fusing it.
	Absorbed  []string `json:"absorbed,omitempty"`
	BlockedAt []string `json:"blocked_at,omitempty"`
	// XLA is what XLA's GEMM rewriter does with the GEMM as the module stands (package xlarules), Octet
	// what octet fuse does; for a fused call both say it is one.
	XLA   xlarules.Verdict `json:"xla"`
	Octet fuse.Verdict     `json:"octet"`
	// Block is XLA's verdict on a block-scaled GEMM (Kind "block-scaled"): seen or inferred, made or not,
	// and the rule (see blockscaled.go).
	Block *xlarules.BlockScaled `json:"block_scaled,omitempty"`
	// Explain holds the details, one line each.
	Explain []string `json:"explain,omitempty"`
	// Key names the GEMM for a reader: its operands' sources and shapes and its contracting size k.
	Key string `json:"key"`
	// Flow is the GEMM's dataflow fingerprint (see Diff): what its FP8 sources are computed from,
	// independent of names, instruction order and parameter numbering.
	Flow string `json:"flow"`
	// OpName is the op_name of the GEMM's metadata, when it has one; Source says where the GEMM came
	// from (op_name, source file and line, stack frames: fuse.Provenance).
	OpName string `json:"op_name,omitempty"`
	Source string `json:"source,omitempty"`

	// inst is the instruction whose value the GEMM is (the call, the dot, or the fusion that holds the
	// dot); src are the FP8 sources of A and B (the operand itself when none); local is Key without
	// parameter numbers; flow is Flow as a number, once computed.
	inst  *hlo.Instruction
	meta  *hlo.Instruction // the instruction whose metadata says where the GEMM came from
	src   [2]*hlo.Instruction
	local string
	flow  uint64
	// What else tells GEMMs on the same FP8 sources apart, the same for a dot and the call octet fuse
	// makes of it: scales are the scalars the dequantizes of A and B multiply by (divide by, where
	// inverse), nil for none or 1; final is the instruction that holds the GEMM's result, its epilogue
	// included (what the GEMM's users read); call describes the call it is or octet fuse would make ("" for
	// neither). keys are the pairing keys fingerprint derives from them (see Diff).
	scales  [2]*hlo.Instruction
	inverse [2]bool
	final   *hlo.Instruction
	call    string
	keys    pairKeys
}

// Instruction returns the instruction the GEMM is (the call, the dot, or the fusion that holds the dot) in
// the module Check read, or nil for a GEMM that was not made by Check (one decoded from JSON).
func (g *GEMM) Instruction() *hlo.Instruction { return g.inst }

// Operand is where one GEMM operand comes from.
type Operand struct {
	// Source is the FP8 value ("%Arg_0.1.0"), Type and Shape its type ("f8e4m3fn[32,64]").
	Source string `json:"source"`
	Shape  string `json:"shape"`
	// Parameter is the entry parameter the FP8 value is, or -1.
	Parameter int64 `json:"parameter"`
	// Via describes the way from it to the GEMM.
	Via string `json:"via,omitempty"`
}

// Check finds the FP8 GEMMs of m: every __cublas$lt$matmul$f8 call (in both operand forms, with or without
// backend_config), and every dot, ragged-dot or other cuBLAS call whose operands trace back to FP8 values, through
// fusions, tuples, bitcasts, slices and concatenations, which it reports as not fused with the reason.
// XLA's verdicts are for the newest XLA on sm_90 (CheckFor chooses).
func Check(m *hlo.Module) *Report { return CheckFor(m, xlarules.DefaultTarget()) }

// CheckFor is Check with XLA's verdicts for target: its release, GPU and flags. For a module before
// optimization, every plain dot's XLA verdict also predicts what each modelled XLA release makes of it in
// a full compile on target's GPU (xlarules.Verdict.Compile).
func CheckFor(m *hlo.Module, target xlarules.Target) *Report {
	r, _ := check(m, target, false)
	return r
}

// check is CheckFor, also returning the steps it took (instructions visited, values fingerprinted, names
// looked up), which grow linearly with the module: nothing is searched for once per GEMM. With asIs, no
// GEMM's verdict predicts compiles (xlarules.DecideAsIs).
func check(m *hlo.Module, target xlarules.Target, asIs bool) (*Report, int64) {
	t := newTracer(m)
	t.target, t.asIs = target, asIs
	r := &Report{Module: m.Name}
	fusedComp := m.FusionComputations()
	// What octet fuse would do with each plain dot is the rewrite's own decision, by computation and dot.
	decisions := map[[2]string]*fuse.Decision{}
	for _, d := range fuse.AnalyzeOctet(m).Decisions {
		decisions[[2]string{d.Computation, d.Dot}] = d
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			t.steps++
			var f *GEMM
			if in.Opcode == hlo.OpDot {
				f = t.blockDot(in)
			}
			switch {
			case f != nil:
			case in.Opcode == hlo.OpCustomCall && in.CustomCallTarget() == cublas.TargetF8:
				f = t.fusedCall(in)
			case in.Opcode == hlo.OpCustomCall && cublas.IsTarget(in.CustomCallTarget()):
				f = t.otherCall(in)
			case isBlockScaled(in):
				f = t.blockScaledGEMM(in)
			case in.Opcode == hlo.OpRaggedDot:
				f = t.raggedDot(in)
			case in.Opcode == hlo.OpDot && fusedComp[c]:
				f = t.fusedDot(in)
			case in.Opcode == hlo.OpDot:
				f = t.plainDot(in, decisions[[2]string{c.Name, in.Name}])
			}
			if f == nil {
				continue
			}
			r.GEMMs = append(r.GEMMs, f)
			switch {
			case f.Kind == "block-scaled":
				r.BlockScaled++
			case f.Fused:
				r.Fused++
				if f.Kind == "triton-fp8" {
					r.Native++
				}
			default:
				r.Unfused++
				if f.Fusible != nil && *f.Fusible {
					r.Fusible++
				}
			}
		}
	}
	numberKeys(r.GEMMs)
	fingerprint(m, r, decisions, t)
	for _, g := range r.GEMMs {
		g.OpName = opName(g)
		g.Source = fuse.Provenance(g.meta)
	}
	return r, t.steps
}

// numberKeys makes keys unique by numbering repeats in module order.
func numberKeys(gs []*GEMM) {
	seen := map[string]int{}
	for _, g := range gs {
		seen[g.Key]++
		if n := seen[g.Key]; n > 1 {
			g.Key = fmt.Sprintf("%s #%d", g.Key, n)
		}
	}
}

// origin follows an FP8 value up through ops that keep it FP8 and move it (transposes, bitcasts, copies,
// fusion boundaries) to where it comes from, usually an entry parameter.
func (t *tracer) origin(x *hlo.Instruction) *hlo.Instruction {
	for i := 0; i < traceDepth; i++ {
		t.steps++
		var next *hlo.Instruction
		switch x.Opcode {
		case hlo.OpParameter:
			if f := t.callerOf(x.Parent); f != nil && int(x.ParameterNumber) < f.NumOperands() {
				next = f.Operand(int(x.ParameterNumber))
			}
		case hlo.OpFusion:
			if c := x.CalledComputation("calls"); c != nil && c.Root != nil && !c.Root.Shape.IsTuple() {
				next = c.Root
			}
		case hlo.OpGetTupleElement:
			idx, _ := x.Int("index")
			if src := x.Operand(0); src.Opcode == hlo.OpFusion {
				if c := src.CalledComputation("calls"); c != nil && c.Root != nil && c.Root.Opcode == hlo.OpTuple &&
					int(idx) < c.Root.NumOperands() {
					next = c.Root.Operand(int(idx))
				}
			}
		case hlo.OpTranspose, hlo.OpBitcast, hlo.OpCopy, hlo.OpReshape, hlo.OpPad, hlo.OpSlice, hlo.OpDynamicSlice,
			hlo.OpBroadcast:
			// Data movement, including what a fused call replays on its FP8 operands and the padding to
			// multiples of 16. The slice and reshape that bring a call's padded, canonical D back to the
			// value it replaced (callResults) are that value: a next GEMM reads them, not the padded D.
			switch y := x.Operand(0); {
			case x.Opcode == hlo.OpSlice && gemmCallResult(y),
				x.Opcode == hlo.OpReshape && (gemmCallResult(y) || y.Opcode == hlo.OpSlice && gemmCallResult(y.Operand(0))):
				return x
			}
			next = x.Operand(0)
		case hlo.OpSelect:
			// A select against zero, which a fused call replays on its FP8 operand too: the value selected.
			if x.NumOperands() == 3 {
				switch a, b := x.Operand(1), x.Operand(2); {
				case match.IsZero(b) && !match.IsZero(a):
					next = a
				case match.IsZero(a) && !match.IsZero(b):
					next = b
				}
			}
		}
		if next == nil || next.Shape.Elem != x.Shape.Elem {
			return x
		}
		x = next
	}
	return x
}

// gemmCallResult reports whether x is the D of a cuBLAS GEMM call: the call, or element 0 of its tuple.
func gemmCallResult(x *hlo.Instruction) bool {
	if x.Opcode == hlo.OpGetTupleElement {
		if idx, _ := x.Int("index"); idx != 0 {
			return false
		}
		x = x.Operand(0)
	}
	return x.Opcode == hlo.OpCustomCall && cublas.IsTarget(x.CustomCallTarget())
}

func (t *tracer) operand(x *hlo.Instruction, via string) *Operand {
	o := t.origin(x)
	op := &Operand{Source: "%" + o.Name, Shape: o.Shape.Elem.String() + "[" + hlo.JoinInts(o.Shape.Dims) + "]", Parameter: -1, Via: via}
	if o.Opcode == hlo.OpParameter && o.Parent == o.Parent.Module.Entry {
		op.Parameter = o.ParameterNumber
	}
	return op
}

// key names a GEMM by its operands (entry parameters, or the shapes of the FP8 values when they are
// computed) and its contracting size k, the two sides in a fixed order; local is the same without the
// parameter numbers.
func key(a, b *Operand, k int64) (name, local string) {
	side := func(o *Operand, numbered bool) string {
		if o == nil {
			return "?"
		}
		if o.Parameter >= 0 && numbered {
			return fmt.Sprintf("p%d:%s", o.Parameter, o.Shape)
		}
		return o.Shape
	}
	ks := []string{side(a, true), side(b, true)}
	sort.Strings(ks)
	ls := []string{side(a, false), side(b, false)}
	sort.Strings(ls)
	return fmt.Sprintf("%s x %s, k=%d", ks[0], ks[1], k), fmt.Sprintf("%s x %s, k=%d", ls[0], ls[1], k)
}

// contractingSize is the product of the dimensions dims of x, looking through the pad that rounds an FP8
// call's operand up to a multiple of 16.
func contractingSize(x *hlo.Instruction, dims []int64) int64 {
	if x.Opcode == hlo.OpPad {
		x = x.Operand(0)
	}
	k := int64(1)
	for _, d := range dims {
		if int(d) < x.Shape.Rank() {
			k *= x.Shape.Dims[d]
		}
	}
	return k
}

// fusedCall describes a __cublas$lt$matmul$f8 call.
func (t *tracer) fusedCall(in *hlo.Instruction) *GEMM {
	f := &GEMM{Name: in.Name, Computation: in.Parent.Name, Kind: "cublas-fp8", Fused: true, Target: cublas.TargetF8,
		Epilogue: cublas.EpilogueDefault, Alpha: 1}
	call, err := cublas.Decode(in)
	if err != nil {
		f.Fused = false
		f.Reason = "the call does not decode: " + err.Error()
		f.Explain = append(f.Explain, f.Reason)
		if in.NumOperands() >= 2 {
			f.A, f.B = t.operand(in.Operand(0), ""), t.operand(in.Operand(1), "")
		}
		f.Key, f.local = key(f.A, f.B, 0)
		f.inst, f.meta = in, in
		return f
	}
	cfg := call.Config
	f.ABI = "current"
	if call.Legacy {
		f.ABI = "legacy"
	}
	f.Inferred = call.Inferred
	f.A, f.B = t.operand(call.A, ""), t.operand(call.B, "")
	scale := func(x *hlo.Instruction) string {
		if x == nil {
			return ""
		}
		return describeValue(t.scalarSource(x))
	}
	f.AScale, f.BScale, f.CScale, f.DScale = scale(call.AScale), scale(call.BScale), scale(call.CScale), scale(call.DScale)
	if call.Bias != nil {
		f.Bias = describeValue(call.Bias)
	}
	f.Epilogue, f.Damax, f.DType, f.Alpha, f.Beta = cfg.Epilogue, call.HasAmax, call.DType.String(), cfg.AlphaReal, cfg.Beta
	f.D = call.DType.String() + "[" + hlo.JoinInts(call.D.Dims) + "]"
	if f.Epilogue == "" {
		f.Epilogue = cublas.EpilogueDefault
	}
	form := "operands a, b, [c], a_scale, b_scale, [bias], [d_scale]"
	if call.Legacy {
		form = "the legacy six-scalar operand form a, b, a_scale, b_scale, c_scale, d_scale"
	}
	f.Explain = append(f.Explain, fmt.Sprintf("%s with %s", cublas.TargetF8, form))
	if call.Inferred {
		f.Explain = append(f.Explain, "printed without backend_config: the dimension numbers are inferred from the operand shapes "+
			fmt.Sprintf("(A %s%s and B %s%s both contract their last dimension), with alpha 1, beta 0 and the %s epilogue",
				call.A.Shape.Elem, "["+hlo.JoinInts(call.A.Shape.Dims)+"]", call.B.Shape.Elem, "["+hlo.JoinInts(call.B.Shape.Dims)+"]", f.Epilogue))
	}
	f.Explain = append(f.Explain, fmt.Sprintf("D %s%s = A %s (%s) x B %s (%s)", call.DType, "["+hlo.JoinInts(call.D.Dims)+"]",
		shapeOf(call.A), f.A.Source, shapeOf(call.B), f.B.Source))
	scales := []string{"a_scale=" + f.AScale, "b_scale=" + f.BScale}
	if f.CScale != "" {
		scales = append(scales, "c_scale="+f.CScale)
	}
	if f.DScale != "" {
		scales = append(scales, "d_scale="+f.DScale)
	}
	f.Explain = append(f.Explain, "scales: "+strings.Join(scales, ", "))
	f.Key, f.local = key(f.A, f.B, contractingSize(call.A, cfg.LhsContracting))
	f.inst, f.meta, f.src = in, in, [2]*hlo.Instruction{t.origin(call.A), t.origin(call.B)}
	f.scales[0], f.inverse[0] = t.scaleOf(call.AScale)
	f.scales[1], f.inverse[1] = t.scaleOf(call.BScale)
	f.final = callResult(in)
	f.call = callText(f.Epilogue, f.Damax, f.DType, f.Alpha, f.Beta)
	f.XLA = t.shown(true, "the module holds the "+cublas.TargetF8+" call")
	if err := fp8Types(call); err != nil {
		f.XLA.Bug = fmt.Sprintf("the call is outside cuBLASLt's FP8 type table: %v; no cuBLASLt algorithm runs it", err)
		f.Explain = append(f.Explain, f.XLA.Bug)
	}
	f.Octet = fuse.Verdict{Fusible: true, Why: "already one " + cublas.TargetF8 + " call"}
	return f
}

// shown is XLA's verdict on a GEMM whose form the module shows (a call, or a dot in a fusion): what the
// module holds, not a rule applied.
func (t *tracer) shown(fusible bool, why string) xlarules.Verdict {
	return xlarules.Verdict{Fusible: fusible, Why: why, Rule: "what the module shows", Assumes: t.target.Assumes()}
}

// scaleOf returns the scalar a scale comes from, and whether the scale is its reciprocal (1/s, as octet
// fuse makes a scale that divides); nil for a scale of 1, which is no scale.
func (t *tracer) scaleOf(x *hlo.Instruction) (*hlo.Instruction, bool) {
	if x == nil {
		return nil, false
	}
	x = t.scalarSource(x)
	if x.Opcode == hlo.OpDivide && x.Shape.IsScalar() && isOne(t.scalarSource(x.Operand(0))) {
		return t.scalarSource(x.Operand(1)), true
	}
	if isOne(x) {
		return nil, false
	}
	return x, false
}

// isOne reports whether x is the scalar constant 1.
func isOne(x *hlo.Instruction) bool {
	if x.Opcode != hlo.OpConstant || !x.Shape.IsScalar() || x.Literal == nil {
		return false
	}
	v, ok := x.Literal.Float(0)
	return ok && v == 1
}

// callResult returns the instruction that holds a call's D where the value it replaced was: its
// get-tuple-element, and the slice from 0 and the reshape that bring the padded, canonical D back (octet
// fuse's form); the call itself when it returns D alone.
func callResult(call *hlo.Instruction) *hlo.Instruction {
	if !call.Shape.IsTuple() {
		return call
	}
	var v *hlo.Instruction
	for _, u := range call.Users() {
		if idx, _ := u.Int("index"); u.Opcode == hlo.OpGetTupleElement && idx == 0 {
			v = u
			break
		}
	}
	if v == nil {
		return call
	}
	for _, op := range []hlo.Opcode{hlo.OpSlice, hlo.OpReshape} {
		if len(v.Users()) == 1 && v.Users()[0].Opcode == op && (op != hlo.OpSlice || fromZero(v.Users()[0])) {
			v = v.Users()[0]
		}
	}
	return v
}

// callText describes what a call computes beyond its operands, for pairing.
func callText(e cublas.Epilogue, damax bool, d string, alpha, beta float64) string {
	return fmt.Sprintf("%s damax=%v D=%s alpha=%v beta=%v", e, damax, d, alpha, beta)
}

// fp8Types checks a decoded FP8 call against cuBLASLt's type table.
func fp8Types(call *cublas.Call) error {
	elem := func(x *hlo.Instruction) dtype.Type {
		if x == nil {
			return dtype.Invalid
		}
		return x.Shape.Elem
	}
	return cublas.CheckFP8Types(call.A.Shape.Elem, call.B.Shape.Elem, elem(call.C), call.DType, elem(call.Bias))
}

func shapeOf(x *hlo.Instruction) string {
	return x.Shape.Elem.String() + "[" + hlo.JoinInts(x.Shape.Dims) + "]"
}

// otherCall reports a cuBLAS call that is not the FP8 one when its operands are dequantized FP8 data.
func (t *tracer) otherCall(in *hlo.Instruction) *GEMM {
	if in.NumOperands() < 2 {
		return nil
	}
	a, b := t.trace(in.Operand(0)), t.trace(in.Operand(1))
	if a == nil && b == nil {
		return nil
	}
	f := t.unfused(in, in, "cublas", a, b)
	f.Reason = fmt.Sprintf("%s computes in %s on dequantized FP8 data instead of %s", in.CustomCallTarget(),
		in.Operand(0).Shape.Elem, cublas.TargetF8)
	f.XLA = t.shown(false, fmt.Sprintf("the GEMM rewriter made the non-FP8 call %s of it: its FP8 pattern did not "+
		"match the dot it saw", in.CustomCallTarget()))
	f.Octet = fuse.Verdict{Why: "octet fuse rewrites dots, not cuBLAS calls"}
	return f
}

// fusedDot reports a dot inside a fusion whose operands trace back to FP8 values.
func (t *tracer) fusedDot(dot *hlo.Instruction) *GEMM {
	a, b := t.trace(dot.Operand(0)), t.trace(dot.Operand(1))
	if a == nil && b == nil {
		return nil
	}
	holder := t.fusionOf(dot.Parent)
	if holder == nil {
		return nil
	}
	if match.FP8(dot.Operand(0)) && match.FP8(dot.Operand(1)) && holder.Str("kind") == "kCustom" {
		return t.nativeDot(dot, holder, a, b)
	}
	f := t.unfused(holder, dot, "gemm-fusion", a, b)
	kind := holder.Str("kind")
	f.Reason = fmt.Sprintf("the dot %%%s computes in %s x %s inside the %s fusion %%%s (%%%s) instead of %s",
		dot.Name, dot.Operand(0).Shape.Elem, dot.Operand(1).Shape.Elem, kind, holder.Name, dot.Parent.Name, cublas.TargetF8)
	if !match.FP8(dot.Operand(0)) || !match.FP8(dot.Operand(1)) {
		f.Reason += ", on dequantized FP8 data"
	}
	f.Explain = append(f.Explain, t.after(dot, holder)...)
	f.XLA = t.shown(false, fmt.Sprintf("the dot is inside the %s fusion %%%s: XLA's GEMM rewriter rewrites dots "+
		"outside fusions only", kind, holder.Name))
	f.Octet = fuse.Verdict{Why: "octet fuse does not rewrite inside fusion computations"}
	return f
}

// nativeDot reports a GEMM fusion whose dot reads FP8 values as they are: fused natively (a Triton GEMM on
// FP8 data), with no cuBLASLt call and no dequantize before it.
func (t *tracer) nativeDot(dot, holder *hlo.Instruction, a, b *side) *GEMM {
	f := t.unfused(holder, dot, "triton-fp8", a, b)
	f.Fused = true
	f.Target = "kCustom fusion, FP8 operands"
	f.Explain = append(f.Explain, fmt.Sprintf("the fusion %%%s computes the dot %%%s on FP8 operands (%s x %s) itself: fused natively, FP8 kept",
		holder.Name, dot.Name, dot.Operand(0).Shape.Elem, dot.Operand(1).Shape.Elem))
	f.XLA = t.shown(true, "fused natively: the GEMM fusion reads the FP8 values")
	f.Octet = fuse.Verdict{Fusible: true, Why: "already an FP8 GEMM (in a fusion, FP8 kept)"}
	return f
}

// plainDot reports a dot outside fusions with an FP8 value among its operand chains, with what octet
// fuse would do with it: d is the rewrite's decision, nil when the rewrite finds no FP8 value in reach.
func (t *tracer) plainDot(dot *hlo.Instruction, d *fuse.Decision) *GEMM {
	a, b := t.trace(dot.Operand(0)), t.trace(dot.Operand(1))
	if d == nil && a == nil && b == nil {
		return nil
	}
	f := t.unfused(dot, dot, "dot", a, b)
	f.Reason = fmt.Sprintf("a plain dot computing %s x %s -> %s: no FP8 GEMM call was made for it "+
		"(the module has not been through a GEMM rewrite, or the rewriter left the dot)",
		dot.Operand(0).Shape.Elem, dot.Operand(1).Shape.Elem, dot.Shape.Elem)
	yes := d != nil && d.Fused
	f.Fusible = &yes
	if yes {
		// What the call octet fuse would make computes and where its result goes, as for a fused call.
		f.call = callText(d.Epilogue, d.Damax, d.DType, d.Alpha, d.Beta)
		if last := t.lookup(dot.Parent, d.Replaces); last != nil {
			f.final = last
		}
	}
	switch {
	case yes:
		f.Absorbed = d.Absorbed
		f.FuseNote = fmt.Sprintf("octet fuse makes it one %s: epilogue %s, D %s, alpha %v, beta %v%s", cublas.TargetF8,
			d.Epilogue, d.DType, d.Alpha, d.Beta, map[bool]string{true: ", with damax", false: ""}[d.Damax])
		if len(d.Absorbed) > 0 {
			var names []string
			for _, name := range d.Absorbed {
				names = append(names, "%"+name)
			}
			if len(names) > 4 {
				names = append(names[:3], fmt.Sprintf("... (%d instructions)", len(names)))
			}
			f.FuseNote += ", absorbing " + strings.Join(names, ", ")
		}
	case d != nil:
		f.FuseNote = "octet fuse cannot fuse it either: " + d.Reason
		f.BlockedBy, f.BlockedAt = d.Reason, d.At
	default:
		f.FuseNote = "octet fuse cannot fuse it: its operands reach FP8 values only through other computations"
	}
	if d != nil {
		f.Explain = append(f.Explain, d.Matched...)
		f.Octet = d.Octet
	} else {
		f.Octet = fuse.Verdict{Why: f.FuseNote}
	}
	if t.optimized || t.asIs {
		// The module has been through XLA's passes: a compile of it is not what a user asks about. Or
		// the caller asks for the verdicts as the module stands alone.
		f.XLA = xlarules.DecideAsIs(dot, t.target)
	} else {
		f.XLA = xlarules.DecideFor(dot, t.target)
	}
	f.Explain = append(f.Explain, f.FuseNote)
	return f
}

// newGEMM makes the GEMM that the instruction gemm, held by holder (the fusion around it, or gemm itself),
// computes, with the DEFAULT epilogue, alpha 1 and D the result (the first of a tuple).
func newGEMM(holder, gemm *hlo.Instruction, kind string) *GEMM {
	f := &GEMM{Name: holder.Name, Computation: holder.Parent.Name, Kind: kind, Epilogue: cublas.EpilogueDefault,
		DType: gemm.Shape.Elem.String(), D: shapeOf(gemm), Alpha: 1}
	if gemm.Shape.IsTuple() && len(gemm.Shape.Tuple) > 0 {
		f.DType = gemm.Shape.Tuple[0].Elem.String()
		f.D = f.DType + "[" + hlo.JoinInts(gemm.Shape.Tuple[0].Dims) + "]"
	}
	if gemm != holder {
		f.Dot = gemm.Name
	}
	return f
}

// unfused fills what every GEMM that is not fused reports: its operands, and the pattern that blocked it.
func (t *tracer) unfused(holder, gemm *hlo.Instruction, kind string, a, b *side) *GEMM {
	f := newGEMM(holder, gemm, kind)
	sides := []*side{a, b}
	ops := []*Operand{nil, nil}
	f.inst, f.meta, f.final = holder, gemm, holder
	for i, s := range sides {
		if s == nil {
			x := gemm.Operand(i)
			f.src[i] = t.origin(x) // out of a fusion, as an FP8 side's source is
			ops[i] = &Operand{Source: "%" + x.Name, Shape: shapeOf(x), Parameter: -1, Via: "no FP8 value behind it"}
			f.Explain = append(f.Explain, fmt.Sprintf("%s: %s %%%s, with no FP8 value behind it", sideName(i), shapeOf(x), x.Name))
			continue
		}
		ops[i] = t.operand(s.fp8, t.describe(s))
		f.src[i] = t.origin(s.fp8)
		if s.scale != nil {
			f.scales[i], f.inverse[i] = t.scaleOf(s.scale)
			f.inverse[i] = f.inverse[i] != s.Divide
		}
		f.Explain = append(f.Explain, fmt.Sprintf("%s: %s", sideName(i), ops[i].Via))
	}
	f.A, f.B = ops[0], ops[1]
	k := int64(0)
	if gemm.Opcode == hlo.OpDot || gemm.Opcode == hlo.OpRaggedDot {
		k = contractingSize(gemm.Operand(0), gemm.Ints("lhs_contracting_dims"))
	} else if call, err := cublas.Decode(gemm); err == nil {
		k = contractingSize(call.A, call.Config.LhsContracting)
	}
	f.Key, f.local = key(f.A, f.B, k)
	if kind != "dot" && kind != "triton-fp8" && kind != "ragged-dot" {
		var lines []string
		f.BlockedBy, lines = t.diagnose(gemm, holder, kind, sides)
		f.Explain = append(f.Explain, lines...)
	}
	return f
}

// laterPass reports whether an op on the way from a dequantize to a GEMM of an optimized module cannot be
// why the FP8 rewrite failed: the fusion boundaries and tuples the fusion passes make (they run after the
// GEMM rewriter, which itself runs after layout assignment, in OptimizeHloPostLayoutAssignment), the
// concatenate and slices of a horizontal input fusion, and the ops XLA's FP8 matcher looks through
// (bitcast, copy, slice, transpose, ...). A concatenate of the module's own, outside such a fusion, is a
// cause: the matcher does not look through it.
func (t *tracer) laterPass(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpGetTupleElement, hlo.OpTuple, hlo.OpFusion:
		return true
	case hlo.OpConcatenate:
		return t.horizontalConcat(in)
	case hlo.OpSlice:
		if in.Operand(0).Opcode == hlo.OpConcatenate && t.horizontalConcat(in.Operand(0)) {
			return true
		}
	}
	return xlarules.Commutes(in, t.target.Release)
}

// horizontalConcat reports whether a concatenate is the one horizontal input fusion makes: inside a fusion
// computation, read only by slices.
func (t *tracer) horizontalConcat(cat *hlo.Instruction) bool {
	if t.fusionOf(cat.Parent) == nil || len(cat.Users()) == 0 {
		return false
	}
	for _, u := range cat.Users() {
		if u.Opcode != hlo.OpSlice {
			return false
		}
	}
	return true
}

// xlaForm reports whether a side's dequantize, as the module shows it, has the form XLA's FP8 pattern
// accepts: one convert right after the FP8 value, then at most one multiply or divide by a broadcast
// scalar right after the convert (fusion boundaries aside).
func xlaForm(s *side) bool {
	if len(s.Converts) != 1 {
		return false
	}
	var ops []*hlo.Instruction
	for _, in := range s.path {
		if in.Opcode != hlo.OpParameter && in.Opcode != hlo.OpFusion && in.Opcode != hlo.OpGetTupleElement {
			ops = append(ops, in)
		}
	}
	if len(ops) == 0 || ops[0] != s.Converts[0] {
		return false
	}
	return s.Scale == nil || len(ops) > 1 && ops[1] == s.Scale
}

// dequantizeText says in words what a side's dequantize is: "convert to bf16, multiply by a scalar in bf16".
func dequantizeText(s *side) string {
	var parts []string
	for _, in := range s.path {
		switch {
		case in == s.Scale:
			verb := "multiply"
			if s.Divide {
				verb = "divide"
			}
			parts = append(parts, fmt.Sprintf("%s by a scalar in %s", verb, s.Scale.Shape.Elem))
		case in.Opcode == hlo.OpConvert:
			parts = append(parts, "convert to "+in.Shape.Elem.String())
		}
	}
	if len(parts) == 0 {
		return "no convert"
	}
	return strings.Join(parts, ", ")
}

// diagnose explains why a GEMM of an optimized module is not an FP8 call, keeping what the module shows
// apart from what it implies and from the likely causes, and gives the next steps. It returns the one-line
// cause that the module shows (the blocked_by field) and the explanation lines.
func (t *tracer) diagnose(gemm, holder *hlo.Instruction, kind string, sides []*side) (string, []string) {
	var seen string
	switch kind {
	case "gemm-fusion":
		what := "GEMM fusion"
		if triton(holder) {
			what = "Triton GEMM fusion"
		}
		seen = fmt.Sprintf("the dot %%%s was claimed by the %s %%%s as %s x %s", gemm.Name, what, holder.Name,
			gemm.Operand(0).Shape.Elem, gemm.Operand(1).Shape.Elem)
	default:
		seen = fmt.Sprintf("the GEMM became %s %%%s computing %s x %s", gemm.CustomCallTarget(), gemm.Name,
			gemm.Operand(0).Shape.Elem, gemm.Operand(1).Shape.Elem)
	}
	if !match.FP8(gemm.Operand(0)) || !match.FP8(gemm.Operand(1)) {
		seen += " on dequantized FP8 data"
	}
	lines := []string{"seen: " + seen}
	accepted, stopped := true, false
	for i, s := range sides {
		if s == nil {
			accepted = false
			continue
		}
		var stop *hlo.Instruction
		for _, in := range s.path {
			if in == s.Scale || in.Opcode == hlo.OpConvert || t.laterPass(in) {
				continue
			}
			stop = in
			break
		}
		switch {
		case stop != nil:
			stopped, accepted = true, false
			lines = append(lines, fmt.Sprintf("seen: %s %%%s%s lies between the dequantize of %s and the GEMM, and XLA's FP8 "+
				"pattern does not look through it", stop.Opcode, stop.Name, t.where(stop), sideName(i)))
		case xlaForm(s):
			lines = append(lines, fmt.Sprintf("seen: %s is dequantized by %s, a form XLA's FP8 pattern accepts", sideName(i), dequantizeText(s)))
		default:
			accepted = false
			lines = append(lines, fmt.Sprintf("seen: %s is dequantized by %s, which XLA's FP8 pattern does not accept "+
				"(one convert right after the FP8 value, then at most one scalar scale)", sideName(i), dequantizeText(s)))
		}
	}
	if !stopped {
		lines = append(lines, "not a cause: the fusion boundaries and tuples between the dequantize and the GEMM (and a horizontal "+
			"fusion's concatenate and slices) are made by the fusion passes, which run after the GEMM rewriter; the bitcasts, "+
			"copies and slices are ops XLA's FP8 pattern looks through")
	}
	if accepted {
		lines = append(lines, "implies: the module shows the dot after the passes, not what the FP8 GEMM rewriter "+
			"(cublas-gemm-rewriter) saw; when it ran, the dequantize had another form, or the dot was already taken")
		switch {
		case kind == "gemm-fusion" && !t.target.Release.FP8First():
			lines = append(lines, fmt.Sprintf("likely (inferred from gpu_compiler.cc's pass order for XLA %s, not shown here): the Triton "+
				"GEMM fusion (triton-gemm-rewriter) runs before the FP8 rewrite and claimed the dot first, and autotuning kept "+
				"the Triton GEMM", t.target.Release.Name))
		case kind == "gemm-fusion":
			lines = append(lines, fmt.Sprintf("likely (inferred, not shown here): in XLA %s the FP8 rewrite runs before the Triton GEMM "+
				"fusion, so it refused the dot as it then stood: its types (GemmIsSupportedByCublasLt), its size, or a dequantize "+
				"of another form", t.target.Release.Name))
		default:
			lines = append(lines, "likely (inferred, not shown here): the FP8 rewrite refused the dot as it then stood: its types "+
				"(GemmIsSupportedByCublasLt) or its size; or, after the GEMM fusion autotuner chose cuBLAS, float normalization "+
				"(before Hopper, a bf16 scale multiply is computed in f32 between converts) had changed the dequantize")
		}
	}
	lines = append(lines, "next: dump the passes with XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_pass_re=cublas-gemm-rewriter|"+
		"triton-gemm-rewriter|gemv-rewriter|float-normalization.*|algsimp' and run octet check DIR, which names the pass; run "+
		"octet check on the module before optimization, which predicts what each XLA release makes of the dot and which flags "+
		"change it; retry with XLA_FLAGS=--xla_gpu_enable_triton_gemm=false")
	return seen, lines
}

// triton reports whether a fusion is a Triton GEMM fusion: its backend_config or its name says so.
func triton(f *hlo.Instruction) bool {
	if bc := f.BackendConfig(); bc != nil && (strings.Contains(bc.Text, "__triton_gemm") || strings.Contains(bc.Text, "triton")) {
		return true
	}
	return strings.Contains(f.Name, "triton") || strings.HasPrefix(f.Name, "gemm_fusion")
}

// after describes what a GEMM fusion computes after its dot, and what its users do with the result.
func (t *tracer) after(dot, holder *hlo.Instruction) []string {
	var ops []string
	for v := dot; len(v.Users()) == 1 && !v.IsRoot(); {
		u := v.Users()[0]
		what := fmt.Sprintf("%s %%%s", u.Opcode, u.Name)
		if u.Opcode == hlo.OpMultiply || u.Opcode == hlo.OpDivide {
			for _, o := range u.Operands() {
				if o.Opcode == hlo.OpBroadcast && o.Operand(0).Shape.IsScalar() {
					what += " by " + describeValue(t.scalarSource(o.Operand(0)))
				}
			}
		}
		ops = append(ops, what)
		v = u
	}
	var lines []string
	if len(ops) > 0 {
		lines = append(lines, fmt.Sprintf("after the dot, in %s in %%%s: %s", dot.Shape.Elem, holder.Name, strings.Join(ops, ", ")))
	}
	for _, u := range holder.Users() {
		if u.Opcode != hlo.OpFusion {
			continue
		}
		c := u.CalledComputation("calls")
		if c == nil || c.Root == nil {
			continue
		}
		root := c.Root
		if root.Opcode == hlo.OpConvert && match.FP8(root) {
			what := fmt.Sprintf("the result is converted to %s in %%%s", root.Shape.Elem, u.Name)
			for _, in := range c.Instructions {
				if in.Opcode == hlo.OpClamp {
					what += fmt.Sprintf(" after clamp %%%s", in.Name)
				}
			}
			lines = append(lines, what)
		}
	}
	return lines
}

// sideName names operand i of a GEMM as cuBLAS does: A or B.
func sideName(i int) string {
	if i == 0 {
		return "A"
	}
	return "B"
}

// Outcome names what the module shows the GEMM became, in the terms of xlarules' compile predictions:
// "cublaslt-fp8" (an FP8 call), "triton-fp8" (a GEMM fusion on the FP8 values), "triton-dequantized" (a
// GEMM fusion on dequantized values), "dot" (a plain dot or a non-FP8 cuBLAS call), or "" (block-scaled).
func (g *GEMM) Outcome() string {
	switch g.Kind {
	case "cublas-fp8":
		return xlarules.CublasLtFP8
	case "triton-fp8":
		return xlarules.TritonFP8
	case "gemm-fusion":
		return xlarules.TritonDequantized
	case "dot", "cublas":
		return xlarules.PlainDot
	}
	return ""
}
