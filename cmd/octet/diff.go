package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"octet/fuse/report"
	"octet/hlo"
)

func init() {
	register(&command{
		Name:      "diff",
		UsageLine: "diff [--json] [--fail-on-regression] A B",
		Short:     "compare the FP8 GEMM fusions of two compiled modules",
		Long: `Diff runs "octet check" on two modules, A (before, say the module an older JAX compiled) and B
(after), pairs their FP8 GEMMs by what they compute, and reports the fusions B lost, the ones it gained,
and the fused calls whose epilogue, abs-max output, D type, alpha or beta changed.

GEMMs are paired one to one: first by a dataflow fingerprint of their FP8 sources (what each is computed
from, blind to instruction names, instruction order and parameter numbering; a dot and the call octet
fuse made of it have the same one), then by the op_name of their metadata where several share one, then
by their operand shapes and k. Pairs the rounds cannot tell apart are made in module order and reported
as ambiguous, never as certain.

Each FILE holds one module (gzipped or not; - is standard input for one of them). --json prints the
changes and every pair with what paired it. --fail-on-regression exits with status 1 when an FP8 GEMM
fused in A is not fused in B, naming it. Block-scaled GEMMs (MX, NVFP4) are paired the same way: one that
A holds as a block-scaled call or fusion and B as a dot on dequantized blocks is lost. Both modules are verified (as "octet verify" does) before they
are compared.`,
		Order: 22,
		Run:   runDiff,

		ReadsModules: true,
	})
}

// diffOutput is the JSON form of a diff.
type diffOutput struct {
	FileA     string `json:"a"`
	FileB     string `json:"b"`
	ModuleA   string `json:"module_a"`
	ModuleB   string `json:"module_b"`
	Regressed bool   `json:"regressed"`
	*report.Difference
}

func runDiff(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	failOnRegression := fs.Bool("fail-on-regression", false, "exit with status 1 when a fusion is lost")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return usagef("diff takes two FILEs, A and B")
	}
	if files[0] == "-" && files[1] == "-" {
		return usagef("only one of A and B can be standard input")
	}
	var mods [2]*hlo.Module
	for i, name := range files {
		ms, err := inv.loadModules(name)
		if err != nil {
			return err
		}
		if len(ms) != 1 {
			return fmt.Errorf("%s: holds %d modules; diff compares one with one", name, len(ms))
		}
		mods[i] = ms[0]
	}
	for i := range files {
		files[i] = displayName(files[i])
	}
	ra, rb := report.Check(mods[0]), report.Check(mods[1])
	d := report.Diff(ra, rb)
	o := diffOutput{FileA: files[0], FileB: files[1], ModuleA: ra.Module, ModuleB: rb.Module, Regressed: d.Regressed(), Difference: d}
	var out bytes.Buffer
	if *asJSON {
		if err := writeJSON(&out, o); err != nil {
			return err
		}
	} else {
		writeDiff(&out, files, ra, rb, d)
	}
	if _, err := inv.stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if *failOnRegression && d.Regressed() {
		var names []string
		for _, c := range d.Lost {
			n := fmt.Sprintf("%%%s (%s)", esc(c.A.Name), esc(c.Key))
			if c.B != nil {
				n += " became %" + esc(c.B.Name)
				if c.B.Dot != "" {
					n += " (dot %" + esc(c.B.Dot) + ")"
				}
			}
			names = append(names, n)
		}
		noun, verb := lostNoun(d)
		return &exitError{code: 1, msg: fmt.Sprintf("octet diff: regression: %s %s in %s %s no longer %s in %s: %s",
			plural(len(d.Lost), noun), verb, esc(files[0]), map[bool]string{true: "is", false: "are"}[len(d.Lost) == 1], verb, esc(files[1]),
			strings.Join(names, ", "))}
	}
	return nil
}

func writeDiff(w io.Writer, files []string, ra, rb *report.Report, d *report.Difference) {
	for i, r := range []*report.Report{ra, rb} {
		fmt.Fprintf(w, "%s: %s (module %s): %s, %d fused%s\n", "AB"[i:i+1], esc(files[i]), esc(r.Module), plural(len(r.GEMMs)-r.BlockScaled, "FP8 GEMM"),
			r.Fused, blockCount(r))
	}
	section := func(title string, cs []*report.Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(w, "%s: %d\n", title, len(cs))
		for _, c := range cs {
			fmt.Fprintf(w, "  %s\n    %s\n", esc(c.Key), esc(c.What))
		}
	}
	section("LOST (fused in A, not in B)", d.Lost)
	section("gained (fused in B, not in A)", d.Gained)
	section("changed", d.Changed)
	section("only in B, not fused", d.Added)
	section("only in A, not fused", d.Removed)
	fmt.Fprintf(w, "%d lost, %d gained, %d changed, %d the same\n", len(d.Lost), len(d.Gained), len(d.Changed), d.Same)
	if d.Ambiguous > 0 {
		fmt.Fprintf(w, "%s ambiguous (the dataflow, op_name and shapes do not tell them apart; paired in module order):\n",
			plural(d.Ambiguous, "pair"))
		for _, p := range d.Pairs {
			if strings.HasPrefix(p.By, "ambiguous") {
				fmt.Fprintf(w, "  %%%s ~ %%%s (%s)\n", esc(p.A), esc(p.B), esc(p.Key))
			}
		}
	}
}
