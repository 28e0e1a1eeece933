package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"octet/cublas"
	"octet/dtype"
	"octet/fuse"
	"octet/hlo"
	"octet/hlo/parser"
	"octet/hlo/printer"
	"octet/interp"
)

// Result is what Check found on one set of inputs.
type Result struct {
	// Name names the inputs ("normal", or a family's name; empty from Check).
	Name string `json:"name"`
	// GEMMs are the fused GEMMs, in the order of the decisions.
	GEMMs []*GEMM `json:"gemms"`
	// Outputs counts the elements of the module's outputs compared bit for bit (the rewritten module run
	// with each call's results replaced by the original's values), Mismatches those that differ, and
	// FirstMismatch says where the first is.
	Outputs       int64  `json:"outputs"`
	Mismatches    int64  `json:"mismatches"`
	FirstMismatch string `json:"first_mismatch,omitempty"`
	// OK is set when every element is within its bound and the outputs match.
	OK bool `json:"ok"`

	// want is the original module's result.
	want interp.Value
	// peakHeld is the most bytes of the original's values held at once for the comparison, waits how many
	// times the rewritten module's run waited for one.
	peakHeld int64
	waits    int
}

// GEMM is the comparison of one call's D (and abs-max) with the values of the original it replaced.
type GEMM struct {
	// Dot is the dot of the original, Call the call of the rewritten module, DType D's element type.
	Dot   string `json:"dot"`
	Call  string `json:"call"`
	DType string `json:"d_type"`
	// Elements counts D's elements (those of the replaced value), BitMatches those identical, Saturated
	// those where the original overflowed to NaN and the call saturated (not failures), Overflowed those
	// where the original's chain, with a step in a type of less range than float32 (f16), is infinite or
	// NaN and the call's differs (not failures; see NarrowRange), Failures those beyond their bound, NaN
	// in one result only included.
	Elements   int64 `json:"elements"`
	BitMatches int64 `json:"bit_matches"`
	Saturated  int64 `json:"saturated,omitempty"`
	Overflowed int64 `json:"overflowed,omitempty"`
	Failures   int64 `json:"failures"`
	// Worst is the element whose difference is the largest share of its bound (Index -1 when every
	// element is identical or saturated).
	Worst Element `json:"worst"`
	// Amax compares the abs-max output, when the call has one (the worst of its evaluations).
	Amax *Element `json:"amax,omitempty"`
	// Evaluations counts the evaluations of the GEMM compared: 1 in the entry computation, one per
	// iteration in a while body, 0 where the inputs never reached it (a branch not taken, a loop that ran
	// no iteration). The counts above are of them
	// all; WorstEvaluation is the evaluation, from 0, that Worst is of.
	Evaluations     int64 `json:"evaluations"`
	WorstEvaluation int64 `json:"worst_evaluation,omitempty"`
}

// Element is one compared element.
type Element struct {
	// Index is the element's position in the replaced value, row-major.
	Index int64 `json:"index"`
	// Want is the original's value, Got the call's, Bound the largest difference allowed there.
	Want  Float `json:"want"`
	Got   Float `json:"got"`
	Bound Float `json:"bound"`
	// ULPs is |Got - Want| in units in the last place of the element's type at Want, and BoundULPs the
	// bound in the same units.
	ULPs      Float `json:"ulps"`
	BoundULPs Float `json:"bound_ulps"`
}

// Share is the difference of the element as a share of its bound (above 1: beyond it; +Inf for a NaN
// in one result only).
func (e Element) Share() float64 {
	d := diff(float64(e.Want), float64(e.Got))
	switch {
	case d == 0:
		return 0
	case math.IsNaN(d) || float64(e.Bound) == 0:
		return math.Inf(1)
	}
	return d / float64(e.Bound)
}

// diff is |a - b|, 0 when both are NaN or equal, NaN when only one is NaN.
func diff(a, b float64) float64 {
	switch {
	case math.IsNaN(a) && math.IsNaN(b), a == b:
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	}
	return math.Abs(a - b)
}

