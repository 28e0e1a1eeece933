package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"octet/fuse/report"
	"octet/hlo"
)

func init() {
	register(&command{
		Name:      "check",
		UsageLine: "check [--json] [--strict] FILE|DIR...",
		Short:     "list the FP8 GEMMs of compiled modules: fused or not, and why",
		Long: `Check lists every FP8 matmul of the modules in each FILE (HLO text as XLA prints it, gzipped or
not; - is standard input), typically what Compiled.as_text() or XLA_FLAGS=--xla_dump_to wrote.

A GEMM that became one cuBLASLt FP8 call (__cublas$lt$matmul$f8) is reported with its operands, scales,
epilogue, abs-max (damax) output and the type of D; both operand forms are read (today's a, b, [c],
a_scale, b_scale, [bias], [d_scale] and the six-scalar form of XLA up to 2024), and a call printed without
backend_config gets the configuration its operand shapes imply, which the report says it inferred.

Every other GEMM on FP8 data is reported as not fused: plain dots, dots computed in bf16, f16 or f32 inside
a GEMM fusion (__triton_gemm, gemm_fusion_dot, ...) or other cuBLAS calls, whose operands trace back through
fusion parameters, tuples, bitcasts, slices and concatenations to FP8 values. The report says where each
operand comes from and how it was dequantized; for a GEMM fusion of an optimized module it keeps apart what
the module shows ("seen:"), what that implies, the likely causes (inferred) and the next steps, and never
blames what the passes after the GEMM rewriter make. For a plain dot it says whether "octet fuse" would
fuse it. A GEMM fusion whose dot reads the FP8 values themselves is reported as fused natively (FP8 kept);
block-scaled GEMMs (MX formats, NVFP4: scaled-dot, __op$block_scaled_dot, cuDNN's and hipBLASLt's
block-scaled calls, and dots on block-dequantized data) are reported apart, each with XLA's verdict:
whether the module holds a block-scaled kernel (seen) or XLA would make one on Blackwell (inferred), what
an sm_90 GPU gets, and the first rule that fails (gpu generation, format pair, block size, shape
alignment, scale layout, pattern).

Every GEMM carries two verdicts: XLA's ("would XLA's GEMM rewriter fuse this dot as the module stands",
from rules written from XLA's source, with the first rule that fails) and Octet's ("can octet fuse fuse
it"); --json gives each as {"fusible", "why"} under "xla" and "octet", XLA's with a "bug" where the call it
would make is outside cuBLASLt's FP8 type table. The text shows XLA's verdict where the two differ.

A DIR argument is a folder of per-pass dumps of a module, as XLA writes them with
XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_pass_re=PASSES' (module_NNNN.NAME.before_optimizations.txt
and module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt). Check walks them in pass order and names, for each
FP8 GEMM, the first pass after which XLA's rules no longer fuse it or another pass claimed the dot, with
the rule that fails; or the pass that fused it. This is the way to find which pass lost a fusion.

Every module is verified (as "octet verify" does) before it is analysed. A file that cannot be read, parsed
or verified is reported on standard error (and, with --json, listed with an "error" field) and makes the
exit status 1. --strict exits with status 1 when any FP8 GEMM is not fused (for a DIR: when a pass broke a
fusion).`,
		Order: 20,
		Run:   runCheck,
	})
}

// checkFile is the JSON form of the report on one file, or on one module's per-pass dumps in a folder.
type checkFile struct {
	File    string           `json:"file"`
	Modules []*report.Report `json:"modules"`
	// Error says why the file could not be read, parsed or verified; Modules is empty then.
	Error string `json:"error,omitempty"`
	// Dumps and Passes are the walk of a dump folder: the dumps in pass order and what happened to each
	// FP8 GEMM along them.
	Dumps  []report.PassDump     `json:"dumps,omitempty"`
	Passes []*report.PassFinding `json:"passes,omitempty"`
}

