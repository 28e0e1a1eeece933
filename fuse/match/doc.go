// Package match is a pattern language for Octet's HLO IR, in the manner of XLA's m:: pattern matcher and
// of the Go compiler's rewrite rules: a pattern reads like the HLO it matches,
//
//	var x, scale *hlo.Instruction
//	p := match.Multiply(match.Convert(match.Op().Bind(&x).Where(match.FP8)), match.Broadcast(match.Scalar().Bind(&scale)))
//	if match.Match(in, p) { ... x is the FP8 value, scale the scalar ... }
//
// Patterns of the commutative opcodes (add, multiply, maximum, minimum, and, or, xor) match their operands
// in either order, as XLA's *AnyOrder matchers do; every other pattern matches operands in order.
//
// Captures (Bind) are made left to right, depth first, so a later part of a pattern can refer to an earlier
// capture with Same; a failed alternative (the other operand order, a branch of AnyOf) undoes the captures
// it made, and a failed Match leaves every capture as it was before the call.
//
// A pattern prints as the HLO it matches: String with the conditions on each instruction in braces,
// Short without them. As names a part (D, FP8, scalar) so that a pattern reads as a rule of a rewrite, and
// a rewrite can print the rule that matched instead of a description written beside it.
//
// The package also holds the one definition of an FP8 dequantize (Dequantize, FindDequantize, ScaleStep):
// converts to wider types and at most one multiply or divide by a broadcast scalar (the broadcast possibly
// converted). The rewrite and the
// report on compiled modules both read operand chains with it, so they agree on what a dequantize is.
//
// A pattern only looks: it never changes the IR. Deciding whether a match may be rewritten, and building the
// replacement, belong to the pass that uses it (package fuse).
package match
