// Package interp evaluates HLO modules on the CPU: a reference interpreter with XLA's numerics, including
// the cuBLAS and cuBLASLt FP8 GEMM custom calls of XLA's GPU backend.
//
// Run evaluates a module's entry computation on arguments (Values: arrays held compactly in
// tensor.Tensor, tuples and tokens); RandomInputs makes deterministic arguments; Compare compares two
// results bit by bit.
//
// # Numerics
//
// Like XLA's HloEvaluator, every instruction rounds its result to its own element type: bf16, f16 and
// the narrow floats (FP8, FP6, FP4) are computed in float32 and rounded after every operation, so a bf16
// chain rounds at each step. Conversions follow XLA and ml_dtypes bit for bit (package dtype): round to
// nearest even; overflow does not saturate (f8e4m3fn gives NaN past 464, f8e5m2 infinity); float to
// integer truncates and clamps, NaN giving 0. Transcendental functions are computed in float64 and
// rounded, so they may differ from a float32 libm in the last place.
//
// A dot or convolution converts both operands to its result type (exact when that is wider, as for FP8
// or bf16 operands with an f32 result), then accumulates in float32 for float results of 32 bits or fewer
// (rounded once to the result type), in float64 for f64, and exactly for integers. Every sum has an order
// fixed by the program and the shapes: a dot's element is the chain of fused multiply-adds over k in
// order from zero, which package gemm's kernels compute whatever the CPU, kernel set, cache blocks or
// thread count; a convolution's terms are ordered by window position (row-major), then input feature,
// and it runs on the same kernels (im2col in panels of output positions, or the input itself for a 1x1
// window), equal bit for bit to the reference loop convolveLoop; long reductions are folded in blocks of
// a fixed size. docs/numerics.md states the whole contract and the tests that hold it: the same program
// gives the same bits with OCTET_GEMM_KERNEL=go, avx2 or the default, on one thread or many, with or
// without a tuning cache.
//
// The cuBLASLt FP8 custom call (__cublas$lt$matmul$f8, both today's operand layout and the six-scalar
// layout of 2024) computes D = d_scale * epilogue(alpha * a_scale * b_scale * (A @ B) + beta * C + bias)
// in float32 and rounds once to D's type, saturating FP8 outputs to their largest finite value as
// cuBLASLt does; the abs-max output is taken after the epilogue and before d_scale. See cublasCall.
//
// Block-scaled GEMMs (MXFP8, NVFP4: scaled-dot, __op$block_scaled_dot, cuDNN's __cudnn$blockScaledDot and
// hipBLASLt's __cublas$lt$matmul$mx, and the cuDNN fusions whose scales XLA swizzles) decode each operand
// block by block with its scales applied, in the type their definition dequantizes in, and multiply
// through the MatMuler; products of at most 16 rows multiply the rhs as it is with package gemm's kernels
// for block-scaled weights (gemm.MatMulBlockScaled) wherever those decode it to the same values, for the
// same bits: see blockscaled.go.
//
// # Budgets
//
// Options.MaxMemory refuses, before it runs, a program whose buffers would not fit (EstimateMemory);
// Options.MaxWork stops an evaluation that does more work than allowed. Both report typed errors
// (*MemoryError, *WorkError). The weights a run keeps packed and the constant values of its loops (below)
// take only the room the budget leaves beyond the estimate.
//
// # Errors
//
// Every failure is positioned at the instruction: "file:line:col: unsupported: what" for what the
// interpreter does not implement (collectives of a module compiled for several devices outside
// RunParallelTarget and manual computations, host transfers, dynamic shapes, most custom calls, ...), "file:line:col: %name: message" for a malformed instruction. Evaluation never
// panics on a module; an internal failure becomes an *Error too. Which opcodes have an evaluator is a fact
// to query: Supported(op), Ops().
//
// # Several devices
//
// The custom call RunParallelTarget (the StableHLO interpreter's interpreter.run_parallel) runs programs
// on a grid of replicas and partitions, one goroutine per device; its collectives meet at rendezvous
// and exchange operands within the groups the StableHLO specification defines. Devices whose
// collectives do not match fail the run with an error rather than wait forever.
//
// # Sharded programs
//
// A program with shardings (GSPMD's sharding attributes, Shardy's xla.sdy.* calls and attributes)
// describes one global computation that a compiler would spread over devices; run on one device, the
// interpreter computes that global computation. The calls that only carry a sharding give their operand
// (Sharding, xla.sdy.FuncResultSharding, xla.sdy.PropagationBarrier). A Shardy manual computation
// (shard_map: xla.sdy.GlobalToLocalShape, a call of its body, xla.sdy.LocalToGlobalShape) is per-device
// code: its body runs on every device of its mesh, on the shard in_shardings gives each, with its
// collectives meeting across them as on that mesh, and the shards of its results are put together as
// out_shardings says (see sdy.go).
//
// # Speed
//
// Instructions run one at a time, each on every core (Options.Threads): convolutions and dots on package
// gemm's kernels (a depthwise convolution, whose products would waste them, on its depthwise kernel),
// elementwise instructions over cache-sized chunks on gemm's row kernels, reductions and windowed
// reductions split by output (and by block, for long runs). An elementwise fusion runs chunk by chunk
// without its intermediate arrays. A broadcast whose users are all elementwise instructions is not laid
// out: they read its operand through its index map, chunk by chunk (see views.go). Values are immutable;
// the memory of an array no value refers to any more is reused for a later result of its size, since
// fresh memory costs a page fault per page, and a dynamic-update-slice or scatter whose operand no one
// reads again writes into it (a loop's state passes to its body, so that a loop-carried cache is
// updated in place). A weight that dots multiply by again and again (an argument
// or constant read by a dot in every iteration of a while) is packed once for the life of the run where
// package gemm streams it faster packed (gemm.PlanWeights: an FP8, s8 or bf16 weight stored N x K, by up
// to 64 rows), at its second use; the block-scaled rhs (MXFP4, NVFP4, MXFP8, elements and scales
// arguments or constants) of a block-scaled GEMM of at most 16 rows, which the block-scaled kernels read
// only packed (gemm.PackBlockScaled), is kept from its first product in a loop (where a dot's B is
// streamed, a block-scaled rhs is packed for every product anyway) and from its second elsewhere. The
// constant work of a loop's computations (a reduce or a mask of constants alone: loopconst.go) runs at
// their first evaluation and is kept for the run. The results are the same bits. Options.Profile records the time, FLOPs and bytes of every instruction
// (octet run --profile).
//
// What it is not: a compiler. There is no fusion of its own beyond reading broadcasts in place, no
// layout assignment and no scheduling; a program runs as written, its loops' constant work aside.
package interp
