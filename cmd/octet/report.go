package main

import (
	"bytes"
	"fmt"
	"io"

	"octet/fuse/report"
	"octet/viz/page"
)

func init() {
	register(&command{
		Name:      "report",
		UsageLine: "report [-o OUT.html] FILE [FILE2]",
		Short:     "write one HTML page showing the FP8 GEMMs of a module, drawn",
		Long: `Report writes one self-contained HTML page (styles, drawings and its small script inline: it opens
from disk, offline, and makes no request) on the FP8 GEMMs of FILE, as "octet check" finds them: a
summary (GEMMs fused and not, XLA's and Octet's verdicts), a table with one row per GEMM (its name, kind,
operand types and shapes, result, verdicts, reason and source location) and, for each GEMM, its
neighbourhood drawn as a graph: the FP8 inputs, the dequantize chain, the scales, the dot or call, the
epilogue, coloured by role (what octet fuse would absorb, what blocked the fusion), each box linked to
its line in the module's readable text, shown beside it. Every fusion drawn (the GEMM fusion, the loop
fusions of a dequantize chain) has its body drawn too, folded.

With FILE2, the page leads with the difference between the two modules (as "octet diff" pairs them:
lost, gained, changed GEMMs), then shows both. Each FILE holds one module or more; a FILE of several
modules is compared with another only when both hold one.

The page goes to standard output, or to OUT.html with -o (written whole or not at all). Every module is
verified (as "octet verify" does) before it is analysed.`,
		Order: 23,
		Run:   runReport,

		ReadsModules: true,
	})
}

func runReport(inv *invocation, args []string) error {
	fs := inv.flags()
	out := fs.String("o", "", "write the page to `OUT.html` instead of standard output")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 && len(files) != 2 {
		return usagef("report takes one FILE, or two to compare")
	}
	if len(files) == 2 && files[0] == "-" && files[1] == "-" {
		return usagef("only one FILE can be standard input")
	}
	var mods []*page.Module
	for _, name := range files {
		ms, err := inv.loadModules(name)
		if err != nil {
			return err
		}
		display := name
		if name == "-" {
			display = "<stdin>"
		}
		if len(files) == 2 && len(ms) != 1 {
			return fmt.Errorf("%s: holds %d modules; report compares one with one", display, len(ms))
		}
		for _, m := range ms {
			if err := inv.ctx.Err(); err != nil {
				return err
			}
			mods = append(mods, &page.Module{File: display, Module: m, Report: report.Check(m)})
		}
	}
	var buf bytes.Buffer
	if err := page.Write(&buf, mods, len(files) == 2); err != nil {
		return err
	}
	return emit(inv, *out, buf.Bytes())
}

// emit writes a command's output to standard output, or whole to the file name names.
func emit(inv *invocation, name string, data []byte) error {
	if name == "" || name == "-" {
		_, err := inv.stdout.Write(data)
		return err
	}
	return writeFileAtomic(inv.ctx, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
