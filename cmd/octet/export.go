package main

import (
	"bytes"

	"octet/fuse/report"
	"octet/hlo"
	"octet/viz/export"
)

func init() {
	register(&command{
		Name:      "export",
		UsageLine: "export --format=model-explorer|dot [--all] [--gemms=N] [-o OUT] FILE",
		Short:     "write a module as a Model Explorer graph or Graphviz DOT, with FP8 verdicts",
		Long: `Export writes the modules of FILE for other graph viewers, with Octet's verdict on every FP8 GEMM
(as "octet check" gives it).

--format=model-explorer writes Model Explorer's graph JSON: a GraphCollection with one graph per module
and one node per instruction, whose nodes carry an id, a label (the opcode, or a custom call's target), a
namespace (the computation, and the fusions that lead to it, so that the viewer folds each fusion),
attributes (name, shape, op_name, source location, and on each FP8 GEMM "octet.fp8", its status, with
XLA's and Octet's verdicts), their incoming edges (one per operand) and their output shape. Open the file
in Model Explorer's viewer.

--format=dot writes one Graphviz digraph of what the report draws: for each FP8 GEMM, a cluster labelled
with its status holding its neighbourhood (its FP8 inputs, the dequantize chain, the scales, the GEMM and
its epilogue), boxes coloured by role as in the report, a fusion with a double border, the GEMM's status
as tooltip. It draws the first --gemms GEMMs (100 unless told; 0 draws all), so that "dot -Tsvg" lays
it out in seconds. With --all it draws the whole modules instead: a cluster per computation and a box per
instruction in the colours of XLA's graph dumps, an edge per operand, FP8 GEMMs green when fused and red
when not; Graphviz takes minutes over a module of thousands of instructions. Every string from the
module is escaped and cut, so that Graphviz accepts whatever the module holds.

The output goes to standard output, or to OUT with -o (written whole or not at all). Every module is
verified (as "octet verify" does) before it is exported.`,
		Order: 24,
		Run:   runExport,

		ReadsModules: true,
	})
}

func runExport(inv *invocation, args []string) error {
	fs := inv.flags()
	format := fs.String("format", "", "the output format: `model-explorer` or dot")
	out := fs.String("o", "", "write to `OUT` instead of standard output")
	all := fs.Bool("all", false, "dot: draw every instruction of every computation, not the FP8 GEMMs' neighbourhoods")
	gemms := fs.Int("gemms", export.DefaultMaxGEMMs, "dot: draw the neighbourhoods of the first `N` FP8 GEMMs (0: all)")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("export takes one FILE")
	}
	if *format != "model-explorer" && *format != "dot" {
		return usagef("--format must be model-explorer or dot, not %q", *format)
	}
	if *format != "dot" && (*all || *gemms != export.DefaultMaxGEMMs) {
		return usagef("--all and --gemms are for --format=dot")
	}
	if *gemms < 0 {
		return usagef("--gemms takes a count, 0 for all, not %d", *gemms)
	}
	mods, err := inv.loadModules(files[0])
	if err != nil {
		return err
	}
	reports := make([]*report.Report, len(mods))
	for i, m := range mods {
		reports[i] = report.Check(m)
	}
	var buf bytes.Buffer
	if *format == "dot" {
		err = export.DOT(&buf, mods, reports, export.DOTOptions{All: *all, MaxGEMMs: *gemms})
	} else {
		err = export.ModelExplorer(&buf, label(files[0], mods), mods, reports)
	}
	if err != nil {
		return err
	}
	return emit(inv, *out, buf.Bytes())
}

// label names a file's modules for a viewer: the module's name, or the file's when it holds several.
func label(file string, mods []*hlo.Module) string {
	if len(mods) == 1 {
		return mods[0].Name
	}
	return displayName(file)
}
