package fuse

import (
	"fmt"
	"slices"
	"strings"

	"octet/cublas"
	"octet/fuse/xlarules"
	"octet/hlo"
)

// ABI is the operand form of the custom call the rewrite makes.
type ABI int

const (
	// ABICurrent is XLA's form today: a, b, [c], a_scale, b_scale, [bias], [d_scale] (d_scale when D is FP8).
	ABICurrent ABI = iota
	// ABILegacy is the six-scalar form of XLA up to 2024: a, b, [c], a_scale, b_scale, c_scale, d_scale, [bias].
	ABILegacy
)

// ParseABI reads "current" or "legacy".
func ParseABI(s string) (ABI, error) {
	switch s {
	case "current", "":
		return ABICurrent, nil
	case "legacy":
		return ABILegacy, nil
	}
	return 0, fmt.Errorf("unknown ABI %q (want current or legacy)", s)
}

// Options configure Rewrite.
type Options struct {
	ABI ABI
	// Block is what a dot of block dequantizes becomes (see blockscaled.go).
	Block BlockTarget
}

// Result is the outcome of Analyze or Rewrite for one module: a decision for every dot that has an FP8
// value among its operand chains.
type Result struct {
	Module    string      `json:"module"`
	Decisions []*Decision `json:"gemms"`
}

// Decision is the rewrite's decision about one dot with an FP8 value among its operand chains: fused
// into one cuBLASLt FP8 call, or not and why. Its JSON form is the stable contract of "octet fuse --json".
type Decision struct {
	// Dot is the name of the dot in the input; Computation the computation it is in.
	Dot         string `json:"dot"`
	Computation string `json:"computation"`
	// Fused says whether the dot becomes (Rewrite) or can become (Analyze) one cuBLASLt FP8 call.
	Fused bool `json:"fused"`
	// Target is the custom-call target of the call ("" when not fused); Call its name after Rewrite.
	Target string `json:"target"`
	Call   string `json:"call,omitempty"`
	// Epilogue, Damax, DType, Alpha and Beta describe the call: for a dot that is not fused, the DEFAULT
	// epilogue, the dot's own result type, alpha 1 and beta 0.
	Epilogue cublas.Epilogue `json:"epilogue"`
	Damax    bool            `json:"damax"`
	DType    string          `json:"d_type"`
	Alpha    float64         `json:"alpha"`
	Beta     float64         `json:"beta"`
	// AType and BType are the FP8 types of A and B (empty when there is no FP8 value on that side).
	AType string `json:"a_type,omitempty"`
	BType string `json:"b_type,omitempty"`
	// DotType is the element type the dot computes in; M, N and K the sizes of the GEMM (products of the
	// lhs free, rhs free and contracting dimensions), when the dot's dimensions were read.
	DotType string `json:"dot_type"`
	M       int64  `json:"m,omitempty"`
	N       int64  `json:"n,omitempty"`
	K       int64  `json:"k,omitempty"`
	// Absorbed names the instructions after the dot that the call computes (empty when not fused).
	Absorbed []string `json:"absorbed,omitempty"`
	// Replaces names the instruction of the input whose value the call's D stands for (the dot, or the
	// last step of the epilogue the call absorbs), AmaxReplaces the reduce its abs-max output stands for
	// (empty when none). After Rewrite, Result and AmaxResult name the instructions of the rewritten
	// module that carry those values where the replaced ones were (D sliced and reshaped back, the abs-max
	// converted back).
	Replaces     string `json:"replaces,omitempty"`
	AmaxReplaces string `json:"amax_replaces,omitempty"`
	Result       string `json:"result,omitempty"`
	AmaxResult   string `json:"amax_result,omitempty"`
	// Reason says why the dot is not fused; At names the instructions it is about.
	Reason string   `json:"reason,omitempty"`
	At     []string `json:"at,omitempty"`
	// Source says where the dot came from (its metadata: op_name, source file and line, stack frames);
	// the call keeps the dot's metadata.
	Source string `json:"source,omitempty"`
	// Explain says which pattern matched each piece and what was absorbed, one line each.
	Explain []string `json:"explain"`
	// Matched are the lines of Explain about what matched, without the rewrite's own: what each operand
	// chain matched and, for a fused dot, what the epilogue absorbed.
	Matched []string `json:"-"`
	// XLA is what XLA's GEMM rewriter would do with the dot as it stands (package xlarules); Octet is
	// this rewrite's own verdict, Fused and Reason in the same form.
	XLA   xlarules.Verdict `json:"xla"`
	Octet Verdict          `json:"octet"`
}

