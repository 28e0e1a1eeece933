package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"octet/dtype"
	"octet/fuse"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/interp"
	"octet/tensor"
)

func init() {
	register(&command{
		Name:      "fuse",
		UsageLine: "fuse [--json] [--explain] [--verify] [--abi=current|legacy] [--block-target=scaled-dot|cudnn] [--format=FORMAT] FILE|--rules",
		Short:     "rewrite FP8 matmuls into cuBLASLt FP8 GEMM calls",
		Long: `Fuse runs Octet's FP8 scaled-GEMM rewrite on the modules in FILE (HLO text, gzipped or not; - is
standard input) and prints the result. Every dot with an FP8 value among its operand chains becomes one
__cublas$lt$matmul$f8 custom call, for a Hopper cuBLASLt target, when it can: the dequantize of its
operands (converts from FP8, a multiply or divide by a broadcast scalar scale, and the bitcasts, reshapes,
transposes, slices, pads and selects between), and after it alpha, output scales, a matrix or vector bias,
ReLU or GELU, the abs-max and the scaled, clamped conversion to FP8 are absorbed into the call.

--explain prints, before the module, the decision for every such dot: the pattern each piece matched, what
was absorbed, and for a dot left alone the exact reason. --json prints instead
{"module": NAME, "gemms": [...]} with, for each dot, dot, fused, target, epilogue, damax, d_type, alpha,
beta, reason and the explanation, and two verdicts: "xla" {"fusible", "why", ["bug"]}, what XLA's GEMM
rewriter would do with the dot as it stands (its rules, written from its source, apart from Octet's), and
"octet" {"fusible", "why"}, this rewrite's. --explain prints XLA's where the two differ, and a call XLA
would make outside cuBLASLt's FP8 type table as an XLA bug.

--verify runs the original and the rewritten module on the same inputs with Octet's interpreter: random
normal values (--seed), then families chosen to expose what those hide (every value 1, the FP8 operands
at their format's largest value, rows and columns of very different magnitudes, zeros). It prints the
share of bit-identical elements of the normal run, the largest difference of each run against its
tolerance, and a verdict line; the exit status is 1 when a run disagrees beyond its tolerance. The fused
call rounds once where the original rounds after every step, so bits may differ: the tolerance of a GEMM
whose dot computes in type t with contracting size k, writing D after n roundings of the original in t
(the two dequantizes, the dot, each absorbed op), is 2 ulp of D at the largest result M plus
(n u_t + sqrt(k) u_f32)(2 + sqrt(k)/4) M, u being half of a type's epsilon; the module's is the largest
of its fused GEMMs' (0 when none is fused). Where the original's FP8 conversion overflows to NaN and the
call saturates to the format's largest value, as XLA's rewrite also does, the element is counted as
saturated, not as a disagreement.

--rules prints, instead of rewriting a FILE, the table of the patterns the rewrite absorbs: for each rule
its name, the side of the dot it looks at, the HLO it matches (x is the value a step up an operand chain
applies to, D the dot's result; conditions on an instruction in braces) and what the call does with it.
These are the patterns the rewrite matches with, and the brackets of --explain are their text. With
--json the table is a JSON array of {"name", "side", "pattern", "effect"}.

A dot whose operands are block dequantizes (MX or NVFP4 values times scales repeated over blocks,
multiply(convert(x), reshape(broadcast(convert(scale)))), as XLA's block scaling matcher reads them)
becomes XLA's scaled-dot instruction, or with --block-target=cudnn the __cudnn$blockScaledDot call XLA's
block scaling rewriter makes of one on Blackwell (MXFP8 or NVFP4 only; rows padded to 128, scales padded
to 128 x 4 and swizzled, the result sliced back). A side that is not dequantized keeps its values with a
scale of ones. A dequantize in f16 or another type than bf16 and f32 is refused: scaled-dot dequantizes in
bf16, which rounds and overflows elsewhere than f16.

--abi=legacy makes the six-scalar operand form of XLA up to 2024 (a, b, a_scale, b_scale, c_scale,
d_scale). The input is verified (as "octet verify" does) before it is rewritten. The exit status is 1 when
the input does not parse or verify, or a run fails.`,
		Order: 21,
		Run:   runFuse,

		ReadsModules: true,
	})
}

// fuseOutput is the JSON form of one rewritten module.
type fuseOutput struct {
	Module string           `json:"module"`
	GEMMs  []*fuse.Decision `json:"gemms"`
	Verify *verifyOutcome   `json:"verify,omitempty"`
}