// Float is a float64 that JSON can hold when it is infinite or NaN: those are written as the strings
// "Infinity", "-Infinity" and "NaN", as protobuf's JSON does.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(v)
}

// gemmCheck is one fused GEMM as Check compares it: the decision, the instructions of the original whose
// values the call replaced, and those of the rewritten module that hold the call's results, the sums of
// |a| |b| and the call's other operands. Check records the values of each at every evaluation of the
// computation they are in, and compares one evaluation from two tuples of them: the original's (D, then
// the abs-max when there is one) and the rewritten module's (gotInstructions: D, the abs-max, then the
// bound's values at the positions mag, c, ...).
type gemmCheck struct {
	d    *fuse.Decision
	call *cublas.Call
	// rounding sums the unit roundoffs of the original's roundings (see Rounding); narrow is set where
	// its chain has a step of less range than float32 (NarrowRange).
	rounding float64
	narrow   bool
	// last and amax are the original's instructions the call's D and abs-max replaced; res and amaxRes
	// the rewritten module's instructions that hold them (amax and amaxRes nil without an abs-max).
	last, amax, res, amaxRes *hlo.Instruction
	// watched are the rewritten module's instructions recorded for the bound, at their positions of the
	// tuple from 2 on: the sums of |a| |b| and the call's operands.
	watched []*hlo.Instruction
	// toPadded maps an element of the replaced value to its element of the call's D, which may be padded.
	toPadded func(int64) int64
	// exact is set for a block-scaled rewrite (a scaled-dot, or cuDNN's block-scaled call), which the
	// rewrite makes only where it computes what the dot did, operation for operation: its D must be the
	// replaced value bit for bit.
	exact bool
	// Positions of the bound's values in the rewritten module's tuple; -1 when absent.
	mag, c, bias, aScale, bScale, cScale, dScale int
	// sum is the comparison of the evaluations compared so far, worst and worstAmax the shares of its
	// worst element and abs-max.
	sum              *GEMM
	worst, worstAmax float64
}

