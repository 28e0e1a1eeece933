// Package page writes Octet's HTML report: one self-contained page (inline CSS, SVG and a small script;
// no request leaves the page) that shows what became of the FP8 GEMMs of one module, or what changed
// between two.
//
// The page leads with the difference when there are two modules (lost, gained, changed, added and
// removed GEMMs), then a summary per module (FP8 GEMMs fused and not, XLA's and Octet's verdicts), a table
// with one row per GEMM (<tr data-gemm="NAME">: name, kind, operand types and shapes, result, verdicts,
// reason, source location) and, per GEMM, its neighbourhood drawn as an SVG graph (package viz/graph)
// beside the readable text of the instructions drawn. Every box links to its line in that text; the
// module's whole readable text (package hlo/printer, which reports the line of each instruction) closes
// the page, each line an anchor. Every fusion drawn as a box (the GEMM's own, the loop fusions of a
// dequantize chain) has its body drawn once per module, folded, after the GEMMs' sections, and each
// section that draws the fusion links to it.
//
// # Size
//
// A page grows linearly with its module. Nothing is drawn twice but the small neighbourhoods, whose
// walks are bounded; every string a cell, a tooltip or a line beside a graph shows is cut to a fixed
// number of characters (the whole instruction is one click away, in the module's text); and a page holds
// at most Config.MaxBytes (64 MiB by default). Each module gets an equal share of what is left after the
// difference: its text takes at most half of the share, its fusion bodies an eighth, the table up to half
// of the rest and the GEMMs' sections what remains. What does not fit is left out from the end (the last
// rows, sections, bodies and lines), the page says at the module's head what it left out, and no link
// points to what it left out.
//
// # Text from the module
//
// Every string the module supplies (names, targets, shapes, verdicts quoting them, file names) is shown
// through package internal/safetext: control characters, direction overrides, invisible characters and
// bytes that are not UTF-8 are escaped as XLA's printer escapes them, then HTML-escaped, so that the
// page, its drawings included, is valid UTF-8 and every SVG is well-formed XML.
//
// WriteModule writes one module's part for embedding in other pages (the server's).
package page
