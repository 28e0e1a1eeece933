// Package fuse finds the FP8 matrix multiplications of an HLO module and turns each into one cuBLASLt FP8
// GEMM (the custom call __cublas$lt$matmul$f8), the rewrite XLA's GPU GEMM rewriter makes for a Hopper
// target; and, for modules a compiler already produced, it says which FP8 GEMMs were fused and why the
// others were not.
//
// # The rewrite
//
// Rewrite (and Analyze, which decides without changing anything) looks at every dot with an FP8 value
// among its operand chains, in three steps kept apart:
//
//   - matching, with the patterns of package match: for each operand, an FP8 value, its dequantize (one or
//     more exact converts to a wider float type, then an optional multiply or divide by a broadcast scalar
//     of any float type, in either operand order) and the ops between it and the dot that commute with it
//     (bitcast, broadcast, copy, reshape, transpose, slice, dynamic-slice, pad of zero, select against a
//     broadcast zero); after the dot, in cuBLASLt's order, multiplies by constants (alpha), output scales,
//     a matrix bias C, a vector bias, ReLU or the tanh-approximation GELU (XLA's form and
//     jax.nn.gelu(approximate=True)'s), and for an FP8 result the abs-max, the d_scale, the clamp to
//     exactly the format's range and the convert;
//   - legality: the types cuBLASLt takes on Hopper (f8e4m3fn and f8e5m2, never both f8e5m2, no fnuz
//     types), the result types, C never FP8, a bias type that goes with D, at most 65535 batches;
//   - building: the FP8 values are replayed through the commuting ops, transposed and reshaped so that A
//     is row-major [batch..., m, k] and B column-major [batch..., n, k], padded to multiples of 16; the
//     scales become f32 scalars (1/s for a divide), the call gets XLA's GemmBackendConfig and operand order
//     (a, b, [c], a_scale, b_scale, [bias], [d_scale], or the legacy six-scalar form), and its D is sliced
//     and reshaped back to the value it replaces.
//
// Every dot gets a Decision with the reason for a refusal and an explanation of each piece that
// matched. The rewrite keeps the IR's invariants: the result passes hlo.Verify when the input does, and
// prints as text that parses back.
//
// # Compiled modules
//
// Check reports on a module a compiler produced: every __cublas$lt$matmul$f8 call (today's operand form
// and the six-scalar form of XLA up to 2024; a call printed without backend_config gets the configuration
// its operand shapes imply, and the report says so), and every GEMM on FP8 data that is not one: plain
// dots, dots inside GEMM fusions (kCustom fusions such as __triton_gemm or gemm_fusion_dot) and other
// cuBLAS calls. Their operands are traced across computations (a fusion parameter to the caller's
// operand, a get-tuple-element into the producing fusion's root, a slice of a concatenation to the piece
// it takes) back to FP8 values, so that the report says how each was dequantized and what blocked the
// fusion. Diff matches the GEMMs of two such reports by what they multiply (the parameters and shapes of
// their operands' sources), not by instruction names, and lists the fusions lost and gained.
//
// # What it is not
//
// It does not evaluate anything (package interp runs both modules to compare them), and it does not
// rewrite inside fusion computations: a compiled module's GEMM fusions are what Check reports on.
package fuse
