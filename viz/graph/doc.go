// Package graph turns parts of an HLO module into drawable graphs and draws them as SVG: the
// neighbourhood of one FP8 GEMM (its FP8 inputs, the dequantize chain, the scales, the GEMM, its epilogue),
// coloured by the role each instruction plays in the GEMM's fusion, or a whole computation with its
// fusions collapsed to one box each.
//
// A Graph is plain data (nodes with a role, edges from operand to user), laid out by package
// viz/layout; SVG writes it with presentation attributes only (no style sheet, no script), so that the
// same drawing reads the same inline in a page, as a file, or in a README.
//
// Module.Neighbourhood walks back from the GEMM through its operands while they dequantize (convert,
// multiply, divide, broadcast, bitcast, reshape, transpose, copy, loop fusions) and stops at FP8 values,
// parameters and anything else, which it draws but does not follow; it walks forward through the users
// the epilogue may absorb, drawing the scale an absorbed multiply or divide applies. What octet fuse
// would absorb and what stops it are the lists the report gives (report.GEMM's Absorbed and BlockedAt).
//
// A drawing costs what it draws, not what the module holds, so that drawing every GEMM of a module is
// linear in the module: both walks are bounded in the nodes they draw and in the operands and users they
// look at; a Module indexes the module's instructions and builds the text of each instruction drawn once,
// however many drawings show it; and the edges of an instruction of many operands (a ROOT tuple of every
// GEMM) come from its operand set, built once. SVG cuts every text to a fixed length (a box's lines, each
// part of a tooltip) and escapes it (package internal/safetext), so that a drawing is well-formed XML of
// bounded size whatever the module's strings.
package graph