// Check runs the original module orig and fused, the module fuse.Rewrite made of it with the given
// decisions, on args, and compares each call's results with the values they replaced, element by element
// against the bound the package comment derives, and the rest of the outputs bit for bit. Neither module
// is changed.
//
// A GEMM may be in any computation the program calls but a fusion's: the entry, a function it calls, the
// body of a while loop (a scan over layers). The interpreter shows Check every value it computes
// (interp.Options.Intercept): Check records the values the calls replaced at each evaluation of their
// computation in the original, and in the rewritten module puts each in place of the call's at the same
// evaluation, so that what follows computes from exactly what the original's rest does, and compares the
// two at every evaluation. The two modules run at once, in lockstep, where opts.MaxMemory holds both
// modules' buffers (or is unset): the original holds each value only until the rewritten module has
// compared it (see recorder). Else the original runs first, and its values of every evaluation must fit
// in what the budget leaves beyond the rewritten module's buffers. The error reports what kept the
// comparison from being made: a module the interpreter cannot run, a GEMM inside a fusion, decisions that
// are not those of a Rewrite of orig, a GEMM the two modules evaluate a different number of times.
func Check(orig, fused *hlo.Module, decisions []*fuse.Decision, args []interp.Value, opts interp.Options) (*Result, error) {
	o, err := clone(orig)
	if err != nil {
		return nil, fmt.Errorf("the original module: %v", err)
	}
	f, err := clone(fused)
	if err != nil {
		return nil, fmt.Errorf("the rewritten module: %v", err)
	}
	var checks []*gemmCheck
	changed := map[*hlo.Computation]bool{}
	oFusions, fFusions := o.FusionComputations(), f.FusionComputations()
	for _, d := range decisions {
		if !d.Fused {
			continue
		}
		if d.Result == "" {
			return nil, fmt.Errorf("the decision on %%%s is not a rewrite's: it names no result", d.Dot)
		}
		oc, fc := o.Computation(d.Computation), f.Computation(d.Computation)
		if oc == nil || fc == nil {
			return nil, fmt.Errorf("the GEMM %%%s: the computation %%%s is not in the modules", d.Dot, d.Computation)
		}
		if oFusions[oc] || fFusions[fc] {
			return nil, fmt.Errorf("the GEMM %%%s is in the computation %%%s of a fusion, whose values the interpreter may compute a part at a time: only GEMMs outside fusions are compared", d.Dot, d.Computation)
		}
		oNames, fNames := names(oc), names(fc)
		g := &gemmCheck{d: d, c: -1}
		last, res, callIn := oNames[d.Replaces], fNames[d.Result], fNames[d.Call]
		if last == nil || res == nil || callIn == nil {
			return nil, fmt.Errorf("the GEMM %%%s: %%%s, %%%s or %%%s is not in the modules", d.Dot, d.Replaces, d.Result, d.Call)
		}
		switch {
		case callIn.Opcode == hlo.OpScaledDot || callIn.Opcode == hlo.OpCustomCall && !cublas.IsTarget(callIn.CustomCallTarget()):
			if !slices.Equal(res.Shape.Dims, last.Shape.Dims) || res.Shape.Elem != last.Shape.Elem {
				return nil, fmt.Errorf("the call %%%s gives %s where the original has %s", d.Call, res.Shape, last.Shape)
			}
			g.exact, g.toPadded = true, func(i int64) int64 { return i }
		default:
			if g.call, err = cublas.Decode(callIn); err != nil {
				return nil, fmt.Errorf("the call %%%s: %v", d.Call, err)
			}
			if g.toPadded, err = paddedIndex(res, callIn); err != nil {
				return nil, fmt.Errorf("the call %%%s: %v", d.Call, err)
			}
		}
		dot := oNames[d.Dot]
		if dot == nil || dot.Opcode != hlo.OpDot {
			return nil, fmt.Errorf("the dot %%%s is not in the original module", d.Dot)
		}
		var absorbed []*hlo.Instruction
		for _, name := range d.Absorbed {
			if x := oNames[name]; x != nil && name != d.AmaxReplaces {
				absorbed = append(absorbed, x)
			}
		}
		g.rounding = Rounding(dot, absorbed, last)
		g.narrow = NarrowRange(dot, absorbed, last)
		g.last, g.res = last, res
		if d.AmaxReplaces != "" {
			g.amax, g.amaxRes = oNames[d.AmaxReplaces], fNames[d.AmaxResult]
			if g.amax == nil || g.amaxRes == nil {
				return nil, fmt.Errorf("the GEMM %%%s: %%%s or %%%s is not in the modules", d.Dot, d.AmaxReplaces, d.AmaxResult)
			}
		}
		if !g.exact {
			g.watchBound(fc)
			changed[fc] = true
		}
		checks = append(checks, g)
	}
	// The sums of |a| |b| were added to the computations of the calls, used by nothing: put them after
	// their operands.
	for c := range changed {
		c.SortTopologically()
	}
	for _, m := range []*hlo.Module{o, f} {
		if err := hlo.Verify(m); err != nil {
			return nil, fmt.Errorf("%w: the module made to compare does not verify: %v", errInternal, err)
		}
	}

	// The original: every value a call replaced, at each evaluation, held until the rewritten module has
	// compared it. Where the budget holds both modules' buffers, the two run at once, in lockstep, and a
	// quarter of what it leaves goes to each run's packed weights, half to the values held; else the
	// original runs first, and what it records must fit in what the budget leaves beyond the rewritten
	// module's buffers.
	oWatch := map[*hlo.Instruction]bool{}
	for _, g := range checks {
		for _, x := range g.wantInstructions() {
			oWatch[x] = true
		}
	}
	oOpts, fOpts := opts, opts
	rec := newRecorder(-1, true)
	if opts.MaxMemory > 0 {
		oNeed, fNeed := interp.EstimateMemory(o).Bytes, interp.EstimateMemory(f).Bytes
		if spare := opts.MaxMemory - oNeed - fNeed; spare >= 0 {
			oOpts.MaxMemory, fOpts.MaxMemory = oNeed+spare/4, fNeed+spare/4
			rec = newRecorder(spare/2, true)
		} else {
			rec = newRecorder(max(opts.MaxMemory-fNeed, 0), false)
		}
	}
	// The rewritten module: each call's results recorded and replaced by the original's values of the
	// same evaluation, the values of the bound recorded, and each evaluation compared as soon as its
	// values are all there (and then dropped).
	replaces := map[*hlo.Instruction]*hlo.Instruction{}
	fWatch := map[*hlo.Instruction]bool{}
	watchers := map[*hlo.Instruction][]*gemmCheck{}
	for _, g := range checks {
		replaces[g.res] = g.last
		if g.amaxRes != nil {
			replaces[g.amaxRes] = g.amax
		}
		for _, x := range g.gotInstructions() {
			if x != nil {
				fWatch[x] = true
				watchers[x] = append(watchers[x], g)
			}
		}
		g.sum = &GEMM{Dot: g.d.Dot, Call: g.d.Call, DType: g.res.Shape.Elem.String()}
		g.sum.Worst.Index = -1
		g.worst, g.worstAmax = -1, -1
	}
	gotSeen := map[*hlo.Instruction][]interp.Value{}
	fOpts.Intercept = &interp.Intercept{Instructions: fWatch, Func: func(in *hlo.Instruction, v interp.Value) (interp.Value, error) {
		n := len(gotSeen[in])
		gotSeen[in] = append(gotSeen[in], v.Clone())
		if orig := replaces[in]; orig != nil {
			w, ok, err := rec.value(orig, n)
			switch {
			case err != nil:
				return interp.Value{}, err
			case !ok:
				return interp.Value{}, fmt.Errorf("%%%s is evaluated more often than %%%s of the original (%d times)", in.Name, orig.Name, n)
			}
			// The original's value, which no evaluation owns: never recycled, and never written.
			v = w
		}
		for _, g := range watchers[in] {
			if err := g.compareReady(rec, gotSeen, watchers); err != nil {
				return interp.Value{}, err
			}
		}
		return v, nil
	}}
	want, got, err := runBoth(rec, o, f, oWatch, args, oOpts, fOpts)
	if err != nil {
		return nil, err
	}
	r := &Result{want: want, OK: true, peakHeld: rec.peak, waits: rec.waits}
	r.Outputs, r.Mismatches, r.FirstMismatch = exact(want, got)
	if r.Mismatches > 0 {
		r.OK = false
	}
	for _, g := range checks {
		res, err := g.finish(rec)
		if err != nil {
			return nil, err
		}
		r.GEMMs = append(r.GEMMs, res)
		if res.Failures > 0 || res.Amax != nil && res.Amax.Share() > 1 {
			r.OK = false
		}
	}
	return r, nil
}