// verifyOutcome is what --verify found. The first fields are the run on random normal inputs; Families
// are every run, that one first, each against its tolerance.
type verifyOutcome struct {
	Seed        uint64    `json:"seed"`
	Elements    int64     `json:"elements"`
	BitMatches  int64     `json:"bit_matches"`
	MatchRate   float64   `json:"match_rate"`
	MaxAbsDiff  jsonFloat `json:"max_abs_diff"`
	MaxRelDiff  jsonFloat `json:"max_rel_diff"`
	NaNMismatch int64     `json:"nan_mismatches"`
	// MaxAbs is the largest finite magnitude of the original module's results: the scale of the
	// differences.
	MaxAbs  jsonFloat `json:"max_abs"`
	Summary string    `json:"summary"`
	// Tolerance is the bound of the normal run; OK says every run is within its bound, Verdict says so in
	// one line.
	Tolerance jsonFloat      `json:"tolerance"`
	Families  []familyResult `json:"families"`
	OK        bool           `json:"ok"`
	Verdict   string         `json:"verdict"`
}

// familyResult is one --verify run on one family of inputs.
type familyResult struct {
	Name       string    `json:"name"`
	MaxAbs     jsonFloat `json:"max_abs"`
	MaxAbsDiff jsonFloat `json:"max_abs_diff"`
	Tolerance  jsonFloat `json:"tolerance"`
	// NaNMismatches counts elements NaN in one result only; Saturated those where the original's FP8
	// conversion overflowed to NaN and the call saturated to the format's largest value, as XLA's
	// rewrite does too (not a failure).
	NaNMismatches int64 `json:"nan_mismatches"`
	Saturated     int64 `json:"saturated,omitempty"`
	OK            bool  `json:"ok"`
}

