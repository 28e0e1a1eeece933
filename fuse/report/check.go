package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse"
	"octet/fuse/match"
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
}

// GEMM is one FP8 GEMM of a module, fused or not: where it is, where its operands come from, and the call
// it is or why it is not one.
type GEMM struct {
	// Name is the instruction: the custom call, the dot, or the fusion that holds the dot (then Dot names
	// the dot inside it). Computation is where Name is.
	Name        string `json:"name"`
	Computation string `json:"computation"`
	Dot         string `json:"dot,omitempty"`
	// Location is the source the GEMM comes from, "file:line" from its metadata (source_file and
	// source_line, which JAX and StableHLO's locations give), when the module says.
	Location string `json:"location,omitempty"`
	// Kind is "cublas-fp8" for a fused call, "dot" for a plain dot, "gemm-fusion" for a dot inside a fusion
	// (a kCustom GEMM fusion such as __triton_gemm or gemm_fusion_dot), "cublas" for a cuBLAS call that is
	// not the FP8 one.
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
	// Explain holds the details, one line each.
	Explain []string `json:"explain,omitempty"`
	// Key identifies the GEMM across modules (see Diff): its operands' sources and shapes.
	Key string `json:"key"`
}

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
// backend_config), and every dot or other cuBLAS call whose operands trace back to FP8 values, through
// fusions, tuples, bitcasts, slices and concatenations, which it reports as not fused with the reason.
func Check(m *hlo.Module) *Report {
	t := newTracer(m)
	r := &Report{Module: m.Name}
	fusedComp := map[*hlo.Computation]bool{}
	for c, callers := range t.callers {
		for _, f := range callers {
			if f.Opcode == hlo.OpFusion {
				fusedComp[c] = true
			}
		}
	}
	// What octet fuse would do with each plain dot is the rewrite's own decision, by computation and dot.
	decisions := map[[2]string]*fuse.Decision{}
	for _, d := range fuse.Analyze(m).Decisions {
		decisions[[2]string{d.Computation, d.Dot}] = d
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			var f *GEMM
			switch {
			case in.Opcode == hlo.OpCustomCall && in.CustomCallTarget() == cublas.TargetF8:
				f = t.fusedCall(in)
			case in.Opcode == hlo.OpCustomCall && cublas.IsTarget(in.CustomCallTarget()):
				f = t.otherCall(in)
			case in.Opcode == hlo.OpDot && fusedComp[c]:
				f = t.fusedDot(in)
			case in.Opcode == hlo.OpDot:
				f = t.plainDot(in, decisions[[2]string{c.Name, in.Name}])
			}
			if f == nil {
				continue
			}
			f.Location = sourceLocation(in)
			r.GEMMs = append(r.GEMMs, f)
			switch {
			case f.Fused:
				r.Fused++
			default:
				r.Unfused++
				if f.Fusible != nil && *f.Fusible {
					r.Fusible++
				}
			}
		}
	}
	numberKeys(r.GEMMs)
	return r
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
		var next *hlo.Instruction
		switch x.Opcode {
		case hlo.OpParameter:
			if f := t.fusionOf(x.Parent); f != nil && int(x.ParameterNumber) < f.NumOperands() {
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
		case hlo.OpTranspose, hlo.OpBitcast, hlo.OpCopy, hlo.OpReshape:
			next = x.Operand(0)
		}
		if next == nil || next.Shape.Elem != x.Shape.Elem {
			return x
		}
		x = next
	}
	return x
}

func (t *tracer) operand(x *hlo.Instruction, via string) *Operand {
	o := t.origin(x)
	op := &Operand{Source: "%" + o.Name, Shape: o.Shape.Elem.String() + dimsString(o.Shape.Dims), Parameter: -1, Via: via}
	if o.Opcode == hlo.OpParameter && o.Parent == o.Parent.Module.Entry {
		op.Parameter = o.ParameterNumber
	}
	return op
}

