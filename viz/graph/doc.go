// Package graph turns parts of an HLO module into drawable graphs and draws them as SVG: the
// neighbourhood of one FP8 GEMM (its FP8 inputs, the dequantize chain, the scales, the GEMM, its epilogue),
// coloured by the role each instruction plays in the GEMM's fusion, or a whole computation with its
// fusions collapsed to one box each.
//
// A Graph is plain data (nodes with a role, edges from operand to user), laid out by package
// viz/layout; SVG writes it with presentation attributes only (no style sheet, no script), so that the
// same drawing reads the same inline in a page, as a file, or in a README.
//
// Neighbourhood walks back from the GEMM through its operands while they dequantize (convert, multiply,
// divide, broadcast, bitcast, reshape, transpose, copy, loop fusions) and stops at FP8 values, parameters
// and anything else, which it draws but does not follow; it walks forward through the users the epilogue
// may absorb, drawing the scale an absorbed multiply or divide applies. Both walks are bounded, so that a GEMM whose operand has thousands of users still gives a
// small picture.
package graph
