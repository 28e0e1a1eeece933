// Package report says what became of the FP8 GEMMs of a module a compiler produced, and what changed
// between two compiles.
//
// Check reports every __cublas$lt$matmul$f8 call (today's operand form and the six-scalar form of XLA up
// to 2024; a call printed without backend_config gets the configuration its operand shapes imply, and the
// report says so), and every GEMM on FP8 data that is not one: plain dots, dots inside GEMM fusions
// (kCustom fusions such as __triton_gemm or gemm_fusion_dot) and other cuBLAS calls. Their operands are
// traced across computations (a fusion parameter to the caller's operand, a get-tuple-element into the
// producing fusion's root, a slice of a concatenation to the piece it takes) back to FP8 values, so that
// the report says how each was dequantized and, for a GEMM an optimized module shows not fused, what
// the module shows apart from what it implies and from the likely causes. A GEMM fusion on FP8 operands is
// reported as fused natively. Block-scaled GEMMs (MX, NVFP4: scaled-dot, the block-scaled calls, dots on
// block-dequantized data) are reported apart, with XLA's block-scaled verdict (blockscaled.go); one is
// fused when the module holds the block-scaled kernel, so that Diff and Passes follow it too. Every GEMM
// carries XLA's verdict (package xlarules) and Octet's (package fuse), and where it came from (its metadata).
//
// Diff pairs the GEMMs of two such reports one to one by dataflow, blind to names, instruction order and
// parameter numbering: a fingerprint of their FP8 sources, told apart further by the sources of their
// scales, what the call computes and where the result goes; then op_name, then shapes. What none of these
// tell apart is reported as ambiguous. Passes walks a module's per-pass dumps
// and names the pass after which an FP8 GEMM was no longer fusible by XLA's rules.
//
// Files: check.go builds the Report (one GEMM per FP8 GEMM of the module), blockscaled.go the block-scaled
// GEMMs, trace.go follows values
// across computations, flow.go computes the dataflow fingerprints, diff.go compares two reports,
// passes.go and dumpname.go walk per-pass dumps.
//
// # Invariants
//
// A GEMM is in a report once, in module order. What a dequantize is comes from package match, the same
// definition the rewrite uses; whether octet fuse would fuse a plain dot, and why not, is the rewrite's
// own fuse.Decision, quoted rather than decided again. The JSON form of Report and Difference is the
// stable contract of "octet check --json" and "octet diff --json".
//
// # What it is not
//
// It never changes a module and evaluates nothing. It does not decide fusions: the rewrite (package fuse)
// does.
package report
