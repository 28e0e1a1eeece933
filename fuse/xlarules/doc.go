// Package xlarules is XLA's own decision about an FP8 dot, apart from Octet's: whether XLA's GPU GEMM
// rewriter makes it one cuBLASLt FP8 call (__cublas$lt$matmul$f8) as the module stands, and, for a
// module before optimization, what each modelled XLA release makes of it in a full compile.
//
// The rules are written from XLA's source, each with the file and commit it was read from (Release
// names them):
//
//   - GemmRewriterVisitor::HandleDot in XLA's order: the matrix gates (IsCublasSupportedMatMul, or
//     IsMatrixMultiplication and IsMatrixVectorMultiplication and the sparse operands), the size threshold
//     (xla_gpu_gemm_rewrite_size_threshold with IsDotSupportedByClassicalEmitters), the rank-2 transposes,
//     GemmIsSupportedByCublasLt on the dot's own types, then the FP8 matcher on both operands
//     (MatchFp8Param, or IsSupportedF8Pattern in 2024) and CreateF8CustomCall's checks: compute capability
//     and toolkit, FP8 types, scalar scales, the result type, one contracting dimension, operand ranks.
//     A refusal names the function and the condition that failed (Verdict.Rule).
//   - The handlers of the instructions after the dot: F8ScaleD, F8ConvertD (one user of the clamp,
//     bounds exactly the FP8 type's lowest and max, broadcasts of constants, no FP8 output with a C
//     other than bf16 or f16), HandleAdd (vector and matrix bias), HandleMaximum (ReLU), the GELU form and
//     the abs-max. An XLA bug is reported only where XLA's own pattern matches and what it builds is wrong:
//     a call outside cuBLASLt's FP8 type table (with the rule that built it and the table's rows; no
//     cuBLASLt algorithm runs it, and jaxlib 0.11.2 fails the compile there), or a pad of a nonzero value
//     moved before a scale.
//   - The passes of gpu_compiler.cc that change or claim a dot before the FP8 rewrite: TransposeFolding,
//     DotDecomposer, OperandUpcaster (which converts the FP8 operands of a dot cuBLAS does not take as a
//     matrix product, a matrix-vector dot, to the result type), ReshapeMover (which sinks a transpose or
//     reshape between the convert and the scale below the scale), the dot strength reduction,
//     GemvRewriter, the GEMM fusion into Triton (GemmFusion: which dots it claims and which ops it takes
//     with them), float normalization, and the GEMM fusion autotuner's cuBLAS fallback (in the newest
//     release the GEMM rewriter on the fusion's own computation, FissionBackend, so a dequantize left
//     outside the fusion is not seen). A module reaches them, as from JAX, through the StableHLO
//     translation, which makes a clamp's scalar bounds broadcasts. Their order differs by release: XLA
//     of mid-2024 ran the FP8 rewrite first, later XLA runs the Triton GEMM fusion first, which is how a
//     bf16 dequantize that JAX 0.4.31 fused became a bf16 Triton GEMM in JAX 0.4.32. The defaults of
//     debug_options_flags.cc differ too: xla_gpu_triton_gemm_any is false in the 2024 copy, so the GEMM
//     fusion leaves a lone dot to cuBLAS, and true in the 2025 ones, so it takes any dot Triton supports
//     and autotuning weighs it against cuBLAS.
//
// A full-compile prediction is one of the outcomes of Outcome: an FP8 call, a Triton GEMM on the FP8 or on
// dequantized values, a plain dot, autotuning's choice between two, or a compile error, with the error
// XLA gives.
//
// The newest release's rules were checked against what jaxlib 0.11.2 made of every module of testdata,
// of ../testdata and of the examples on an H100 (testdata/measured/outcomes.tsv), and corrected where that
// XLA, newer than the stored sources, does otherwise: no batch limit on cuBLASLt calls, no legacy cuBLAS
// call for a dot cuBLASLt does not take (a compile error), a compile error for an FP8 call outside the
// table, the fallback on the fusion's own computation, and a GEMM fusion that takes any elementwise user.
//
// A Target is the release, the GPU (sm_80, sm_89, sm_90, sm_100, gfx942; each with the toolkit assumed)
// and the XLA flags the rules read; every verdict says which it assumes.
//
// Block-scaled GEMMs (MX formats, NVFP4) have rules of their own, written from XLA's block scaling
// rewriter and matcher and its cuDNN and Triton support checks (blockscaled.go: DecideBlockScaledCall,
// DecideBlockDequantizedDot): whether XLA makes a block-scaled kernel of the GEMM, seen in the module or
// inferred for Blackwell, and the first rule that fails.
//
// What it is not: it runs no XLA, and knows only what the listed sources say. It does not model the
// autotuner's timings (a Triton GEMM that autotuning may replace by cuBLAS says so), the dimension-order
// propagation of the Triton fusion (assumed to succeed), or layouts other than the default. HLO text
// carries no debug options: the flags come from the caller.
package xlarules