// checkDir walks the per-pass dumps of a folder (XLA's file names), one module at a time, in pass order,
// and says for each FP8 GEMM which pass broke its fusion.
func checkDir(inv *invocation, dir string, out io.Writer, asJSON bool) ([]checkFile, int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	var dumps []report.PassDump
	for _, e := range entries {
		if d, ok := report.ParsePassDump(e.Name()); ok && !e.IsDir() {
			dumps = append(dumps, d)
		}
	}
	if len(dumps) == 0 {
		return nil, 0, fmt.Errorf("%s: no per-pass dumps (module_NNNN.NAME.before_optimizations.txt, "+
			"module_NNNN.NAME.SSSS.PIPELINE.after_PASS.txt) in the folder", dir)
	}
	report.SortPassDumps(dumps)
	var files []checkFile
	broken := 0
	for start := 0; start < len(dumps); {
		end := start
		for end < len(dumps) && dumps[end].ModuleID == dumps[start].ModuleID {
			end++
		}
		group := dumps[start:end]
		start = end
		var mods []*hlo.Module
		for _, d := range group {
			ms, err := inv.loadModules(filepath.Join(dir, d.File))
			if err != nil {
				return nil, 0, err
			}
			if len(ms) != 1 {
				return nil, 0, fmt.Errorf("%s: holds %d modules; a dump holds one", d.File, len(ms))
			}
			mods = append(mods, ms[0])
		}
		findings := report.Passes(group, mods)
		cf := checkFile{File: dir, Dumps: group, Passes: findings}
		for _, f := range findings {
			if f.Broken {
				broken++
			}
		}
		files = append(files, cf)
		if asJSON {
			continue
		}
		fmt.Fprintf(out, "%s: module %s (module_%04d): %s in pass order, %s to %s\n", esc(dir), esc(group[0].Name), group[0].ModuleID,
			plural(len(group), "dump"), esc(group[0].Pass), esc(group[len(group)-1].Pass))
		for _, f := range findings {
			fmt.Fprintf(out, "  %%%s (%s)\n", esc(f.GEMM), esc(f.Key))
			if f.Source != "" {
				fmt.Fprintf(out, "             from %s\n", esc(f.Source))
			}
			switch {
			case f.Broken:
				fmt.Fprintf(out, "             broken by pass %s (step %04d, %s): %s\n", esc(f.Pass), f.Step, esc(f.File), esc(f.What))
				if f.Then != "" {
					fmt.Fprintf(out, "             %s\n", esc(f.Then))
				}
			default:
				fmt.Fprintf(out, "             %s\n", esc(f.What))
			}
		}
	}
	return files, broken, nil
}

func runCheck(inv *invocation, args []string) error {
	fs := inv.flags()
	asJSON := fs.Bool("json", false, "print the report as JSON")
	strict := fs.Bool("strict", false, "exit with status 1 when an FP8 GEMM is not fused")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("check takes at least one FILE")
	}
	var out bytes.Buffer
	var reports []checkFile
	unfused, failed := 0, 0
	for _, name := range files {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			cfs, broken, err := checkDir(inv, name, &out, *asJSON)
			if err != nil {
				fmt.Fprintln(inv.stderr, errorText(err))
				failed++
				continue
			}
			unfused += broken
			reports = append(reports, cfs...)
			continue
		}
		display := name
		if name == "-" {
			display = "<stdin>"
		}
		mods, err := inv.loadModules(name)
		if err != nil {
			fmt.Fprintln(inv.stderr, errorText(err))
			failed++
			if *asJSON {
				reports = append(reports, checkFile{File: display, Modules: []*report.Report{}, Error: err.Error()})
			}
			continue
		}
		cf := checkFile{File: display}
		for _, m := range mods {
			r := report.Check(m)
			if r.GEMMs == nil {
				r.GEMMs = []*report.GEMM{}
			}
			unfused += r.Unfused
			cf.Modules = append(cf.Modules, r)
			if !*asJSON {
				writeCheck(&out, display, r)
			}
		}
		reports = append(reports, cf)
	}
	if *asJSON {
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	}
	if _, err := inv.stdout.Write(out.Bytes()); err != nil {
		return err
	}
	switch {
	case failed > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("octet check: %s could not be checked", plural(failed, "file"))}
	case *strict && unfused > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("octet check: %s not fused", plural(unfused, "FP8 GEMM"))}
	}
	return nil
}

