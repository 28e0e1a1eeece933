// Package stablehlo reads StableHLO programs written as MLIR text (what jax.jit(f).lower(...).as_text()
// prints, and the StableHLO project's test programs) and converts them into Octet's HLO IR.
//
// Reading and conversion are two steps with a small AST between them (File, Module, Func, Op, Value,
// Attr). MLIR text has one uniform shape, results = op operands attributes regions : types loc, under
// dozens of op-specific pretty forms; the AST holds what every form says in one representation (the
// operands, the attributes whether written in a dictionary or as "dims = [1, 0]", the bare words of
// "compare LT, %a, %b, FLOAT", the regions and the signature), so the reader knows nothing of what an op
// means and the conversion knows nothing of how it was spelled. Going straight into the HLO IR would mix
// the two: an HLO instruction needs its shape and attributes settled when it is made, while MLIR states
// the types last and the locations at the end of the file (#loc aliases).
//
// The reader is one pass over the bytes, linear in the input, with nesting bounded (maxDepth) and every
// error positioned (file:line:col); it never panics on input. It refuses what MLIR's parser refuses where
// reading on would change the program: an integer element out of its type's range, a dense list whose
// nesting is not the type's shape, an operand type in a signature other than the value's type, a return
// that does not give its function's result types, a second symbol of one name in a module, and a
// location alias used but never defined. Attributes of any dialect are kept, typed
// where Octet reads them and as written otherwise. dense<...> constants are decoded once, in every form
// (hex blobs, nested lists, splats, per-element bit patterns, complex pairs), and dense_resource blobs
// from the {-# dialect_resources #-} section.
//
// Convert turns a module into an *hlo.Module that passes hlo.Verify, as XLA's own translation does: each
// function becomes a computation, multiple results a tuple, regions called computations; the StableHLO
// name of each op comes from the op table of package hlo (OpInfo.StableHLO). Names, the order of
// instructions and of attributes are XLA's. Locations become each instruction's metadata (op_name,
// source_file, source_line); each location alias is described once, and one that refers to itself is an
// error.
//
// The Shardy dialect (sdy.mesh, #sdy.sharding, sdy.sharding_constraint, sdy.manual_computation, ...) is
// read and converted as XLA's round-trip export hands it to HLO: HLO shardings as XLA computes them, and
// the Shardy text kept in xla.sdy.* frontend attributes (ShardingNote describes one for people). Replica
// groups given by mesh axes become the explicit groups StableHLO's flattening gives.
//
// The conversion keeps every attribute XLA's translation keeps, by its rule (a custom call's
// mhlo.backend_config as jaxlib's translation reads it: a typed FFI call's dictionary). Every attribute of an op is
// accounted for: read by the op's conversion, reported by name, or one XLA's translation drops too. By
// default an attribute Octet cannot carry is an error at its position; ParseFileNotes converts anyway and
// returns what it left out.
package stablehlo