// watchBound adds to c, the computation of the call, what the bound needs from the rewritten module: the
// sums of |a| |b| of the call's operands, with its dimension numbers, and its other operands, to be
// recorded at each evaluation.
func (g *gemmCheck) watchBound(c *hlo.Computation) {
	call := g.call
	cfg := call.Config
	add := func(x *hlo.Instruction) int {
		if x == nil {
			return -1
		}
		g.watched = append(g.watched, x)
		return 1 + len(g.watched)
	}
	abs := func(x *hlo.Instruction) *hlo.Instruction {
		if x.Shape.Elem != dtype.F32 {
			x = c.Convert(x, dtype.F32)
		}
		// An abs of a float32 array always fits.
		y, _ := c.AddInferred("", hlo.OpAbs, []*hlo.Instruction{x})
		return y
	}
	g.mag = add(c.Dot(abs(call.A), abs(call.B), cfg.LhsContracting, cfg.RhsContracting, cfg.LhsBatch, cfg.RhsBatch, dtype.F32))
	if call.C != nil && cfg.Beta != 0 {
		g.c = add(call.C)
	}
	g.bias, g.aScale, g.bScale, g.cScale, g.dScale = add(call.Bias), add(call.AScale), add(call.BScale), add(call.CScale), add(call.DScale)
}

