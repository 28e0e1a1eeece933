package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"octet/fuse"
	"octet/fuse/verify"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/interp"
)

func init() {
	register(&command{
		Name:      "fuse",
		UsageLine: "fuse [--json] [--explain] [--verify [--seed N]] [--abi=current|legacy] [--block-target=scaled-dot|cudnn] [--format=FORMAT] FILE|--rules",
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
at their format's largest value, rows and columns of very different magnitudes, zeros with the scalar
scales kept at 1, since a divide by a zero scale is outside what a rewrite keeps). In each run it
compares every element of each call's D with the value of the original it replaced, against a bound of
its own: one rounding to D's type (an ulp of D at that element) plus the roundings the original makes in
its chain type and the float32 accumulation, scaled by that element's sum |a b| of products (package
fuse/verify derives it). It runs the rewritten module with the original's values in place of each call's
results, and its outputs must then be the original's, bit for bit: nothing else changed. It prints the
share of bit-identical elements of the normal run as the rewritten module computes it, each GEMM's largest
difference in ulps of D against its bound, and a verdict line; the exit status is 1 when an element is
beyond its bound or an output differs. Where the original's FP8 conversion overflows to NaN and the call
saturates to the format's largest value, as XLA's rewrite also does, the element is counted as saturated,
not as a disagreement; likewise an element the original made infinite or NaN with an f16 step in its
chain (an f16 dequantize overflows past 65504, where the call's float32 does not) is counted as
overflowed, whatever the call gives there. A GEMM in a computation the entry calls, or in the body of a
while loop (a scan over layers), is compared at every evaluation, each one given the original's values of
the evaluations before; one inside a fusion is refused. The two modules run side by side, the original
keeping each value only until the rewritten module has compared it, where the memory budget (half of the
physical memory) holds both; else one after the other, the original's values of every evaluation kept.
Where no dot was fused and the module is unchanged, nothing is run: the verdict says so.

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

// verifyOutcome is what --verify found. The first fields compare the rewritten module's outputs, as it
// computes them, with the original's on the random normal inputs; Families are the runs of package
// fuse/verify, that one first, each GEMM element by element against its bound.
type verifyOutcome struct {
	Seed        uint64           `json:"seed"`
	Elements    int64            `json:"elements"`
	BitMatches  int64            `json:"bit_matches"`
	MatchRate   float64          `json:"match_rate"`
	MaxAbsDiff  verify.Float     `json:"max_abs_diff"`
	MaxRelDiff  verify.Float     `json:"max_rel_diff"`
	NaNMismatch int64            `json:"nan_mismatches"`
	Summary     string           `json:"summary"`
	Families    []*verify.Result `json:"families"`
	OK          bool             `json:"ok"`
	Verdict     string           `json:"verdict"`
}

func runFuse(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the decisions as JSON instead of the module")
	explain := fs.Bool("explain", false, "print the decision and the matched patterns for every FP8 dot")
	verifyFlag := fs.Bool("verify", false, "run the original and the rewritten module on random inputs and compare")
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
	if *verifyFlag {
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
		if *verifyFlag {
			v, err := verifyRewrite(originals[i], m, report.Decisions, *seed)
			if err != nil {
				return fmt.Errorf("%s: --verify: %w", display, err)
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
			writeVerify(&out, o.Verify)
		}
	}
	if *asJSON {
		var v any = outputs[0]
		if len(outputs) > 1 {
			v = outputs
		}
		if err := writeJSON(&out, v); err != nil {
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
		return writeJSON(w, rules)
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

// verifyRewrite checks the rewrite with package fuse/verify on random normal inputs and each input
// family, within the command's memory budget.
func verifyRewrite(orig, fused *hlo.Module, gemms []*fuse.Decision, seed uint64) (*verifyOutcome, error) {
	if !slices.ContainsFunc(gemms, func(g *fuse.Decision) bool { return g.Fused }) {
		// Nothing rewritten: no run is needed, nor possible where the module holds what the interpreter
		// does not run (a LAPACK call, a bit generator).
		cfg := printer.ConfigFor(printer.StyleXLA)
		if printer.Sprint(orig, cfg) == printer.Sprint(fused, cfg) {
			return &verifyOutcome{Seed: seed, Summary: "nothing was rewritten", Families: []*verify.Result{}, OK: true,
				Verdict: "ok: no dot was fused, and the module is the original"}, nil
		}
	}
	r, err := verify.Run(orig, fused, gemms, seed, interp.Options{MaxMemory: defaultMemoryBudget()})
	if err != nil {
		return nil, err
	}
	c := r.EndToEnd
	v := &verifyOutcome{Seed: seed, Elements: c.Elements, BitMatches: c.BitMatches, MatchRate: c.MatchRate(),
		MaxAbsDiff: verify.Float(c.MaxAbsDiff), MaxRelDiff: verify.Float(c.MaxRelDiff), NaNMismatch: c.NaNMismatches,
		Summary: strings.TrimSpace(c.String()), Families: r.Runs, OK: r.OK}
	fused8 := 0
	for _, g := range gemms {
		if g.Fused {
			fused8++
		}
	}
	var names []string
	var bad []string
	for _, run := range r.Runs {
		names = append(names, run.Name)
		for _, g := range run.GEMMs {
			if g.Failures > 0 {
				w := g.Worst
				what := fmt.Sprintf("%g for %g, %s of %s against %.3g", float64(w.Got), float64(w.Want), ulps(float64(w.ULPs)), g.DType, float64(w.BoundULPs))
				if !finiteElement(w) {
					what = nonFiniteText(w)
				}
				bad = append(bad, fmt.Sprintf("%s: %%%s: %d of %d elements beyond their bound (element %d: %s)",
					run.Name, g.Dot, g.Failures, g.Elements, w.Index, what))
			}
			if a := g.Amax; a != nil && a.Share() > 1 {
				bad = append(bad, fmt.Sprintf("%s: %%%s: the abs-max %g for %g, beyond its bound %g", run.Name, g.Dot, float64(a.Got), float64(a.Want), float64(a.Bound)))
			}
		}
		if run.Mismatches > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d output elements differ from the original's given its GEMM results (%s)", run.Name, run.Mismatches, run.FirstMismatch))
		}
	}
	// A GEMM no input reached (in a branch not taken, a loop that ran no iteration) was compared nowhere:
	// the verdict does not count it.
	var unevaluated []string
	for i, g := range r.Runs[0].GEMMs {
		if !slices.ContainsFunc(r.Runs, func(run *verify.Result) bool { return run.GEMMs[i].Evaluations > 0 }) {
			unevaluated = append(unevaluated, "%"+g.Dot)
		}
	}
	switch {
	case v.OK && fused8 > len(unevaluated):
		v.Verdict = fmt.Sprintf("ok: on %d input families (%s), every element of %s within its bound and the other outputs identical",
			len(r.Runs), strings.Join(names, ", "), plural(fused8-len(unevaluated), "fused GEMM"))
		if len(unevaluated) > 0 {
			v.Verdict += fmt.Sprintf("; not checked: %s, which no input reached", strings.Join(unevaluated, ", "))
		}
	case v.OK:
		v.Verdict = fmt.Sprintf("ok as far as it goes: on %d input families (%s) the outputs are identical, but no input reached a fused GEMM (%s: a branch not taken, or a loop that ran no iteration)",
			len(r.Runs), strings.Join(names, ", "), strings.Join(unevaluated, ", "))
	default:
		v.Verdict = "FAILED: the rewrite disagrees with the original: " + strings.Join(bad, "; ")
	}
	return v, nil
}

// finiteElement reports whether an element and its bound are finite numbers, so that its difference in
// ulps against the bound in ulps means something.
func finiteElement(e verify.Element) bool {
	for _, x := range []verify.Float{e.Want, e.Got, e.ULPs, e.BoundULPs} {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// nonFiniteText says what an element that is not finite, or whose bound is not, holds: "+Inf where the
// original has NaN", and, when the bound is not finite, that the original's inputs overflow it (a scale
// that is infinite, or a divide by a zero scale).
func nonFiniteText(e verify.Element) string {
	s := fmt.Sprintf("%g where the original has %g", float64(e.Got), float64(e.Want))
	if b := float64(e.Bound); math.IsNaN(b) || math.IsInf(b, 0) {
		s += " (no finite bound: a scale or the sum of |a b| is infinite or NaN, as after a divide by a zero scale)"
	}
	return s
}

// ulps writes a difference in units in the last place: "1 ulp", "2.5 ulps".
func ulps(x float64) string {
	if x == 1 {
		return "1 ulp"
	}
	return fmt.Sprintf("%.3g ulps", x)
}

// writeVerify prints what --verify found as comment lines after the module.
func writeVerify(w io.Writer, v *verifyOutcome) {
	fmt.Fprintf(w, "\n// verify (seed %d): %s\n", v.Seed, v.Summary)
	for _, run := range v.Families {
		for _, g := range run.GEMMs {
			fmt.Fprintf(w, "// verify %s %%%s: %d of %d elements identical", run.Name, g.Dot, g.BitMatches, g.Elements)
			if g.Evaluations != 1 {
				// A GEMM in a loop's body, compared at each iteration; or in a branch not taken.
				fmt.Fprintf(w, " over %s", plural(int(g.Evaluations), "evaluation"))
			}
			if wst := g.Worst; wst.Index >= 0 && !finiteElement(wst) {
				fmt.Fprintf(w, ", the worst element %d: %s", wst.Index, nonFiniteText(wst))
				if g.Evaluations > 1 {
					fmt.Fprintf(w, " (evaluation %d)", g.WorstEvaluation+1)
				}
			} else if wst.Index >= 0 {
				fmt.Fprintf(w, ", the largest difference %s of %s (%g for %g", ulps(float64(wst.ULPs)), g.DType, float64(wst.Got), float64(wst.Want))
				if g.Evaluations > 1 {
					fmt.Fprintf(w, ", evaluation %d", g.WorstEvaluation+1)
				}
				fmt.Fprintf(w, ") against a bound of %.3g", float64(wst.BoundULPs))
			}
			if g.Failures > 0 {
				fmt.Fprintf(w, ", %d beyond their bound", g.Failures)
			}
			if g.Saturated > 0 {
				fmt.Fprintf(w, ", %d saturated where the original overflowed", g.Saturated)
			}
			if g.Overflowed > 0 {
				fmt.Fprintf(w, ", %d where the original overflowed f16", g.Overflowed)
			}
			if a := g.Amax; a != nil {
				fmt.Fprintf(w, "; abs-max %g for %g (bound %.3g)", float64(a.Got), float64(a.Want), float64(a.Bound))
			}
			fmt.Fprintln(w)
		}
		if run.Mismatches > 0 {
			fmt.Fprintf(w, "// verify %s: %d output elements differ from the original's given its GEMM results: %s\n", run.Name, run.Mismatches, run.FirstMismatch)
		}
	}
	fmt.Fprintf(w, "// verify: %s\n", v.Verdict)
}

// xlaText is XLA's verdict in words: how it fuses the dot, or why not.
func xlaText(fusible bool, why string) string {
	if fusible {
		return why
	}
	return "XLA's GEMM rewriter does not fuse it: " + why
}