// Verdict is one rule set's answer for a dot: fusible or not, and why.
type Verdict struct {
	Fusible bool   `json:"fusible"`
	Why     string `json:"why"`
}

// Analyze decides, for every dot of m with an FP8 value among its operand chains, whether it can become
// one cuBLASLt FP8 call, without changing m.
func Analyze(m *hlo.Module) *Result { return run(m, nil, true) }

// AnalyzeOctet is Analyze without XLA's verdicts (Decision.XLA is left empty), for a caller that decides
// them itself, for a target of its own, as package report does: they take most of Analyze's time.
func AnalyzeOctet(m *hlo.Module) *Result { return run(m, nil, false) }

// Rewrite replaces every dot of m that can become one cuBLASLt FP8 call (__cublas$lt$matmul$f8) by that
// call, absorbing the dequantize of its operands and the epilogue after it, and returns the decisions. The
// rewritten module passes hlo.Verify when m does.
func Rewrite(m *hlo.Module, opts Options) *Result { return run(m, &opts, true) }

// run decides (and with opts, makes) the rewrite of every dot of m, with XLA's verdicts where xla is set.
func run(m *hlo.Module, opts *Options, xla bool) *Result {
	r := &Result{Module: m.Name}
	fused := m.FusionComputations()
	claimed := map[*hlo.Instruction]*hlo.Instruction{}
	for _, c := range m.Computations {
		if fused[c] {
			continue
		}
		changed := false
		// A rewrite only moves control dependencies: a computation without any gets none. One with some
		// has its control successors indexed while it is rewritten (each removal asks for them), and
		// flags that say which instructions control edges may order (controlFlags).
		control := slices.ContainsFunc(c.Instructions, func(in *hlo.Instruction) bool { return len(in.ControlPredecessors()) > 0 })
		var flags *controlFlags
		if control {
			c.IndexControlSuccessors()
			flags = newControlFlags(c)
		}
		// The list is in topological order now. The walks that decide (fromDot, controlBetween) prune by
		// these places: a topological order of the graph, not the list's (which may keep a dot far from
		// the epilogue its call absorbs), that each rewrite keeps one (place).
		pos := hlo.LatePositions(c)
		for _, dot := range slices.Clone(c.Instructions) {
			if dot.Opcode != hlo.OpDot || dot.Parent != c {
				continue
			}
			if done, ok := runBlock(r, dot, opts, xla); ok {
				changed = changed || done
				continue
			}
			p, why := analyze(dot, claimed, pos)
			if p == nil && why == nil {
				continue
			}
			if why == nil && control && flags.mayOrder(p.members()) {
				why = controlBetween(p)
			}
			g := p.decision(why, xla)
			r.Decisions = append(r.Decisions, g)
			if why != nil {
				continue
			}
			for _, in := range p.epi.absorbed {
				claimed[in] = dot
			}
			if opts == nil {
				continue
			}
			made := len(c.Instructions)
			members := p.members()
			call := p.build(opts.ABI)
			// What the rewrite made takes the place of the instruction the call replaces where it can, so
			// that later walks stop at it as they would have there (place).
			place(pos, c.Instructions[made:], p.epi.last)
			if flags != nil {
				flags.merged(call, members)
			}
			g.Call, g.Result = call.Name, p.result.Name
			if p.amaxResult != nil {
				g.AmaxResult = p.amaxResult.Name
			}
			removeDead(p)
			changed = true
		}
		if changed {
			c.Prune() // what removeDead unlinked, once for the computation
			c.SortTopologically()
		}
		if control {
			c.DropControlIndex()
		}
	}
	return r
}

// members are the instructions the call of p computes: the dot and what its epilogue absorbs.
func (p *plan) members() []*hlo.Instruction {
	return append([]*hlo.Instruction{p.dot}, p.epi.absorbed...)
}