// wantInstructions are the original's instructions whose values one evaluation's comparison reads, at
// their positions in its tuple: the value D replaced, then the abs-max when the call has one.
func (g *gemmCheck) wantInstructions() []*hlo.Instruction {
	if g.amax == nil {
		return []*hlo.Instruction{g.last}
	}
	return []*hlo.Instruction{g.last, g.amax}
}

// gotInstructions are the rewritten module's instructions whose values one evaluation's comparison reads,
// at their positions in its tuple: D, the abs-max (nil without one), and those watchBound added.
func (g *gemmCheck) gotInstructions() []*hlo.Instruction {
	return append([]*hlo.Instruction{g.res, g.amaxRes}, g.watched...)
}

// compareReady compares the next evaluation of the GEMM once the rewritten module has computed all its
// values, adds it to the sums and drops the values of both modules. A value of the rewritten module is
// dropped once every GEMM that watches its instruction has compared that evaluation: one call's D may be
// another's C (two dots of one sum, each fused), and the second reads it after the first has compared.
func (g *gemmCheck) compareReady(rec *recorder, gotSeen map[*hlo.Instruction][]interp.Value, watchers map[*hlo.Instruction][]*gemmCheck) error {
	i := int(g.sum.Evaluations)
	var got []interp.Value
	for _, x := range g.gotInstructions() {
		switch {
		case x == nil:
			got = append(got, interp.Value{}) // no abs-max: its position is never read
		case len(gotSeen[x]) <= i:
			return nil // not yet computed at this evaluation
		default:
			got = append(got, gotSeen[x][i])
		}
	}
	var want []interp.Value
	for _, x := range g.wantInstructions() {
		w, ok, err := rec.value(x, i)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("the GEMM %%%s: the original evaluates %%%s %d times, the rewritten module the call more often", g.d.Dot, x.Name, i)
		}
		want = append(want, w)
	}
	res, err := g.compare(interp.TupleValue(want...), interp.TupleValue(got...))
	if err != nil {
		return err
	}
	all := g.sum
	all.DType = res.DType
	all.Elements += res.Elements
	all.BitMatches += res.BitMatches
	all.Saturated += res.Saturated
	all.Overflowed += res.Overflowed
	all.Failures += res.Failures
	if res.Worst.Index >= 0 {
		if s := res.Worst.Share(); s > g.worst {
			g.worst, all.Worst, all.WorstEvaluation = s, res.Worst, int64(i)
		}
	}
	if res.Amax != nil {
		if s := res.Amax.Share(); s > g.worstAmax {
			g.worstAmax, all.Amax = s, res.Amax
		}
	}
	all.Evaluations++
	for _, x := range g.gotInstructions() {
		if x != nil && !slices.ContainsFunc(watchers[x], func(w *gemmCheck) bool { return w.sum.Evaluations <= int64(i) }) {
			gotSeen[x][i] = interp.Value{}
		}
	}
	for _, x := range g.wantInstructions() {
		rec.drop(x, i)
	}
	return nil
}

// finish returns the comparison of all the GEMM's evaluations, once the rewritten module has run: the
// original must have evaluated it as many times.
func (g *gemmCheck) finish(rec *recorder) (*GEMM, error) {
	if n := rec.count(g.last); int64(n) != g.sum.Evaluations {
		return nil, fmt.Errorf("the GEMM %%%s: the original evaluates %%%s %d times, the rewritten module the call's %%%s %d times", g.d.Dot, g.last.Name, n, g.res.Name, g.sum.Evaluations)
	}
	return g.sum, nil
}

// errInternal marks a failure of the comparison itself, which no module should cause.
var errInternal = interp.ErrInternal

// clone copies m by printing it in XLA's form, large constants included, and reading it back: the copy
// computes what m does, and can be changed without changing m.
func clone(m *hlo.Module) (*hlo.Module, error) {
	cfg := printer.ConfigFor(printer.StyleXLA)
	cfg.PrintLargeConstants = true
	c, err := parser.ParseString(m.Name+".hlo", printer.Sprint(m, cfg))
	if err != nil {
		return nil, fmt.Errorf("%w: the module does not read back: %v", errInternal, err)
	}
	if c.Entry == nil {
		return nil, errors.New("no entry computation")
	}
	return c, nil
}

