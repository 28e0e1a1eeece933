// Package verify checks a rewrite made by package fuse numerically: it runs the original module and the
// rewritten one with the interpreter on the same inputs and compares them element by element, each
// element against a bound derived from the formats and the computation.
//
// # What is compared
//
// The rewrite replaces, for each fused dot, one value of the original (the dot, or the last step of the
// epilogue the call absorbed: fuse.Decision.Replaces) by the call's D, and the abs-max reduce, when
// absorbed, by the call's abs-max; it changes nothing else. So Check compares:
//
//   - each call's D with the value it replaced, element by element, against the bound below, in ulps of
//     D's type at that element, and its abs-max with the replaced reduce;
//   - everything else bit for bit: the rewritten module is run with each call's results replaced by the
//     original's values, and its outputs must then be the original's outputs exactly (NaN equal to NaN).
//     A rewrite that changed anything beyond the values it replaced shows there.
//
// Comparing at each call, with the original's values fed downstream, keeps the bound a property of the
// GEMM alone: a difference amplified by a later cancellation (an add of nearly opposite values) in the
// rest of the program is not the rewrite's, and a wrong element of D cannot hide behind a large one
// elsewhere.
//
// # The bound
//
// The call computes D = d_scale * epilogue(alpha * a_scale * b_scale * (A @ B) + beta * C + bias) from the
// exact FP8 values in float32 and rounds once to D's type o. The original computes the same from the same
// values but rounds to its chain type t (Decision.DotType) after each of its n = 3 + len(Absorbed) steps
// in t: the dequantize of A and of B, the dot's result and each absorbed instruction. With u_t half of
// t's epsilon (u = 2^-24 for float32), k the contracting size and, for element e of D,
//
//	M_e = |alpha a_scale b_scale| sum_p |a_ip b_pj| + |beta C_e| + |bias_j|
//
// a bound on every intermediate value of both chains before d_scale (|ReLU(x)| <= |x|, |GELU(x)| <= |x|):
//
//   - each rounding in t moves its value by at most u_t times it: the dequantized operands by u_t |a|
//     and u_t |b| each, which the dot sums to u_t (sum |a b|) per operand; the dot's result and each
//     absorbed step by u_t of a value bounded by M_e. n u_t M_e in all. A divide by a scale s counts
//     twice: the call's 1/s, rounded in t as XLA computes it, is a rounding of its own (n = 4 for one
//     such operand), and so does an operand wider than t, which the dot converts to t first;
//   - both accumulate the k products in float32, in orders that may differ: gamma_k = k u / (1 - k u) of
//     sum |a b| each, 2 gamma_k M_e for the two; the call's own float32 steps (the scale product, alpha,
//     C, bias, the activation, d_scale) add at most 6 u M_e;
//   - the epilogue carries a difference through with a gain G: 1 for none and ReLU, 2 for GELU (its
//     slope is at most 1.13, and the original's tanh approximation rounds intermediate values up to a few
//     times |x|);
//   - sums of products below 2^-126 may flush to zero (package gemm on AVX-512 BF16): k 2^-126
//     |alpha a_scale b_scale| at most.
//
// So before d_scale the two values differ by at most
//
//	S_e = G (n u_t + 2 gamma_k + 6 u) M_e + k 2^-126 |alpha a_scale b_scale|
//
// and both are then rounded to o (round to nearest is monotone, each moves by at most half an ulp), so
//
//	|D_e - original_e| <= |d_scale| S_e + ulp_o(max(|D_e|, |original_e|)).
//
// For an f32 chain writing an FP8 D this is one ulp of the FP8 value at that element plus a few f32
// roundings of M_e; a wrong sign, or one element off by a tenth, fails unless that element's own sum
// |a b| cancels to a tenth of its magnitude or less. M_e is computed by running sum |a| |b| on the call's
// own operands, with the same dimension numbers, in the rewritten module. The abs-max differs by at most
// the largest S_e, plus one ulp of its type.
//
// Where the original's conversion to an FP8 D overflows to NaN and the call saturates to the format's
// largest value (as cuBLASLt's FP8 output does, and as XLA's rewrite accepts), the element is counted as
// saturated, not as a failure. Likewise where the original computes a step in f16 (the dequantize, the
// dot or an absorbed step), whose range float32's exceeds: an element the original's chain made infinite
// or NaN is counted as overflowed, whatever the call gives there. The two differ there whatever the
// rewrite: an f16 dequantize of 57344 times 2 is infinite, and times a zero of the other operand NaN,
// where the call's product is 0; and once infinite, a value of the original's chain can meet a zero or an
// infinity of the other sign downstream and become NaN where the call's is infinite.
//
// # Block-scaled rewrites
//
// A block dequantize and dot rewritten into a scaled-dot, or into cuDNN's block-scaled call, has no bound:
// the rewrite is made only where each element times its block's scale is exact in the type the module
// dequantized in, so the call computes the dot's own products and sums them in the dot's order (the numerics
// contract of docs/numerics.md). Its D must equal the replaced value bit for bit.
//
// # GEMMs in called computations and loops
//
// A GEMM may be in any computation the program calls but a fusion's: a function the entry calls, the body
// of a while loop (a scan over layers), a branch. The interpreter shows Check the values it computes
// (interp.Options.Intercept): in the original, Check records each replaced value at every evaluation of
// its computation; in the rewritten module it puts the one of the same evaluation in place of the call's
// results, so that every iteration after it starts from the original's state, and records the call's
// results and the bound's values there. Each evaluation is compared as above; a GEMM's counts are those
// of all its evaluations (GEMM.Evaluations), its worst element the worst of them. The two modules must
// evaluate it as many times. Where the memory budget holds both modules' buffers at once, the two run in
// lockstep: the original pauses while it holds a value the rewritten module has not compared, unless the
// rewritten module waits for one it has not computed (the two may order their GEMMs differently), so a
// scan over many layers holds one layer's values, not all of them. A GEMM inside a fusion's computation is
// refused with an error (the interpreter may compute a fusion a part at a time), and so is one evaluated
// on each device of a grid (a program of collectives, a shard_map body), whose evaluations have no one
// order.
//
// # What it is not
//
// It does not decide fusions and does not change the modules it is given.
package verify