// runBlock decides (and with opts, makes) the block-scaled rewrite of dot, adding its decision to r (with
// XLA's verdict where xla is set). ok says whether dot is a block-scaled GEMM; done whether it was
// rewritten.
func runBlock(r *Result, dot *hlo.Instruction, opts *Options, xla bool) (done, ok bool) {
	target := BlockScaledDot
	if opts != nil {
		target = opts.Block
	}
	p, why := analyzeBlock(dot, target)
	if p == nil {
		return false, false
	}
	g := p.decision(why, target, xla)
	r.Decisions = append(r.Decisions, g)
	if why != nil || opts == nil {
		return false, true
	}
	call, result := p.build(target)
	g.Call, g.Replaces, g.Result = call.Name, dot.Name, result.Name
	removeUnused(dot.Parent, []*hlo.Instruction{dot})
	return true, true
}

// decision turns a plan (and the refusal, if any) into the Decision, with XLA's verdict where xla is set.
func (p *plan) decision(why *refusal, xla bool) *Decision {
	d := p.dot
	g := &Decision{Dot: d.Name, Computation: d.Parent.Name, Epilogue: cublas.EpilogueDefault, DType: d.Shape.Elem.String(),
		DotType: d.Shape.Elem.String(), M: p.m, N: p.n, K: p.k, Alpha: 1}
	if p.a != nil {
		g.AType = p.a.fp8.Shape.Elem.String()
	}
	if p.b != nil {
		g.BType = p.b.fp8.Shape.Elem.String()
	}
	g.Source = Provenance(d)
	if g.Source != "" {
		g.Explain = append(g.Explain, "from "+g.Source)
	}
	g.Matched = append(g.Matched, p.notes...)
	g.Explain = append(g.Explain, p.notes...)
	if xla {
		g.XLA = xlarules.Decide(d)
	}
	if why != nil {
		g.Reason = why.msg
		for _, in := range why.at {
			g.At = append(g.At, in.Name)
		}
		g.Explain = append(g.Explain, "not fused: "+why.msg)
		g.Octet = Verdict{Why: why.msg}
		return g
	}
	e := p.epi
	g.Fused, g.Target = true, cublas.TargetF8
	g.Epilogue, g.Damax, g.DType, g.Alpha = e.Epilogue(), e.amax != nil, e.dType.String(), e.alpha
	if e.c != nil {
		g.Beta = 1
	}
	for _, in := range e.absorbed {
		g.Absorbed = append(g.Absorbed, in.Name)
	}
	g.Replaces = e.last.Name
	if e.amax != nil {
		g.AmaxReplaces = e.amax.Name
	}
	g.Matched = append(g.Matched, e.notes...)
	g.Explain = append(g.Explain, p.layoutNotes()...)
	g.Explain = append(g.Explain, e.notes...)
	if t := d.Shape.Elem; t.IsFP8() {
		g.Explain = append(g.Explain, fmt.Sprintf("the dot itself gives %s: the call's conversion saturates at ±%v where the dot's "+
			"would overflow (XLA makes the same rewrite)", t, t.Finfo().Max))
	}
	g.Explain = append(g.Explain, fmt.Sprintf("fused: %s, epilogue %s, D %s%s, alpha %v, beta %v; replaces %%%s",
		cublas.TargetF8, g.Epilogue, g.DType, map[bool]string{true: " with damax", false: ""}[g.Damax], g.Alpha, g.Beta, e.last.Name))
	g.Octet = Verdict{Fusible: true, Why: fmt.Sprintf("octet fuse makes it one %s call: epilogue %s, D %s%s, alpha %v, beta %v",
		cublas.TargetF8, g.Epilogue, g.DType, map[bool]string{true: " with damax", false: ""}[g.Damax], g.Alpha, g.Beta)}
	return g
}

