// Package gemm multiplies matrices on the CPU, fast: C = alpha*A*B + beta*C with float32 accumulation, on
// every core the program may use, for operands of float32 and of the narrow types of machine learning.
//
// It is what Octet's interpreter calls to evaluate HLO dot instructions and the cuBLASLt GEMM custom calls.
// MatMul takes strided row-major views of float32 data (Matrix), so a transposed or sliced operand is
// multiplied where it lies, without a copy; MatMulBatched runs many independent products of the same shape.
// MatMulTyped takes operands of narrower types (FP8, FP6, FP4, bf16, f16, small integers; Typed) and decodes
// them while packing, so no float32 copy is made. MatMulEpilogue finishes every element as it is stored:
// scales per tensor, row and column, an added matrix, bias, ReLU or GELU, abs-max, and the conversion to an
// FP8 or bf16 D (Epilogue), as a cuBLASLt FP8 matmul does. PackWeights lays out a weight once for
// MatMulWeights, the products with few rows of inference (WeightsOf reads it where it lies instead), and
// Plan says how a product runs: streamed, packed or blocked, chosen by its shape.
//
// # Kernels
//
// Products follow the BLIS/GotoBLAS structure: B is packed into KC x NC panels and A into MC x KC blocks
// laid out so that a register-tile microkernel reads both contiguously; packing absorbs transposes,
// strides, element types and ragged edges (zero padding), so the microkernel only ever sees whole tiles.
// The microkernels, chosen at run time from what the CPU has and the operating system saves (Kernels,
// CPU), are values that carry everything a product runs on besides the tile: the assembly of their
// packing, decoding and epilogue, and their streaming kernels. Each set of assembly routines declares the
// features its instructions use, and a kernel takes a set only where the machine has all of them:
//
//   - avx512 (AVX-512F): 14x32 float32 tile in 28 zmm accumulators, VFMADD231PS; one call runs down a
//     whole column of tiles (a block of A's rows against one micro-panel of B). Packing transposes and
//     decodes with AVX-512F, streaming uses stream-avx512 where the CPU has AVX-512 BW and VL too (else
//     stream-avx2: Knights Landing, a virtual machine that shows F alone).
//   - avx2 (FMA; its helpers need AVX2 and F16C): 6x16 float32 tile in 12 ymm accumulators, a column of
//     tiles a call. Its packing is AVX2: A's strips six rows at a time, B's strips copied or decoded
//     straight into place (f8e4m3fn through a quick decoding redone exactly where a strip holds the NaN
//     code, bf16 by a shift), fetching the rows packed next. The micro-panel of B takes half of L1D: kc =
//     384 where L1D has 48 KiB, 256 where it has 32. It uses no AVX-512 instruction, whatever the CPU.
//   - go: a portable 4x4 tile and streaming kernels in Go, no assembly, everywhere (and the only one with
//     the purego build tag).
//   - avx512bf16 (AVX-512 BF16: AMD Zen 4 and later, Intel Cooper Lake, Sapphire Rapids and later): 14x32
//     tile, pairs of bf16 multiplied by VDPBF16PS at twice the float32 rate, for products whose operands
//     are all bf16 values (bf16, FP8, FP6, FP4, s8, u8, the sub-byte integers; KernelFor), FP8 decoded to
//     bf16 while packing (exact, with AVX-512 BW where the CPU has it); other products go to avx512. It
//     sums in another order than the numerics contract's (below), and runs only where it is asked for:
//     SetKernel, or OCTET_GEMM_KERNEL=avx512bf16; octet bench gemm names the kernel it timed.
//
// The first three are ordered (Kernel.Ordered): their results are the same bits. The default is the
// fastest ordered kernel the machine has; SetKernel picks another, so that tests compare every
// implementation, and the OCTET_GEMM_KERNEL environment variable (KernelEnv) picks the default, so that a
// whole program runs as it does on a smaller CPU (OCTET_GEMM_KERNEL=avx2: the AVX2 tile, packing,
// decoding and streaming, as on a CPU without AVX-512). Each kernel's cache blocks (Blocks) have defaults
// for current x86 cores; Tune searches for better ones on this machine and SaveTuning keeps them in the
// user's cache directory, where every later process on the same CPU finds them. Block sizes change the
// speed of a product, never its result.
//
// Products of few rows by a B of f8e4m3fn, f8e5m2, s8 or bf16 (inference's decode steps) are bound by
// reading B, not by arithmetic: they are streamed instead (MatMulTyped, or MatMulWeights): every element
// of B is read once in its own type, decoded in registers (bit manipulation, or lookups within registers)
// and multiplied at once, panels of 64 columns shared among the cores, with an optional scale per output
// channel. Every set has streaming kernels: stream-avx512 (1x64, 4x64, 8x16 and 16x16 tiles, each element
// of B decoded once for all the rows of its tile; for the 8x16 one into L1, a block of whole panels at a
// time), stream-avx512vbmi (the same, where the CPU has AVX-512 VBMI
// as Ice Lake, Zen 4 and later do, with the f8e4m3fn and f8e5m2 kernels below), stream-avx2 (1x64,
// 4x16, 8x8 and 16x16) and stream-go. Plan chooses by the shape (the bench gemm command prints its
// choice):
//
//   - Streamed, up to 16 rows: B read where it lies. A row-major B (K x N) is read 16 steps of k at a
//     time, a line of each of 16 rows (pages apart) after another, which the prefetchers follow. A
//     transposed one (N x K, as PyTorch keeps weights) is transposed a block of k of 64 of its rows at a
//     time, in its own type (bytes or words, by rounds of unpacking within 128-bit lanes, the next block
//     fetched ahead), into a panel in L1 that the kernels read as packed weights: the vector lanes run
//     along N, one output element each, so that every sum stays the chain over k in order (a dot product
//     along K cut into partial sums would not).
//   - Up to 64 rows, in groups of 16 (and one of the rest, by the kernel of its size): a row-major B
//     Streamed again by each group, which costs less than laying it out; a transposed B Packed: each
//     panel laid out whole in L2, once for all the groups.
//   - More rows, or a B of float32 or f16: Blocked.
//
// PackWeights lays a weight out once in panels of its own type, each one run of memory, which the kernels
// stream 64 steps of k at a time (a page of each panel in turn), as fast as a row-major B where it lies
// and 1.3 to 3 times as fast as a transposed one; PlanWeights says when that pays for a weight multiplied
// again and again (the interpreter keeps such weights packed for a run).
//
// With AVX-512 VBMI, f8e4m3fn and f8e5m2 are decoded 64 elements at a time by byte lookups: every value
// of either is a bfloat16, and two VPERMI2B among 128 bytes (a table made from package dtype's decoding)
// give the low and the high byte of the bfloat16 of each code's magnitude (the sign or'ed in), which
// unpacking within 128-bit lanes widens to float32: exact, NaN codes included. For 1 and 4 rows that is
// 13 operations on the vector units per 64 elements with the multiply-adds (30 for f8e4m3fn through half
// precision with its NaN check, 20 for f8e5m2); for 5 to 16 rows a block of 64 steps of k of a whole panel
// is decoded so into L1 and 8 or 16 rows multiplied by it from there. The sums are kept in the order the
// unpacking leaves the columns and put in order as C is stored. These kernels also prefetch the panel
// they multiply next (packed weights are read a page of each panel in turn, which the hardware's
// prefetchers do not fetch before it is read); on the Xeon of the README they run one row by a 4096 x
// 4096 packed f8e4m3fn B about twice as fast as the half-precision decoding, and 16 rows by it about 1.2
// times as fast as the direct 16-row kernel.
//
// Elsewhere f8e4m3fn is decoded quickly, in half the instructions of the exact decoding, through half precision:
// each byte sign-extended to a word and shifted is an f16 worth 2^-8 times the code's value (VCVTPH2PS,
// then times 2^8, or A taken times 2^8 instead), exact for every code but the NaN code; a block of B
// holding the NaN code is noticed as it is read and run again with the exact decoding (the same
// conversion, the NaN code found by a compare), so the results are the same bits. No streaming decoder
// goes through a subnormal float32 (a float32 of 2^-120 times the value, times 2^120, would be as short,
// but Intel's cores multiply subnormals through a microcode assist, and one row by a B of random codes ran
// forty times slower). In the AVX2 kernels 9 to 16 rows do not fit the 16 ymm registers with B decoded:
// blocks of 128 x 16 elements of B are decoded once into a float32 buffer in L1 and multiplied by the 16
// rows in 6x16 and 4x16 register tiles; where a goroutine has two panels or more of a row-major B, each
// panel is decoded while the one before is multiplied, a row of 64 columns every eight steps of k (else,
// for packed weights, a block while its first 6 rows are multiplied).
//
// Weights in a block-scaled format (MXFP4, NVFP4, MXFP8: BlockScaled) are packed once by PackBlockScaled,
// in panels of 64 bytes a row (128 columns of f4e2m1fn, two to a byte; 64 of f8e4m3fn or f8e5m2) with
// their scales beside them, and streamed by MatMulBlockScaled, each element and scale read once: for one
// row of A, decoded in registers (f4e2m1fn by VPERMPS on its 16 values with AVX-512, by VPSHUFB on the
// bytes of their bfloat16 forms with AVX2; the FP8 formats through binary16, or by the lookups above where
// the CPU has AVX-512 VBMI: block-avx512vbmi) and multiplied by the scale (VSCALEFPS for E8M0 scales) or,
// with E8M0 scales, left unscaled while the sums are scaled at the ends of each block, where that provably
// gives the same bits; for more rows, decoded 64 steps of k at a time into L1 (by the same decodings) and
// multiplied by 4, 8 (AVX-512) or 16 rows from there (block-avx512, block-avx2, beside the streaming kernels of the same
// instruction set; the Go code elsewhere). The kernels prefetch the rows of the next panel they will read
// while they read a panel's.
//
// MatMulEpilogue finishes each tile (each column of tiles) on the goroutine that summed it, while it is in
// L1, one step of the epilogue at a time over 64 elements: in AVX2 where the kernel has it (the scales,
// the added matrix and bias, ReLU, the abs-max, the clamp and the f8e4m3fn encoding; GELU and the other
// encodings in Go), each operation rounded on its own as the Go steps do.
//
// Row kernels serve an interpreter's elementwise instructions and depthwise convolutions with the same
// assembly sets (rows-avx512 beside the AVX-512 helpers, rows-avx2 beside the AVX2 ones, Go elsewhere):
// Row (add, subtract, multiply, divide, and XLA's maximum and minimum, NaNs included), Clamp and ClampBF16
// with scalar bounds, EncodeBF16 and DecodeBF16, each element rounded as its scalar operation rounds it;
// and Depthwise, the chain of fused multiply-adds of a depthwise convolution's window for a batch of
// output positions, vectorised across the features, four positions at a time. BoxMuller and
// SplitMixUniforms make the interpreter's normal random inputs: the uniforms of a SplitMix64 stream, and
// their Box-Muller transforms with the bits of Go's math.Log, math.Sqrt and math.Sincos on amd64 (each
// operation of math's code, in its order, rounded on its own), four lanes at a time in AVX2 beside the
// kernels that run the integer row assembly, in Go elsewhere.
//
// # Numerics
//
// The contract, kept by every ordered kernel: every element of C is a function of the operands' values
// alone, the same bits whatever the kernel (avx512, avx2, go, the purego build), the CPU, the number of
// threads, the cache blocks (tuned or not), and whether the product is blocked, streamed or packed, B
// stored row-major or transposed, laid out as Weights or not. Element (i, j) is:
//
//	S = 0; for k = 0, 1, ..., K-1: S = fma(a(i,k), b(k,j), S)   (float32 fused multiply-add, rounded once)
//	x = alpha * S                                               (rounded)
//	x = x * scale[j]                                            (rounded; MatMulWeights with a scale)
//	C(i,j) = fma(beta, C(i,j), x)                               (rounded once; only where beta != 0)
//
// with round to nearest, ties to even, and subnormals kept. Operands of narrow types enter as their exact
// float32 values (decoding is exact); block-scaled weights as each element times its scale, rounded once
// to float32 (exact but where it overflows; see BlockScaled). Where K is cut into blocks, each block goes on from the sums the one
// before stored, so the blocks make one chain; with beta != 0 the sums so far are kept apart from C until
// the last block. When alpha == 0 or K == 0, A and B are not read and C = beta*C (rounded; zero when beta
// == 0). MatMulEpilogue's steps start from S, each rounded on its own (see Epilogue). Reference is the
// contract written as a loop; TestContract and TestContractStreamed compare every ordered kernel of the
// machine with it, bit for bit. A NaN result is a NaN, of unspecified sign and payload. The error bound is the usual one of a
// float32 sum, |C - exact| <= K * eps * sum_k |alpha * a_ik * b_kj| (plus a rounding each for alpha,
// scale and beta).
//
// The avx512bf16 kernel keeps its own order, independent of the threads and the blocks as well, but not
// the contract's, in two ways:
//   - Order: the products are exact (two bf16 significands fit in a float32 one) and summed in float32,
//     but in pairs, a(i,p+1)*b(p+1,j) then a(i,p)*b(p,j), added to the chain, within the same bound.
//   - Subnormals: VDPBF16PS treats subnormal inputs as zero and flushes subnormal results (partial sums
//     included) to zero. No FP8, FP6, FP4 or integer value is a subnormal bf16, so only bf16 operands below
//     2^-126 and sums below 2^-126 in magnitude are affected; infinities and NaN propagate as in float32.
//
// What it is not: a BLAS. There is no float64, complex or integer arithmetic and no other level-3
// operation.
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
//     the order of the numerics contract whatever the split.
package gemm