func runFuse(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the decisions as JSON instead of the module")
	explain := fs.Bool("explain", false, "print the decision and the matched patterns for every FP8 dot")
	verify := fs.Bool("verify", false, "run the original and the rewritten module on random inputs and compare")
	abiName := fs.String("abi", "current", "operand form of the custom call: current or legacy")
	format := fs.String("format", "readable", "output format: readable, xla, xla-long, xla-short or json")
	seed := fs.Uint64("seed", 1, "seed of the random inputs of --verify")
	listRules := fs.Bool("rules", false, "print the table of the patterns the rewrite absorbs instead of rewriting FILE")
	blockName := fs.String("block-target", "scaled-dot", "what a dot of block dequantizes (MX, NVFP4) becomes: scaled-dot or cudnn (__cudnn$blockScaledDot)")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if *listRules {
		if len(files) != 0 {
			return usagef("fuse --rules takes no FILE")
		}
		return writeRules(inv.stdout, *asJSON)
	}
	if len(files) != 1 {
		return usagef("fuse takes one FILE")
	}
	abi, err := fuse.ParseABI(*abiName)
	if err != nil {
		return usagef("%v", err)
	}
	block, err := fuse.ParseBlockTarget(*blockName)
	if err != nil {
		return usagef("%v", err)
	}
	style, err := printer.ParseStyle(*format)
	if err != nil {
		return usagef("%v", err)
	}
	src, display, err := inv.readInput(files[0])
	if err != nil {
		return err
	}
	mods, err := inv.loadSource(display, src)
	if err != nil {
		return err
	}
	var originals []*hlo.Module
	if *verify {
		if originals, err = inv.loadSource(display, src); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	var outputs []fuseOutput
	failed := 0
	for i, m := range mods {
		report := fuse.Rewrite(m, fuse.Options{ABI: abi, Block: block})
		if err := hlo.Verify(m); err != nil {
			panic(fmt.Sprintf("%s: the rewritten module %s does not verify:\n%v", display, m.Name, err))
		}
		o := fuseOutput{Module: report.Module, GEMMs: report.Decisions}
		if o.GEMMs == nil {
			o.GEMMs = []*fuse.Decision{}
		}
		if *verify {
			v, err := verifyRewrite(originals[i], m, report.Decisions, *seed)
			if err != nil {
				return fmt.Errorf("%s: --verify: %v", display, err)
			}
			o.Verify = v
			if !v.OK {
				failed++
			}
		}
		outputs = append(outputs, o)
		if *asJSON {
			continue
		}
		if i > 0 {
			out.WriteString("// -----\n\n")
		}
		if *explain {
			writeExplanation(&out, report)
		}
		if err := printer.Fprint(&out, m, printConfig(style)); err != nil {
			return err
		}
		if o.Verify != nil {
			fmt.Fprintf(&out, "\n// verify (seed %d): %s\n", o.Verify.Seed, o.Verify.Summary)
			for _, r := range o.Verify.Families {
				fmt.Fprintf(&out, "// verify %s: largest difference %g, tolerance %g", r.Name, float64(r.MaxAbsDiff), float64(r.Tolerance))
				if r.Saturated > 0 {
					fmt.Fprintf(&out, ", %d saturated where the original overflowed", r.Saturated)
				}
				if r.NaNMismatches > 0 {
					fmt.Fprintf(&out, ", %d NaN in one result only", r.NaNMismatches)
				}
				fmt.Fprintln(&out)
			}
			fmt.Fprintf(&out, "// verify: %s\n", o.Verify.Verdict)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		var v any = outputs[0]
		if len(outputs) > 1 {
			v = outputs
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	if _, err := inv.stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("octet fuse: --verify: the rewrite of %s disagrees with the original", plural(failed, "module"))}
	}
	return nil
}

// writeRules prints the rewrite's rule table, as text or as JSON.
func writeRules(w io.Writer, asJSON bool) error {
	rules := fuse.Rules()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rules)
	}
	var b bytes.Buffer
	side := ""
	for _, r := range rules {
		if r.Side != side {
			side = r.Side
			switch side {
			case "operand":
				b.WriteString("# before the dot, one step up an operand chain at a time (x is the step's operand)\n")
			default:
				b.WriteString("\n# after the dot, in the order cuBLASLt computes them (D is the dot's result)\n")
			}
		}
		fmt.Fprintf(&b, "%s\n    %s\n    %s\n", r.Name, r.Pattern, r.Effect)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeExplanation prints the decisions of a rewrite as comment lines.
func writeExplanation(w io.Writer, r *fuse.Result) {
	fused := 0
	for _, g := range r.Decisions {
		if g.Fused {
			fused++
		}
	}
	fmt.Fprintf(w, "// %s: %s with an FP8 operand chain, %d fused\n", esc(r.Module), plural(len(r.Decisions), "dot"), fused)
	for _, g := range r.Decisions {
		verdict := "fused into %" + g.Call
		if !g.Fused {
			verdict = "not fused: " + g.Reason
		}
		fmt.Fprintf(w, "//\n// dot %%%s (computation %%%s): %s\n", esc(g.Dot), esc(g.Computation), esc(verdict))
		for _, e := range g.Explain {
			fmt.Fprintf(w, "//   %s\n", esc(e))
		}
		if g.XLA.Fusible != g.Octet.Fusible {
			fmt.Fprintf(w, "//   XLA's rules differ: %s\n", esc(xlaText(g.XLA.Fusible, g.XLA.Why)))
		}
		if g.XLA.Bug != "" {
			fmt.Fprintf(w, "//   XLA bug: %s\n", esc(g.XLA.Bug))
		}
	}
	fmt.Fprintln(w)
}

// inputFamily is a family of --verify inputs: the value of element i of a float parameter of type t whose
// elements are laid out as rows of cols (a scalar is one row of one).
type inputFamily struct {
	name string
	fill func(t dtype.Type, i, cols int64) float64
}

// verifyFamilies are the inputs --verify runs after the random normal ones, chosen to expose what normal
// inputs hide: every value 1 (no cancellation, a bias never outweighed), the FP8 operands at their
// format's largest value (saturation and range), rows and columns of very different magnitudes (powers of
// two from 2^-6 to 2^6, exact in every FP8 format), and zeros.
var verifyFamilies = []inputFamily{
	{"ones", func(dtype.Type, int64, int64) float64 { return 1 }},
	{"near-max", func(t dtype.Type, _, _ int64) float64 {
		if t.IsFP8() {
			return t.Finfo().Max
		}
		return 1
	}},
	{"magnitudes", func(_ dtype.Type, i, cols int64) float64 {
		r, c := i/cols, i%cols
		return math.Ldexp(1, int(r%7)-3) * math.Ldexp(1, 3-int(c%7))
	}},
	{"zeros", func(dtype.Type, int64, int64) float64 { return 0 }},
}

// familyInputs replaces the float arrays of args (random normal values) by the family's values.
func familyInputs(args []interp.Value, f inputFamily) []interp.Value {
	out := make([]interp.Value, len(args))
	for i, a := range args {
		out[i] = a
		if a.Kind != interp.KindArray || !a.Array.Type.IsFloat() {
			continue
		}
		src := a.Array
		t := tensor.New(src.Type, src.Shape)
		cols := int64(1)
		if len(src.Shape) > 0 {
			cols = max(src.Shape[len(src.Shape)-1], 1)
		}
		for j := range t.NumElements() {
			t.SetBitsAt(j, t.Type.EncodeFloat64(f.fill(t.Type, j, cols)))
		}
		out[i] = interp.ArrayValue(t)
	}
	return out
}

// ulp returns the distance between x (> 0) and the next larger value of the floating-point type t.
func ulp(t dtype.Type, x float64) float64 {
	fi := t.Finfo()
	if x < fi.SmallestNormal {
		return fi.SmallestSubnormal
	}
	return fi.Eps * math.Pow(2, math.Floor(math.Log2(x)))
}

// tolerance is the largest difference --verify accepts between the original module and the rewritten
// one, for a GEMM whose dot computes in type t (the unfused module's chain type), with contracting size k,
// and whose call writes D of type d and absorbs the given instructions after the dot. maxAbs is the largest
// magnitude of the original results.
//
// The call computes everything from the exact FP8 values in f32 and rounds once, to D. The original rounds
// to t after each step it takes in t: the dequantize of A and of B (2), the dot's result (1) and each
// absorbed instruction (len(absorbed)); each of those n roundings moves a value by at most u_t (half of
// t's epsilon) relative to it. The values are bounded by maxAbs times rho, where rho covers the cancellation
// inside the dot (sum |a_i b_i| against |sum a_i b_i|); for standard-normal inputs that ratio is about
// sqrt(k)/4 for the largest result, and rho = 2 + sqrt(k)/4 leaves room (the other families cancel less).
// Both modules also accumulate the k products in f32, in the same order but on different values:
// sqrt(k) * u_f32 more. The final rounding to D of two such nearby values can land on neighbours: one ulp
// of D at maxAbs, and one more for the abs-max output rounded in the original's type. So
//
//	tolerance = 2 ulp_d(maxAbs) + (n u_t + sqrt(k) u_f32) rho maxAbs.
func tolerance(t, d dtype.Type, k int64, absorbed int, maxAbs float64) float64 {
	ut, u32 := t.Finfo().Eps/2, dtype.F32.Finfo().Eps/2
	if !t.IsFloat() || t.IsFP8() {
		// An FP8 dot result rounds once in both modules: only the f32 accumulation differs.
		ut = 0
	}
	n := float64(3 + absorbed)
	sk := math.Sqrt(float64(k))
	rho := 2 + sk/4
	return 2*ulp(d, math.Max(maxAbs, 1e-30)) + (n*ut+sk*u32)*rho*maxAbs
}

// moduleTolerance is the largest tolerance of the module's fused GEMMs (0 when none is fused: the
// rewritten module must then compute exactly what the original does).
func moduleTolerance(gemms []*fuse.Decision, maxAbs float64) float64 {
	tol := 0.0
	for _, g := range gemms {
		if !g.Fused {
			continue
		}
		t, _ := dtype.Lookup(g.DotType)
		d, _ := dtype.Lookup(g.DType)
		tol = math.Max(tol, tolerance(t, d, g.K, len(g.Absorbed), maxAbs))
	}
	return tol
}

// runBoth runs the original and the rewritten module on args.
func runBoth(orig, fused *hlo.Module, args []interp.Value, opts interp.Options) (want, got interp.Value, err error) {
	if want, err = interp.Run(orig, args, opts); err != nil {
		return want, got, fmt.Errorf("the original module: %v", err)
	}
	if got, err = interp.Run(fused, args, opts); err != nil {
		return want, got, fmt.Errorf("the rewritten module: %v", err)
	}
	return want, got, nil
}

// judge compares one run against the tolerance of the module's GEMMs.
func judge(name string, want, got interp.Value, gemms []*fuse.Decision) (familyResult, error) {
	ws, gs := want.Flatten(), got.Flatten()
	if len(ws) != len(gs) {
		return familyResult{}, fmt.Errorf("the results have %d and %d arrays", len(ws), len(gs))
	}
	r := familyResult{Name: name}
	var maxAbs, maxDiff float64
	for i, w := range ws {
		g := gs[i]
		if w.Type != g.Type || w.NumElements() != g.NumElements() {
			return r, fmt.Errorf("result %d is %s in the original and %s in the rewritten module", i, w, g)
		}
		if !w.Type.IsFloat() {
			if string(w.Data) != string(g.Data) {
				maxDiff = math.Inf(1)
			}
			continue
		}
		wv, gv := w.Float64s(), g.Float64s()
		top := w.Type.Finfo().Max
		for j := range wv {
			a, b := wv[j], gv[j]
			switch {
			case math.IsNaN(a) && math.IsNaN(b):
				continue
			case math.IsNaN(a) && w.Type.IsFP8() && math.Abs(b) == top:
				r.Saturated++
				continue
			case math.IsNaN(a) != math.IsNaN(b):
				r.NaNMismatches++
				continue
			}
			if !math.IsInf(a, 0) {
				maxAbs = math.Max(maxAbs, math.Abs(a))
			}
			if a != b {
				maxDiff = math.Max(maxDiff, math.Abs(a-b))
			}
		}
	}
	r.MaxAbs, r.MaxAbsDiff = jsonFloat(maxAbs), jsonFloat(maxDiff)
	tol := moduleTolerance(gemms, maxAbs)
	r.Tolerance = jsonFloat(tol)
	r.OK = r.NaNMismatches == 0 && maxDiff <= tol
	return r, nil
}

// verifyRewrite runs the original module and the rewritten one on the same random normal inputs, then on
// each of verifyFamilies, and judges every run against the tolerance of the module's fused GEMMs.
func verifyRewrite(orig, fused *hlo.Module, gemms []*fuse.Decision, seed uint64) (*verifyOutcome, error) {
	opts := interp.Options{MaxMemory: defaultMemoryBudget()}
	for _, m := range []*hlo.Module{orig, fused} {
		if err := interp.CheckMemory(m, opts); err != nil {
			return nil, err
		}
	}
	args, err := interp.RandomInputs(orig, seed)
	if err != nil {
		return nil, err
	}
	want, got, err := runBoth(orig, fused, args, opts)
	if err != nil {
		return nil, err
	}
	c := interp.Compare(want, got)
	if c.Mismatch != "" {
		return nil, fmt.Errorf("the results differ in shape: %s", c.Mismatch)
	}
	normal, err := judge("normal", want, got, gemms)
	if err != nil {
		return nil, err
	}
	v := &verifyOutcome{Seed: seed, MaxAbs: normal.MaxAbs, Elements: c.Elements, BitMatches: c.BitMatches, MatchRate: c.MatchRate(),
		MaxAbsDiff: jsonFloat(c.MaxAbsDiff), MaxRelDiff: jsonFloat(c.MaxRelDiff), NaNMismatch: c.NaNMismatches,
		Summary: strings.TrimSpace(c.String()), Tolerance: normal.Tolerance, Families: []familyResult{normal}}
	for _, f := range verifyFamilies {
		want, got, err := runBoth(orig, fused, familyInputs(args, f), opts)
		if err != nil {
			return nil, fmt.Errorf("inputs %s: %v", f.name, err)
		}
		r, err := judge(f.name, want, got, gemms)
		if err != nil {
			return nil, fmt.Errorf("inputs %s: %v", f.name, err)
		}
		v.Families = append(v.Families, r)
	}
	v.OK = true
	var bad []string
	for _, r := range v.Families {
		if !r.OK {
			v.OK = false
			what := fmt.Sprintf("%s: largest difference %g exceeds the tolerance %g", r.Name, float64(r.MaxAbsDiff), float64(r.Tolerance))
			if r.NaNMismatches > 0 {
				what = fmt.Sprintf("%s: %d elements NaN in one result only", r.Name, r.NaNMismatches)
			}
			bad = append(bad, what)
		}
	}
	if v.OK {
		v.Verdict = fmt.Sprintf("ok: the rewrite agrees with the original within tolerance on %d input families (normal, %s)",
			len(v.Families), familyNames())
	} else {
		v.Verdict = "FAILED: the rewrite disagrees with the original: " + strings.Join(bad, "; ")
	}
	return v, nil
}

func familyNames() string {
	var names []string
	for _, f := range verifyFamilies {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// jsonFloat is a float64 that JSON can hold when it is infinite or NaN: those are written as the strings
// "Infinity", "-Infinity" and "NaN", as protobuf's JSON does.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
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

// xlaText is XLA's verdict in words: how it fuses the dot, or why not.
func xlaText(fusible bool, why string) string {
	if fusible {
		return why
	}
	return "XLA's GEMM rewriter does not fuse it: " + why
}
