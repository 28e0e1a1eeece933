// Package export writes an HLO module, with Octet's FP8 verdicts on it, in the formats of other graph
// viewers: Model Explorer's graph JSON (ModelExplorer) and Graphviz DOT (DOT).
//
// Both give one node per instruction of every computation and one edge per operand. A fusion's body is
// nested under the fusion in Model Explorer (the namespace of an instruction is the path of computations
// and fusions that leads to it, so the viewer folds each fusion into a layer) and is a cluster in DOT.
// Every FP8 GEMM of Octet's report carries its status: the "octet.fp8" attribute in Model Explorer, the
// colour (green fused, red not) and tooltip in DOT.
package export
