// Package parser turns HLO text into Octet's IR (package hlo).
//
// It accepts what XLA's own parser accepts: text printed by XLA in any style (with or without operand
// shapes, layouts, % names, metadata and backend configs), and the hand-written inputs of XLA's tests that
// leave out the HloModule header, layouts or ROOT, nest instructions inside operand lists, write shapes
// nowhere (they are inferred) or use the compact get-tuple-element form %tuple#1. A file may hold several
// modules separated by "// -----" lines.
//
// Constants' literals are decoded against their shape (integers must fit their type, finite numbers must
// stay finite), and each attribute value is read as the kind its spec in hlo's op table gives it
// (hlo.AttrSpec: an integer list, an enum word, a window, ...): the parser has one reader per kind and no
// table of its own. A header's attributes without a spec, which XLA's newer versions may add, are kept as
// read. The readers of
// single values, ParseShape, ParseLayout and ParseLiteral, are the only ones in the project: other
// packages use them rather than reading HLO syntax themselves.
//
// Other formats register with RegisterFormat and ParseFile hands them their files: importing
// octet/hlo/prototext adds HloModuleProto in protobuf text format.
//
// As XLA's lexer does, it takes "\n", "\r\n" and a lone "\r" (old Mac text) as line ends, and white space:
// an instruction ends at any of them, a "//" comment ends before one. Positions ("file:line:col") count
// lines the same way, as an editor shows them (XLA counts "\n" alone). Where the readable style of
// package printer writes a header table that XLA prints over several lines (debug_attributes,
// origin_recovery_table) as one C-escaped string, the parser reads the string back to the table's text.
//
// As XLA's parser does, it gives every array shape without a layout the default one, makes the last
// computation the entry when none is marked ENTRY, and makes names unique in the module (a later "b"
// becomes "b.1"), so a module that reuses a name in two computations is still valid.
//
// Like XLA's parser, it rejects an instruction that does not fit its opcode's entry in the operation table
// (hlo.OpInfo): a wrong number of operands, an attribute the opcode does not take, a missing required one,
// a value of the wrong kind or a word its enum does not have. Where XLA's parser reads any number of
// operands (an rng, a dot, the collectives: hlo.OpInfo.ParsesAnyCount), so does this one, and hlo.Verify
// checks the count, as XLA's verifier does.
//
// Errors are collected, sorted and returned as a go/scanner.ErrorList whose entries read
// "file:line:col: message". The parser never panics, whatever the bytes, and takes time and memory in
// proportion to the input. Text nested more than 1000 levels deep (tuple shapes, instructions inside operand
// lists, computations written in place, brackets in attribute values) is an error, "nesting deeper than
// 1000", which keeps the recursion of the parser and of the code that walks what it builds bounded.
package parser
