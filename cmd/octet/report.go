package main

import (
	"bytes"
	"fmt"
	"io"

	"octet/fuse/report"
	"octet/interp"
	"octet/viz/page"
)

func init() {
	register(&command{
		Name:      "report",
		UsageLine: "report [-o OUT.html] [--max-size=SIZE] FILE [FILE2]",
		Short:     "write one HTML page showing the FP8 GEMMs of a module, drawn",
		Long: `Report writes one self-contained HTML page (styles, drawings and its small script inline: it opens
from disk, offline, and makes no request) on the FP8 GEMMs of FILE, as "octet check" finds them: a
summary (GEMMs fused and not, XLA's and Octet's verdicts), a table with one row per GEMM (its name, kind,
operand types and shapes, result, verdicts, reason and source location) and, for each GEMM, its
neighbourhood drawn as a graph: the FP8 inputs, the dequantize chain, the scales, the dot or call, the
epilogue, coloured by role (what octet fuse would absorb, what blocked the fusion), each box linked to
its line in the module's readable text, shown beside it. Every fusion drawn (the GEMM fusion, the loop
fusions of a dequantize chain) has its body drawn once, folded, linked from every GEMM that draws it.

With FILE2, the page leads with the difference between the two modules (as "octet diff" pairs them:
lost, gained, changed GEMMs), then shows both. Each FILE holds one module or more; a FILE of several
modules is compared with another only when both hold one.

The page grows linearly with the module: every string shown in a cell, a tooltip or a line beside a
graph is cut to a fixed length (the whole line is one click away, in the module's text), and the page
stays within --max-size (64MiB unless told; sizes like 512KiB or 1GiB, at least 64KiB). Of each
module, the readable text takes at most half, the fusion bodies an eighth, the table and the GEMMs'
sections the rest; what does not fit is left out, the last ones first, and the page says what.

Every string from the module is shown escaped: a newline, a control character, a direction override or
a byte that is not UTF-8 in a name, an attribute or metadata is written as XLA's printer escapes it
(\n, \033, \342\200\256), so that no text on the page can pass for another line.

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
	maxSize := fs.String("max-size", "64MiB", "the most bytes the page may hold (`SIZE`: 512KiB, 64MiB, 1GiB)")
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
	limit, err := interp.ParseBytes(*maxSize)
	switch {
	case err != nil:
		return usagef("--max-size: %q %s", *maxSize, sizeProblem(err))
	case limit < 64<<10:
		return usagef("--max-size: %q is less than 64KiB, the least a page needs", *maxSize)
	}
	var mods []*page.Module
	for _, name := range files {
		ms, err := inv.loadModules(name)
		if err != nil {
			return err
		}
		display := displayName(name)
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
	if err := (page.Config{MaxBytes: limit}).Write(&buf, mods, len(files) == 2); err != nil {
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
