package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"math"
	"strings"

	"octet/fuse"
	"octet/hlo"
	"octet/hlo/printer"
	"octet/interp"
)

func init() {
	register(&command{
		Name:      "fuse",
		UsageLine: "fuse [--json] [--explain] [--verify] [--abi=current|legacy] [--format=FORMAT] FILE|--rules",
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
beta, reason and the explanation.

--verify runs the original and the rewritten module on the same random inputs (--seed) with Octet's
interpreter and prints the share of bit-identical result elements and the largest difference. The
fused call rounds once where the original rounds after every step, so bits may differ in bf16 and f16.

--rules prints, instead of rewriting a FILE, the table of the patterns the rewrite absorbs: for each rule
its name, the side of the dot it looks at, the HLO it matches (x is the value a step up an operand chain
applies to, D the dot's result; conditions on an instruction in braces) and what the call does with it.
These are the patterns the rewrite matches with, and the brackets of --explain are their text. With
--json the table is a JSON array of {"name", "side", "pattern", "effect"}.

--abi=legacy makes the six-scalar operand form of XLA up to 2024 (a, b, a_scale, b_scale, c_scale,
d_scale). The exit status is 1 when the input does not parse or a run fails.`,
		Order: 21,
		Run:   runFuse,
	})
}

// fuseOutput is the JSON form of one rewritten module.
type fuseOutput struct {
	Module string           `json:"module"`
	GEMMs  []*fuse.Decision `json:"gemms"`
	Verify *verifyOutcome   `json:"verify,omitempty"`
}

// verifyOutcome is what --verify found.
type verifyOutcome struct {
	Seed        uint64    `json:"seed"`
	Elements    int64     `json:"elements"`
	BitMatches  int64     `json:"bit_matches"`
	MatchRate   float64   `json:"match_rate"`
	MaxAbsDiff  jsonFloat `json:"max_abs_diff"`
	MaxRelDiff  jsonFloat `json:"max_rel_diff"`
	NaNMismatch int64     `json:"nan_mismatches"`
	// MaxAbs is the largest magnitude of the original module's results: the scale of the differences.
	MaxAbs  jsonFloat `json:"max_abs"`
	Summary string    `json:"summary"`
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
	style, err := printer.ParseStyle(*format)
	if err != nil {
		return usagef("%v", err)
	}
	src, display, err := inv.readInput(files[0])
	if err != nil {
		return err
	}
	mods, err := parseSource(token.NewFileSet(), display, src)
	if err != nil {
		return parseError(err)
	}
	var originals []*hlo.Module
	if *verify {
		if originals, err = parseSource(token.NewFileSet(), display, src); err != nil {
			return parseError(err)
		}
	}
	var out bytes.Buffer
	var outputs []fuseOutput
	for i, m := range mods {
		inputOK := hlo.Verify(m) == nil
		report := fuse.Rewrite(m, fuse.Options{ABI: abi})
		if inputOK {
			if err := hlo.Verify(m); err != nil {
				return fmt.Errorf("%s: internal error: the rewritten module %s does not verify:\n%v", display, m.Name, err)
			}
		}
		o := fuseOutput{Module: report.Module, GEMMs: report.Decisions}
		if o.GEMMs == nil {
			o.GEMMs = []*fuse.Decision{}
		}
		if *verify {
			v, err := verifyRewrite(originals[i], m, *seed)
			if err != nil {
				return fmt.Errorf("%s: --verify: %v", display, err)
			}
			o.Verify = v
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
	_, err = inv.stdout.Write(out.Bytes())
	return err
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
	fmt.Fprintf(w, "// %s: %s with an FP8 operand chain, %d fused\n", r.Module, plural(len(r.Decisions), "dot"), fused)
	for _, g := range r.Decisions {
		verdict := "fused into %" + g.Call
		if !g.Fused {
			verdict = "not fused: " + g.Reason
		}
		fmt.Fprintf(w, "//\n// dot %%%s (computation %%%s): %s\n", g.Dot, g.Computation, verdict)
		for _, e := range g.Explain {
			fmt.Fprintf(w, "//   %s\n", e)
		}
	}
	fmt.Fprintln(w)
}

// verifyRewrite runs the original module and the rewritten one on the same random inputs and compares
// their results.
func verifyRewrite(orig, fused *hlo.Module, seed uint64) (*verifyOutcome, error) {
	args, err := interp.RandomInputs(orig, seed)
	if err != nil {
		return nil, err
	}
	want, err := interp.Run(orig, args, interp.Options{})
	if err != nil {
		return nil, fmt.Errorf("the original module: %v", err)
	}
	got, err := interp.Run(fused, args, interp.Options{})
	if err != nil {
		return nil, fmt.Errorf("the rewritten module: %v", err)
	}
	c := interp.Compare(want, got)
	if c.Mismatch != "" {
		return nil, fmt.Errorf("the results differ in shape: %s", c.Mismatch)
	}
	var maxAbs float64
	for _, t := range want.Flatten() {
		if t.Type.IsFloat() {
			for _, v := range t.Float64s() {
				if !math.IsNaN(v) {
					maxAbs = math.Max(maxAbs, math.Abs(v))
				}
			}
		}
	}
	return &verifyOutcome{Seed: seed, MaxAbs: jsonFloat(maxAbs), Elements: c.Elements, BitMatches: c.BitMatches, MatchRate: c.MatchRate(),
		MaxAbsDiff: jsonFloat(c.MaxAbsDiff), MaxRelDiff: jsonFloat(c.MaxRelDiff), NaNMismatch: c.NaNMismatches,
		Summary: strings.TrimSpace(c.String())}, nil
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
