// Package page writes Octet's HTML report: one self-contained page (inline CSS, SVG and a small script;
// no request leaves the page) that shows what became of the FP8 GEMMs of one module, or what changed
// between two.
//
// The page leads with the difference when there are two modules (lost, gained, changed, added and
// removed GEMMs), then a summary per module (FP8 GEMMs fused and not, XLA's and Octet's verdicts), a table
// with one row per GEMM (<tr data-gemm="NAME">: name, kind, operand types and shapes, result, verdicts,
// reason, source location) and, per GEMM, its neighbourhood drawn as an SVG graph (package viz/graph)
// beside the readable text of the instructions drawn. Every box links to its line in that text; the
// module's whole readable text (package hlo/printer) closes the page, each line an anchor. Every fusion
// drawn as a box (the GEMM's own, the loop fusions of a dequantize chain) has its body drawn below the
// graph, in a collapsible section.
//
// Section writes the same parts for embedding in other pages (the server's).
package page
