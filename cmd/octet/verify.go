package main

import (
	"fmt"
	"strings"

	"octet/hlo"
)

func init() {
	register(&command{
		Name:      "verify",
		UsageLine: "verify FILE...",
		Short:     "check that HLO modules are well formed",
		Long: `Verify parses each FILE (gzipped or not; - is standard input) and checks every module in it the
way XLA's HloVerifier does: structure (names, operands, parameters, called computations), shapes
(each instruction's shape against the one its opcode and operands give) and what the types imply (sizes
that fit in an int64, layouts that fit their shapes, no recursive calls, input_output_alias pairs of one
shape, inf and nan only in types that have them). A file with no module is an error. As XLA's parser
does, a module whose computations are not marked ENTRY takes its last one as the entry; when its header
has the entry_computation_layout XLA prints (and XLA marks the entry of every module it prints), a
warning says so, and the layout is checked against that computation, which a file cut before its entry
seldom fits.

It prints "FILE: ok (N computations, M instructions)" for a good file and every problem of a bad one as
"file:line:col: message". The exit status is 1 when any file has a problem.`,
		Order: 11,
		Run:   runVerify,

		ReadsModules: true,
	})
}

func runVerify(inv *invocation, args []string) error {
	fs := inv.flags()
	files, err := parseInterspersed(inv, fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("verify takes at least one FILE")
	}
	failed := 0
	for _, name := range files {
		mods, err := inv.parseModules(name)
		if err != nil {
			fmt.Fprintln(inv.stderr, errorText(err))
			failed++
			continue
		}
		var problems []string
		comps, insts := 0, 0
		for _, m := range mods {
			comps += len(m.Computations)
			for _, c := range m.Computations {
				insts += len(c.Instructions)
			}
			if err := hlo.Verify(m); err != nil {
				problems = append(problems, errorText(err))
			}
		}
		if len(problems) > 0 {
			fmt.Fprintln(inv.stderr, strings.Join(problems, "\n"))
			failed++
			continue
		}
		what := plural(comps, "computation") + ", " + plural(insts, "instruction")
		if len(mods) > 1 {
			what = plural(len(mods), "module") + ", " + what
		}
		fmt.Fprintf(inv.stdout, "%s: ok (%s)\n", esc(displayName(name)), what)
	}
	if failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}