// key identifies a GEMM by its operands (entry parameters, or the shapes of the FP8 values when they are
// computed) and its contracting size k, the two sides in a fixed order.
func key(a, b *Operand, k int64) string {
	side := func(o *Operand) string {
		if o == nil {
			return "?"
		}
		if o.Parameter >= 0 {
			return fmt.Sprintf("p%d:%s", o.Parameter, o.Shape)
		}
		return o.Shape
	}
	ks := []string{side(a), side(b)}
	sort.Strings(ks)
	return fmt.Sprintf("%s x %s, k=%d", ks[0], ks[1], k)
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
		f.Key = key(f.A, f.B, 0)
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
	f.D = call.DType.String() + dimsString(call.D.Dims)
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
				call.A.Shape.Elem, dimsString(call.A.Shape.Dims), call.B.Shape.Elem, dimsString(call.B.Shape.Dims), f.Epilogue))
	}
	f.Explain = append(f.Explain, fmt.Sprintf("D %s%s = A %s (%s) x B %s (%s)", call.DType, dimsString(call.D.Dims),
		shapeOf(call.A), f.A.Source, shapeOf(call.B), f.B.Source))
	scales := []string{"a_scale=" + f.AScale, "b_scale=" + f.BScale}
	if f.CScale != "" {
		scales = append(scales, "c_scale="+f.CScale)
	}
	if f.DScale != "" {
		scales = append(scales, "d_scale="+f.DScale)
	}
	f.Explain = append(f.Explain, "scales: "+strings.Join(scales, ", "))
	f.Key = key(f.A, f.B, contractingSize(call.A, cfg.LhsContracting))
	return f
}

func shapeOf(x *hlo.Instruction) string { return x.Shape.Elem.String() + dimsString(x.Shape.Dims) }

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
	f := t.unfused(holder, dot, "gemm-fusion", a, b)
	kind := holder.Str("kind")
	f.Reason = fmt.Sprintf("the dot %%%s computes in %s x %s inside the %s fusion %%%s (%%%s) instead of %s",
		dot.Name, dot.Operand(0).Shape.Elem, dot.Operand(1).Shape.Elem, kind, holder.Name, dot.Parent.Name, cublas.TargetF8)
	if !match.FP8(dot.Operand(0)) || !match.FP8(dot.Operand(1)) {
		f.Reason += ", on dequantized FP8 data"
	}
	f.Explain = append(f.Explain, t.after(dot, holder)...)
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
	switch {
	case yes:
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
		f.BlockedBy = d.Reason
	default:
		f.FuseNote = "octet fuse cannot fuse it: its operands reach FP8 values only through other computations"
	}
	if d != nil {
		f.Explain = append(f.Explain, d.Matched...)
	}
	f.Explain = append(f.Explain, f.FuseNote)
	return f
}

// unfused fills what every GEMM that is not fused reports: its operands, and the pattern that blocked it.
func (t *tracer) unfused(holder, gemm *hlo.Instruction, kind string, a, b *side) *GEMM {
	f := &GEMM{Name: holder.Name, Computation: holder.Parent.Name, Kind: kind, Epilogue: cublas.EpilogueDefault,
		DType: gemm.Shape.Elem.String(), D: shapeOf(gemm), Alpha: 1}
	if gemm.Shape.IsTuple() && len(gemm.Shape.Tuple) > 0 {
		f.DType = gemm.Shape.Tuple[0].Elem.String()
		f.D = f.DType + dimsString(gemm.Shape.Tuple[0].Dims)
	}
	if gemm != holder {
		f.Dot = gemm.Name
	}
	sides := []*side{a, b}
	ops := []*Operand{nil, nil}
	for i, s := range sides {
		if s == nil {
			x := gemm.Operand(i)
			ops[i] = &Operand{Source: "%" + x.Name, Shape: shapeOf(x), Parameter: -1, Via: "no FP8 value behind it"}
			f.Explain = append(f.Explain, fmt.Sprintf("%s: %s %%%s, with no FP8 value behind it", sideName(i), shapeOf(x), x.Name))
			continue
		}
		ops[i] = t.operand(s.fp8, t.describe(s))
		f.Explain = append(f.Explain, fmt.Sprintf("%s: %s", sideName(i), ops[i].Via))
	}
	f.A, f.B = ops[0], ops[1]
	k := int64(0)
	if gemm.Opcode == hlo.OpDot {
		k = contractingSize(gemm.Operand(0), gemm.Ints("lhs_contracting_dims"))
	} else if call, err := cublas.Decode(gemm); err == nil {
		k = contractingSize(call.A, call.Config.LhsContracting)
	}
	f.Key = key(f.A, f.B, k)
	if kind != "dot" {
		f.BlockedBy = t.blocker(gemm, sides)
		f.Explain = append(f.Explain, "blocked by: "+f.BlockedBy)
	}
	return f
}