// writeCheck prints the report on one module.
func writeCheck(w io.Writer, file string, r *report.Report) {
	fusible := ""
	if r.Fusible > 0 {
		fusible = fmt.Sprintf(" (%d of them fusible by octet fuse)", r.Fusible)
	}
	extra := ""
	if r.Native > 0 {
		extra += fmt.Sprintf(" (%d natively, FP8 kept)", r.Native)
	}
	fmt.Fprintf(w, "%s: module %s: %s: %d fused%s, %d not fused%s\n", esc(file), esc(r.Module), plural(len(r.GEMMs)-r.BlockScaled, "FP8 GEMM"),
		r.Fused, extra, r.Unfused, fusible)
	if r.BlockScaled > 0 {
		fmt.Fprintf(w, "  and %s, reported apart: %s\n", plural(r.BlockScaled, "block-scaled low-precision GEMM"), blockSummary(r))
	}
	for _, g := range r.GEMMs {
		what := "%" + esc(g.Name)
		if g.Dot != "" {
			what += " (dot %" + esc(g.Dot) + ")"
		}
		from := ""
		if g.Source != "" {
			from = "             from " + esc(g.Source) + "\n"
		}
		switch g.Kind {
		case "triton-fp8":
			fmt.Fprintf(w, "  fused      %s in %%%s: D %s, natively: a GEMM fusion on FP8 operands (FP8 kept, no cuBLASLt call)\n",
				what, esc(g.Computation), esc(g.D))
			fmt.Fprintf(w, "%s             A: %s\n             B: %s\n", from, operandText(g.A), operandText(g.B))
			continue
		case "block-scaled":
			writeBlockScaled(w, g)
			continue
		}
		if g.Fused {
			fmt.Fprintf(w, "  fused      %%%s = %s\n%s", esc(g.Name), esc(g.Target), from)
			fmt.Fprintf(w, "             D %s = A %s x B %s\n", esc(g.D), operandText(g.A), operandText(g.B))
			scales := []string{"a_scale " + esc(g.AScale), "b_scale " + esc(g.BScale)}
			if g.CScale != "" {
				scales = append(scales, "c_scale "+esc(g.CScale))
			}
			if g.DScale != "" {
				scales = append(scales, "d_scale "+esc(g.DScale))
			}
			fmt.Fprintf(w, "             scales: %s\n", strings.Join(scales, ", "))
			damax := "no damax"
			if g.Damax {
				damax = "damax output"
			}
			line := fmt.Sprintf("epilogue %s, %s, alpha %v, beta %v", g.Epilogue, damax, g.Alpha, g.Beta)
			if g.Bias != "" {
				line += ", bias " + esc(g.Bias)
			}
			fmt.Fprintf(w, "             %s; %s operands\n", line, g.ABI)
			if g.Inferred {
				fmt.Fprintf(w, "             no backend_config: inferred both operands contracting their last dimension, alpha 1, beta 0, epilogue DEFAULT\n")
			}
			if g.XLA.Bug != "" {
				fmt.Fprintf(w, "             XLA bug: %s\n", esc(g.XLA.Bug))
			}
			continue
		}
		fmt.Fprintf(w, "  NOT FUSED  %s in %%%s: D %s\n%s", what, esc(g.Computation), esc(g.D), from)
		fmt.Fprintf(w, "             why: %s\n", esc(g.Reason))
		fmt.Fprintf(w, "             A: %s\n", operandText(g.A))
		fmt.Fprintf(w, "             B: %s\n", operandText(g.B))
		if g.XLA.Bug != "" {
			fmt.Fprintf(w, "             XLA bug: %s\n", esc(g.XLA.Bug))
		}
		if g.BlockedBy != "" && g.Kind == "dot" {
			fmt.Fprintf(w, "             blocked by: %s\n", esc(g.BlockedBy))
		}
		if g.FuseNote != "" {
			fmt.Fprintf(w, "             %s\n", esc(g.FuseNote))
		}
		if g.Kind == "dot" && g.XLA.Fusible != g.Octet.Fusible {
			fmt.Fprintf(w, "             XLA's rules differ: %s\n", esc(xlaText(g.XLA.Fusible, g.XLA.Why)))
		}
		for _, e := range g.Explain {
			for _, p := range []string{"after the dot", "the result is converted", "seen: ", "not a cause: ", "implies: ", "likely ", "next: "} {
				if strings.HasPrefix(e, p) {
					fmt.Fprintf(w, "             %s\n", esc(e))
					break
				}
			}
		}
	}
}

func operandText(o *report.Operand) string {
	if o == nil {
		return "?"
	}
	if o.Via != "" {
		return esc(o.Via)
	}
	s := esc(o.Shape) + " " + esc(o.Source)
	if o.Parameter >= 0 {
		s += fmt.Sprintf(" (parameter %d)", o.Parameter)
	}
	return s
}