// names indexes the instructions of c by name.
func names(c *hlo.Computation) map[string]*hlo.Instruction {
	out := make(map[string]*hlo.Instruction, len(c.Instructions))
	for _, in := range c.Instructions {
		out[in.Name] = in
	}
	return out
}

// paddedIndex maps the elements of res, the call's D as the rewrite gives it back (get-tuple-element, a
// slice from 0 to the region the original kept, a reshape to the replaced value's dimensions), to the
// elements of the call's D. A reshape, and an elementwise step on the value (its first operand), keep
// the row-major order; a slice picks a box.
func paddedIndex(res, call *hlo.Instruction) (func(int64) int64, error) {
	var slice *hlo.Instruction
	for x := res; x != call; x = x.Operand(0) {
		info := x.Opcode.Info()
		switch {
		case x.Opcode == hlo.OpReshape || x.Opcode == hlo.OpBitcast:
		case x.Opcode == hlo.OpSlice && slice == nil:
			slice = x
		case x.Opcode == hlo.OpGetTupleElement && x.Operand(0) == call:
			if idx, _ := x.Int("index"); idx != 0 {
				return nil, fmt.Errorf("%%%s is result %d of the call, not D", res.Name, idx)
			}
		case info != nil && info.Elementwise && x.NumOperands() > 0 && slices.Equal(x.Shape.Dims, x.Operand(0).Shape.Dims):
		default:
			return nil, fmt.Errorf("%%%s is not the call's D sliced and reshaped (%s %%%s)", res.Name, x.Opcode, x.Name)
		}
		if x.NumOperands() == 0 {
			return nil, fmt.Errorf("%%%s is not the call's D sliced and reshaped", res.Name)
		}
	}
	if slice == nil {
		return func(i int64) int64 { return i }, nil
	}
	sl, _ := slice.Attr("slice").(hlo.Slice)
	from, to := slice.Operand(0).Shape.Dims, slice.Shape.Dims
	if len(sl) != len(from) || len(to) != len(from) {
		return nil, fmt.Errorf("the slice %%%s does not fit its operand", slice.Name)
	}
	return func(i int64) int64 {
		// The index of i in the slice's dimensions, then in its operand's, row-major.
		p, stride := int64(0), int64(1)
		for d := len(to) - 1; d >= 0; d-- {
			k := i % to[d]
			i /= to[d]
			p += (sl[d].Start + k*sl[d].Stride) * stride
			stride *= from[d]
		}
		return p
	}, nil
}

// exact compares two results bit for bit, NaN equal to NaN, and says where the first difference is.
func exact(want, got interp.Value) (elements, mismatches int64, first string) {
	ws, gs := want.Flatten(), got.Flatten()
	if len(ws) != len(gs) {
		return 0, 1, fmt.Sprintf("the results hold %d and %d arrays", len(ws), len(gs))
	}
	for i, w := range ws {
		g := gs[i]
		if w.Type != g.Type || !slices.Equal(w.Shape, g.Shape) {
			mismatches++
			if first == "" {
				first = fmt.Sprintf("output %d is %s in the original and %s in the rewritten module", i, w, g)
			}
			continue
		}
		n := w.NumElements()
		elements += n
		var wv, gv []float64
		if w.Type.IsFloat() {
			wv, gv = w.Float64s(), g.Float64s()
		}
		for j := range n {
			if w.BitsAt(j) == g.BitsAt(j) || wv != nil && math.IsNaN(wv[j]) && math.IsNaN(gv[j]) {
				continue
			}
			mismatches++
			if first == "" {
				if wv != nil {
					first = fmt.Sprintf("output %d, element %d: %g in the original, %g in the rewritten module", i, j, wv[j], gv[j])
				} else {
					first = fmt.Sprintf("output %d, element %d: bits %#x in the original, %#x in the rewritten module", i, j, w.BitsAt(j), g.BitsAt(j))
				}
			}
		}
	}
	return elements, mismatches, first
}
