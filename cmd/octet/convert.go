package main

import (
	"bufio"
	"fmt"

	"octet/hlo/printer"
)

func init() {
	register(&command{
		Name:      "convert",
		UsageLine: "convert [--format=xla|xla-long|xla-short|readable|json] FILE|-",
		Short:     "convert StableHLO (MLIR text) into HLO text",
		Long: `Convert reads StableHLO in MLIR text, as jax.jit(f).lower(...).as_text() prints it (FILE may be
gzipped; - is standard input), converts each module into HLO as XLA's own translation does, and prints
it (by default as XLA prints HLO text, large constants included, so that the output parses back;
several modules are separated by "// -----" lines, as print separates them).

Locations (loc(...) and #loc aliases) become each instruction's metadata: op_name, source_file and
source_line. Shardy meshes and shardings become HLO shardings, kept as XLA's round-trip export keeps them
(xla.sdy.* frontend attributes). Every attribute XLA's translation keeps is kept (custom-call backend
configs and API versions, layouts, aliases, shardings, frontend attributes, memory kinds); an op or an
attribute Octet cannot convert is an error naming it at its file:line:col, never dropped. (The other
commands convert the same way, and say on stderr what they left out.)

Every other command reads StableHLO too: a file that starts as MLIR text (module, func.func) is
converted this way before the command runs.`,
		Order: 12,
		Run:   runConvert,

		ReadsModules: true,
	})
}

func runConvert(inv *invocation, args []string) error {
	fs := inv.flags()
	format := fs.String("format", "xla-long", "output `format`: xla, xla-long, xla-short, readable or json")
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("convert takes one FILE")
	}
	style, err := printer.ParseStyle(*format)
	if err != nil {
		return usagef("%v", err)
	}
	src, display, err := inv.readInput(files[0])
	if err != nil {
		return err
	}
	if !isStableHLO(src) {
		return fmt.Errorf("%s: not StableHLO: MLIR text starts with module or func.func", display)
	}
	mods, err := inv.loadSource(display, src)
	if err != nil {
		return err
	}
	if err := ignoredError(inv.stderr, mods); err != nil {
		return err
	}
	// Several modules are separated as print separates them (XLA's "// -----"), so that the text parses
	// back into them.
	w := bufio.NewWriter(inv.stdout)
	if err := writeModules(w, mods, printer.ConfigFor(style)); err != nil {
		return err
	}
	return w.Flush()
}
