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
	if stablehlo.Looks(src) {
		return stablehlo.ParseFile(fset, display, src)
	}
	return parser.ParseFile(fset, display, src)
}
