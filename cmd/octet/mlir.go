package main

import (
	"go/token"

	"octet/hlo"
	"octet/hlo/parser"
	"octet/stablehlo"
)

// parseText parses a command's input into HLO modules: StableHLO in MLIR text (what JAX's
// lower(...).as_text() prints), converted, when it looks like it; HLO text otherwise.
func parseText(fset *token.FileSet, display string, src []byte) ([]*hlo.Module, error) {
	if isStableHLO(src) {
		return stablehlo.ParseFile(fset, display, src)
	}
	return parser.ParseFile(fset, display, src)
}

// isStableHLO reports whether src is MLIR text rather than HLO text or a file of another format the HLO
// parser reads: an HloModuleProto text file may start with '#' comments, as MLIR text may start with '#'
// aliases.
func isStableHLO(src []byte) bool { return parser.FormatName(src) == "" && stablehlo.Looks(src) }
