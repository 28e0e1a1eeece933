// Package layout places a directed graph in layers, top to bottom, for drawing: the Sugiyama method.
//
// Layered computes, in four phases:
//
//  1. Layering. Edges that close a cycle (found by a depth-first search in node order) are reversed, so
//     that the graph is acyclic; each node's layer is its longest path from a source, and a source is then
//     moved down to just above its highest successor, so that a parameter or constant sits beside its
//     user instead of at the top of the page. An edge spanning more than one layer gets one dummy node per
//     layer crossed, up to Options.MaxSpan layers; a longer edge is cut: it is drawn as two stubs, one
//     under its source and one over its target, rather than as a line across the whole drawing. This
//     bounds the dummies by MaxSpan times the edges, which keeps the cost linear in the graph's size for
//     the long-lived values (weights, parameters) of big computations.
//  2. Crossing reduction. Layers are swept down and up, each node ordered by the barycenter of its
//     neighbours in the layer just fixed (ties keep the previous order, so the result is deterministic);
//     the order with the fewest crossings seen is kept, so crossing reduction never does worse than the
//     initial order (nodes in input order, which for HLO is the text order). Crossings are counted
//     exactly, by counting inversions between adjacent layers in O(E log V).
//  3. Coordinate assignment. Layers are y positions; within a layer, each node wants the mean x of its
//     neighbours in the layers above and below, and the positions closest to those wishes (in the least-
//     squares sense) that keep the layer's order and the minimum gap between boxes are found exactly by
//     isotonic regression (pool adjacent violators), alternately downward and upward for a few rounds.
//  4. Edge routing. An edge is a polyline from the bottom of its source through its dummies to the top of
//     its target; every polyline goes downward. The edges that meet at one side of a box are spread evenly
//     along it, in the order of where they come from, so that they do not meet in one point.
//
// The layout is a pure function of the graph and options: equal inputs give equal layouts.
//
// # Why this design
//
// HLO computations are DAGs in text order with short def-use chains and a few values with many users;
// a layered drawing shows the direction of dataflow (operands above their users), which is how the XLA
// graph dumps and Model Explorer draw them. Barycenter ordering and isotonic placement are simple,
// linear per sweep and good enough for graphs of a few thousand nodes; the cut of long edges is what
// keeps whole computations drawable.
package layout
