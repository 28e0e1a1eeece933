// Package gemm multiplies float32 matrices on the CPU, fast: C = alpha*A*B + beta*C with float32
// accumulation, on every core the program may use.
//
// It is what Octet's interpreter calls to evaluate HLO dot instructions and the cuBLASLt FP8 GEMM custom
// call. MatMul takes strided row-major views (Matrix), so a transposed or sliced operand is multiplied where
// it lies, without a copy; MatMulBatched runs many independent products of the same shape. MatMulTyped
// takes operands of narrower types (FP8, FP6, FP4, bf16, f16, small integers; Typed) and decodes them to
// float32 while packing, with the same result as decoding first and calling MatMul.
//
// The implementation follows the BLIS/GotoBLAS structure: B is packed into KC x NC panels and A into MC x KC
// blocks laid out so that a register-tile microkernel reads both contiguously; packing absorbs transposes,
// strides and ragged edges (zero padding), so the microkernel only ever sees whole tiles. On amd64 the
// microkernel is AVX-512 assembly (a 14x32 tile in 28 zmm accumulators) or AVX2/FMA assembly (6x16), chosen
// at run time from what the CPU and operating system support; elsewhere, or with the purego build tag, it is
// portable Go. Kernels lists what this machine can run and SetKernel picks one, so that tests compare every
// implementation with Reference, the naive triple loop; the OCTET_GEMM_KERNEL environment variable
// (KernelEnv) picks the default, so that a whole program can run as it does on a smaller CPU.
//
// On a CPU with AVX-512 BF16 (AMD Zen 4 and later, Intel Sapphire Rapids and later) products whose operands
// are all bf16 values (bf16, the FP8, FP6 and FP4 formats, s8, u8, the sub-byte integers: KernelFor) run on
// the avx512bf16 kernel at twice the float32 rate: packing decodes each element exactly and keeps it as
// bf16, two of consecutive k to a 32-bit lane, and VDPBF16PS adds both products to a float32 accumulator.
// Its numerics differ from the float32 kernels in two ways, and nowhere else:
//   - Order: the products are exact (two bf16 significands fit in a float32 one) and summed in float32,
//     but in pairs, a(i,p+1)*b(p+1,j) then a(i,p)*b(p,j), so the result differs from the float32 kernel's
//     by rounding within the same bound.
//   - Subnormals: the instruction treats subnormal inputs as zero and flushes subnormal results (partial
//     sums included) to zero. No FP8, FP6, FP4 or integer value is a subnormal bf16, so only bf16 operands
//     below 2^-126 and sums below 2^-126 in magnitude are affected; infinities and NaN propagate as in
//     float32.
//
// The float32 kernels give MatMulTyped's result bit for bit equal to MatMul's on the decoded operands; the
// bf16 kernel keeps the error bound below, not the bits (SetKernel with a float32 kernel restores them).
//
// What it is not: a BLAS. There is no float64, complex or integer arithmetic, no other level-3 operation,
// and no epilogue (scales, bias, activation, amax are the caller's). Every product is computed from float32
// values and accumulated in float32, whatever the input type. Results are not bit-identical to Reference or
// to another kernel: the sums are the same but grouped differently (blocks of K, fused multiply-adds, pairs),
// so they differ by rounding within the usual bound |error| <= K * eps * sum_k |alpha * a_ik * b_kj| (plus
// one rounding for beta*C; with the bf16 kernel, plus the flushed subnormals).
//
// Invariants:
//   - C is written only inside its Rows x Cols view; elements between rows (Stride > Cols) are untouched.
//   - When beta == 0, C is never read, so NaN or infinity already in C does not reach the result.
//   - When alpha == 0 or K == 0, A and B are never read and C becomes beta*C (as reference BLAS does).
//   - Shapes are checked before any work: mismatched dimensions, a stride smaller than the row length, or
//     data too short for the view is a programming error and panics with a message naming the operand
//     (the interpreter validates shapes first; gonum's BLAS behaves the same way).
//   - C must not overlap A or B.
//   - Steady-state calls allocate nothing: packing buffers come from a sync.Pool and the worker goroutines
//     are started once and reused. After a parallel call the workers poll for new work for 50
//     microseconds (yielding to other goroutines) before they sleep, since waking a thread costs as much
//     as a small product.
//   - Results do not depend on the number of threads: every element of C is computed by one goroutine in
//     the same order whatever the split.
package gemm
