// Package hlo is Octet's intermediate representation of XLA's HLO: modules, computations, instructions,
// shapes, layouts, literals and attributes.
//
// It is plain data, in the manner of go/ast, with a few invariants the methods keep:
//   - operands are pointers to instructions of the same computation, and every instruction knows its
//     users (Users is one field away; SetOperand, SetOperands and ReplaceAllUsesWith keep both sides in
//     step, so a rewrite never rescans a computation to find them);
//   - Computation.Instructions lists every operand before its users; Root is one of them;
//   - control-predecessors name instructions of the same computation: ReplaceAllUsesWith moves an
//     instruction's control dependencies to its replacement, and Remove hands its control predecessors to
//     its control successors;
//   - names are unique in a module (Module.UniqueName makes new ones);
//   - a constant's Literal holds its values, decoded once, in the element type and dimensions of its shape
//     (or a tuple of literals, or Elided when the text left them out);
//   - attributes keep their written order, each held as a value of the kind the op table gives it (see
//     attr.go and AttrSpec; an enum's word spelled as XLA prints it), a value Octet does not decode as Raw text, so
//     that text XLA printed prints back byte for byte.
//
// Each opcode's operand count, attributes (their kinds, and an enum's words) and properties are one table
// (Opcode.Info, OpInfo), which the parser and the HloModuleProto reader read values by and check
// instructions against, and which Verify, the interpreter and "octet ops" read.
//
// Text is turned into this IR by package hlo/parser and back by package hlo/printer; nothing here reads or
// writes HLO text. Verify checks shapes, structure and each instruction against its opcode's table entry,
// and is run after every pass in tests.
package hlo