// layoutNotes say what the rewrite does to the operands' layouts and sizes.
func (p *plan) layoutNotes() []string {
	var notes []string
	side := func(name string, x *hlo.Instruction, batch, free, contract []int64, rows int64, rowsName string) {
		perm := slices.Concat(batch, free, contract)
		var what []string
		for i, d := range perm {
			if d != int64(i) {
				what = append(what, fmt.Sprintf("transposed by %v", perm))
				break
			}
		}
		if len(free) != 1 || len(contract) != 1 {
			what = append(what, fmt.Sprintf("reshaped to [batch..., %s=%d, k=%d]", rowsName, rows, p.k))
		}
		if len(what) > 0 {
			layout := "row-major"
			if name == "B" {
				layout = "column-major"
			}
			notes = append(notes, fmt.Sprintf("%s (%s%s): %s, so that it is %s with its contracting dimension last",
				name, x.Shape.Elem, "["+hlo.JoinInts(x.Shape.Dims)+"]", strings.Join(what, ", "), layout))
		}
	}
	side("A", p.a.fp8, p.lhsBatch, p.lhsFree, p.lhsContract, p.m, "m")
	side("B", p.b.fp8, p.rhsBatch, p.rhsFree, p.rhsContract, p.n, "n")
	var padded []string
	for _, x := range []struct {
		name string
		n    int64
	}{{"m", p.m}, {"n", p.n}, {"k", p.k}} {
		if x.n%16 != 0 {
			padded = append(padded, fmt.Sprintf("%s %d→%d", x.name, x.n, roundUp16(x.n)))
		}
	}
	if len(padded) > 0 {
		notes = append(notes, "padded to multiples of 16 ("+strings.Join(padded, ", ")+"); the result is sliced back")
	}
	return notes
}

// removeDead deletes what the rewrite of p left without users: the dot, the absorbed ops and what only
// they used.
func removeDead(p *plan) {
	work := []*hlo.Instruction{p.dot}
	work = append(work, p.epi.absorbed...)
	for _, op := range []*operand{p.a, p.b} {
		work = append(work, op.chain...)
	}
	removeUnused(p.dot.Parent, work)
}

// removeUnused unlinks from c each instruction of work left without users, and then each of their
// operands that only they used, in turn; parameters, the root and instructions with side effects stay. The
// caller prunes c's list.
func removeUnused(c *hlo.Computation, work []*hlo.Instruction) {
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		if in.Parent != c || len(in.Users()) > 0 || in.IsRoot() || in.Opcode == hlo.OpParameter || in.HasSideEffect() {
			continue
		}
		ops := slices.Clone(in.Operands())
		c.Unlink(in)
		work = append(work, ops...)
	}
}

// controlBetween refuses a plan when an instruction the call would not compute comes, through operands and
// control dependencies, both after the dot or an instruction it absorbs and before one of them: the call
// computes them all at once and cannot keep that order.
//
// Such an instruction is placed (plan.pos, a topological order) between the first and the last of them,
// and so is every instruction on its paths from and to them. The walk up from them (before) stops at what
// is placed before the first: nothing above it is below one of them. The walk down from them (after)
// goes on only through the set and what the walk up found: every other instruction below them is above
// none of them, nor is anything below it. Each walk then stays within the span of the set (a dot kept
// after the one before it by a control edge is not walked back to the first GEMM and down to the last),
// and the walk down meets what it would meet unpruned in the same order, so the refusal names the same
// instruction.
func controlBetween(p *plan) *refusal {
	members := p.members()
	set := map[*hlo.Instruction]bool{}
	first, last, known := 0, 0, true
	for i, in := range members {
		set[in] = true
		at, ok := p.pos[in]
		known = known && ok
		if i == 0 || at < first {
			first = at
		}
		if i == 0 || at > last {
			last = at
		}
	}
	// inSpan says whether a walk goes on through x: everything when a member is not placed.
	inSpan := func(x *hlo.Instruction) bool {
		at, ok := p.pos[x]
		return !known || !ok || first <= at && at <= last
	}
	// The walks start from the members in chain order (the dot first), not in a map's order, so that the
	// instruction the refusal names is the same on every run.
	start := func() []*hlo.Instruction {
		work := slices.Clone(members)
		slices.Reverse(work)
		return work
	}
	// before: what the set needs first, from the span on.
	before := map[*hlo.Instruction]bool{}
	work := start()
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		for _, x := range slices.Concat(in.Operands(), in.ControlPredecessors()) {
			if !before[x] {
				before[x] = true
				if inSpan(x) {
					work = append(work, x)
				}
			}
		}
	}
	// after: what needs the set first; one of them in before is between two of the set.
	after := map[*hlo.Instruction]bool{}
	work = start()
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		for _, x := range slices.Concat(in.Users(), in.ControlSuccessors()) {
			if after[x] {
				continue
			}
			after[x] = true
			if before[x] && !set[x] {
				return refuse(x, "control dependencies order %%%s after %%%s or what the call would absorb and before "+
					"another of them: one call cannot run on both sides of it", x.Name, p.dot.Name)
			}
			if before[x] || set[x] {
				work = append(work, x)
			}
		}
	}
	return nil
}
