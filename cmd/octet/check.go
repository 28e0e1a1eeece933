package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"octet/fuse/report"
)

func init() {
	register(&command{
		Name:      "check",
		UsageLine: "check [--json] [--strict] FILE...",
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
operand comes from, how it was dequantized, and the pattern that blocked the fusion; for a plain dot it
also says whether "octet fuse" would fuse it.

--strict exits with status 1 when any FP8 GEMM is not fused.`,
		Order: 20,
		Run:   runCheck,
	})
}

// checkFile is the JSON form of the report on one file.
type checkFile struct {
	File    string           `json:"file"`
	Modules []*report.Report `json:"modules"`
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
		mods, err := inv.parseModules(name)
		if err != nil {
			fmt.Fprintln(inv.stderr, err)
			failed++
			continue
		}
		display := name
		if name == "-" {
			display = "<stdin>"
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
		return &exitError{code: 1}
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
	fmt.Fprintf(w, "%s: module %s: %s: %d fused, %d not fused%s\n", file, r.Module, plural(len(r.GEMMs), "FP8 GEMM"), r.Fused, r.Unfused, fusible)
	for _, g := range r.GEMMs {
		if g.Fused {
			fmt.Fprintf(w, "  fused      %%%s = %s\n", g.Name, g.Target)
			if g.Location != "" {
				fmt.Fprintf(w, "             at %s\n", g.Location)
			}
			fmt.Fprintf(w, "             D %s = A %s x B %s\n", g.D, operandText(g.A), operandText(g.B))
			scales := []string{"a_scale " + g.AScale, "b_scale " + g.BScale}
			if g.CScale != "" {
				scales = append(scales, "c_scale "+g.CScale)
			}
			if g.DScale != "" {
				scales = append(scales, "d_scale "+g.DScale)
			}
			fmt.Fprintf(w, "             scales: %s\n", strings.Join(scales, ", "))
			damax := "no damax"
			if g.Damax {
				damax = "damax output"
			}
			line := fmt.Sprintf("epilogue %s, %s, alpha %v, beta %v", g.Epilogue, damax, g.Alpha, g.Beta)
			if g.Bias != "" {
				line += ", bias " + g.Bias
			}
			fmt.Fprintf(w, "             %s; %s operands\n", line, g.ABI)
			if g.Inferred {
				fmt.Fprintf(w, "             no backend_config: inferred both operands contracting their last dimension, alpha 1, beta 0, epilogue DEFAULT\n")
			}
			continue
		}
		what := "%" + g.Name
		if g.Dot != "" {
			what += " (dot %" + g.Dot + ")"
		}
		fmt.Fprintf(w, "  NOT FUSED  %s in %%%s: D %s\n", what, g.Computation, g.D)
		if g.Location != "" {
			fmt.Fprintf(w, "             at %s\n", g.Location)
		}
		fmt.Fprintf(w, "             why: %s\n", g.Reason)
		fmt.Fprintf(w, "             A: %s\n", operandText(g.A))
		fmt.Fprintf(w, "             B: %s\n", operandText(g.B))
		if g.BlockedBy != "" {
			fmt.Fprintf(w, "             blocked by: %s\n", g.BlockedBy)
		}
		if g.FuseNote != "" {
			fmt.Fprintf(w, "             %s\n", g.FuseNote)
		}
		for _, e := range g.Explain {
			if strings.HasPrefix(e, "after the dot") || strings.HasPrefix(e, "the result is converted") {
				fmt.Fprintf(w, "             %s\n", e)
			}
		}
	}
}

func operandText(o *report.Operand) string {
	if o == nil {
		return "?"
	}
	if o.Via != "" {
		return o.Via
	}
	s := o.Shape + " " + o.Source
	if o.Parameter >= 0 {
		s += fmt.Sprintf(" (parameter %d)", o.Parameter)
	}
	return s
}
