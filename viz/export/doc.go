// Package export writes an HLO module, with Octet's FP8 verdicts on it, in the formats of other graph
// viewers: Model Explorer's graph JSON (ModelExplorer) and Graphviz DOT (DOT).
//
// Model Explorer gets one node per instruction of every computation and one edge per operand; a fusion's
// body is nested under the fusion (the namespace of an instruction is the path of computations and
// fusions that leads to it, so the viewer folds each fusion into a layer), and every FP8 GEMM of Octet's
// report carries its status in the "octet.fp8" attribute.
//
// DOT draws by default what the report draws: each FP8 GEMM's neighbourhood (package viz/graph), a
// cluster per GEMM, coloured by role, for at most DOTOptions.MaxGEMMs GEMMs, a drawing Graphviz lays out
// in seconds whatever the module's size. DOTOptions.All draws the whole modules instead, a cluster per
// computation, with the FP8 GEMMs green when fused and red when not; Graphviz takes minutes over
// thousands of instructions.
//
// Every string from a module is escaped (package internal/safetext): DOT labels hold no control
// character, no byte that is not UTF-8, no HTML entity Graphviz would decode, and at most
// safetext.MaxDOT characters a line, so that Graphviz accepts whatever a module holds; Model Explorer's
// strings are escaped the same way.
package export
