// Package fuse finds the FP8 matrix multiplications of an HLO module and turns each into one cuBLASLt FP8
// GEMM (the custom call __cublas$lt$matmul$f8), the rewrite XLA's GPU GEMM rewriter makes for a Hopper
// target.
//
// The FP8 work is three packages, each with one job, so that the data flows one way:
//
//   - fuse/match is the pattern language and the one definition of an FP8 dequantize (converts, then at
//     most one multiply or divide by a broadcast scalar); it only looks at the IR.
//   - fuse (this package) is the rewrite: match, then legality, then build. Its output is the rewritten
//     module and a Decision per dot.
//   - fuse/report reads modules a compiler produced: which FP8 GEMMs were fused and why the others were
//     not (Check), and what changed between two compiles (Diff). For a dot that is not fused it quotes
//     this package's Decision, so "would octet fuse fuse it" has one answer.
//
// # The rewrite
//
// Rewrite (and Analyze, which decides without changing anything) looks at every dot with an FP8 value
// among its operand chains, in three steps kept apart:
//
//   - matching, with the rule table of rules.go: one named pattern of package match per thing a call can
//     absorb, with what the call does with it. For each operand, an FP8 value, its dequantize (one or
//     more converts to a wider float type, then an optional multiply or divide by a broadcast scalar) and
//     the ops between it and the dot that commute with it (bitcast, broadcast, copy, reshape, transpose,
//     slice, dynamic-slice, pad of zero, select against zero); after the dot, in cuBLASLt's order,
//     multiplies by constants (alpha), output scales, a matrix bias C, a vector bias, ReLU or the
//     tanh-approximation GELU (x * (0.5 * (1 + tanh(...))) as XLA and jax.nn.gelu(approximate=True)
//     write it, or (0.5 * x) * (1 + tanh(...))), and for an FP8 result the abs-max, the d_scale, a
//     widening convert, the clamp and the convert to FP8. The table is the documentation of what fuses:
//     Rules returns it and "octet fuse --rules" prints it, and the pattern in brackets on each line of a
//     Decision's explanation is the text of the rule that matched;
//   - legality: the types cuBLASLt takes on Hopper (f8e4m3fn and f8e5m2, never both f8e5m2, no fnuz
//     types), the result types, C never FP8, a bias type that goes with D, at most 65535 batches, and
//     every call checked against cuBLASLt's FP8 type table (cublas.FP8TypeTable); an abs-max is left
//     outside the call when padded rows would hold a vector bias;
//   - building: the FP8 values are replayed through the commuting ops, transposed and reshaped so that A
//     is row-major [batch..., m, k] and B column-major [batch..., n, k], padded to multiples of 16; the
//     scales become f32 scalars (1/s for a divide, computed in the scale's type as XLA does), the call
//     gets XLA's GemmBackendConfig and operand order (a, b, [c], a_scale, b_scale, [bias], [d_scale], or
//     the legacy six-scalar form) and the dot's metadata, and its D is sliced and reshaped back to the
//     value it replaces.
//
// The steps live in rules.go, operand.go and epilogue.go (matching), plan.go (legality) and build.go
// (building); fuse.go runs them over a module. Every dot gets a Decision with the reason for a refusal and
// an explanation of each piece that matched, and two verdicts: XLA's (package fuse/xlarules, XLA's own
// rules written from its source, which accept less) and this rewrite's. The rewrite keeps the IR's invariants: the result passes
// hlo.Verify when the input does, and prints as text that parses back. Control dependencies stay: the call
// takes those of the dot and of what it absorbs, and a dot is not fused when they order another
// instruction between it and what it would absorb.
//
// # Block-scaled GEMMs
//
// A dot whose operands are block dequantizes (match.BlockDequantize: MX or NVFP4 elements times scales
// repeated over blocks) becomes XLA's scaled-dot, or cuDNN's __cudnn$blockScaledDot as XLA's block scaling
// rewriter builds it (Options.Block), when the values stay the same: the element times its scale must be
// exact both in the type the module dequantizes in and in the one scaled-dot does (bf16 for narrow
// types). See blockscaled.go.
//
// # What it is not
//
// It does not evaluate anything (package interp runs both modules to compare them), it does not rewrite
// inside fusion computations (a compiled module's GEMM fusions are what package report is for), and it
// does not trace values across computations.
package fuse