// blocker names the first thing, going up from the GEMM, that XLA's FP8 pattern does not look through:
// an op other than a convert, a scalar scale and the data-movement ops; or else the fusion boundary that
// separates the dequantize from the dot. It adds when a dequantize multiply is in a 16-bit type with a
// convert between it and the FP8 value.
func (t *tracer) blocker(gemm *hlo.Instruction, sides []*side) string {
	type found struct {
		sides []string
		stop  *hlo.Instruction
		apart string
	}
	var stops []*found
	var narrow []*side // sides whose dequantize multiply is in a 16-bit type
	for i, s := range sides {
		if s == nil {
			continue
		}
		var stop *hlo.Instruction
		for j := len(s.path) - 1; j >= 0; j-- {
			in := s.path[j]
			if in == s.Scale || in.Opcode == hlo.OpConvert || plumbing(in) {
				continue
			}
			stop = in
			break
		}
		apart := ""
		convert := s.FirstConvert()
		if stop == nil && convert != nil && convert.Parent != gemm.Parent {
			apart = strings.TrimPrefix(t.where(convert), " in ")
		}
		if s.Scale != nil && convert != nil && (s.Scale.Shape.Elem == dtype.BF16 || s.Scale.Shape.Elem == dtype.F16) {
			narrow = append(narrow, s)
		}
		if stop == nil && apart == "" {
			continue
		}
		merged := false
		for _, f := range stops {
			if f.stop == stop && f.apart == apart {
				f.sides = append(f.sides, sideName(i))
				merged = true
			}
		}
		if !merged {
			stops = append(stops, &found{[]string{sideName(i)}, stop, apart})
		}
	}
	var parts []string
	for _, f := range stops {
		who := strings.Join(f.sides, " and ")
		switch {
		case f.stop != nil && f.stop.Opcode == hlo.OpConcatenate:
			parts = append(parts, fmt.Sprintf("concatenate %%%s%s lies between the dequantize of %s and the GEMM, "+
				"and XLA's FP8 pattern looks only through converts, a scalar multiply or divide, and bitcast, broadcast, copy, "+
				"reshape, transpose, slice, dynamic-slice, pad and select", f.stop.Name, t.where(f.stop), who))
		case f.stop != nil:
			parts = append(parts, fmt.Sprintf("%s %%%s%s lies between the FP8 value of %s and the GEMM", f.stop.Opcode, f.stop.Name,
				t.where(f.stop), who))
		default:
			parts = append(parts, fmt.Sprintf("the dequantize of %s was fused into %s, apart from the GEMM", who, f.apart))
		}
	}
	switch len(narrow) {
	case 0:
	case 1:
		s := narrow[0]
		parts = append(parts, fmt.Sprintf("the dequantize multiply %%%s is in %s and a convert (%%%s) sits between it and the FP8 value %s",
			s.Scale.Name, s.Scale.Shape.Elem, s.FirstConvert().Name, describeValue(t.origin(s.fp8))))
	default:
		var ms, cs []string
		for _, s := range narrow {
			ms = append(ms, "%"+s.Scale.Name)
			cs = append(cs, fmt.Sprintf("%%%s of %s", s.FirstConvert().Name, describeValue(t.origin(s.fp8))))
		}
		parts = append(parts, fmt.Sprintf("the dequantize multiplies %s are in %s and a convert sits between each and its FP8 value (%s)",
			strings.Join(ms, " and "), narrow[0].Scale.Shape.Elem, strings.Join(cs, ", ")))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("the GEMM reads %s values: no FP8 GEMM was formed for it", gemm.Operand(0).Shape.Elem)
	}
	return strings.Join(parts, "; ")
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

func dimsString(d []int64) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// sideName names operand i of a GEMM as cuBLAS does: A or B.
func sideName(i int) string {
	if i == 0 {
		return "A"
	}
	return "B"
}

// sourceLocation is "file:line" of an instruction's metadata; "" when it names no source file.
func sourceLocation(in *hlo.Instruction) string {
	md := in.Metadata()
	file, _ := md.Get("source_file")
	if uq, err := strconv.Unquote(file); err == nil {
		file = uq
	}
	if file == "" {
		return ""
	}
	if line, ok := md.Get("source_line"); ok && line != "" && line != "0" {
		file += ":" + line
	}
	return file
}
