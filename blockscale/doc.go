// Package blockscale holds the block-scaled low-precision formats: the OCP Microscaling (MX) formats
// MXFP8 (E4M3 and E5M2 elements), MXFP6 (E2M3, E3M2) and MXFP4 (E2M1), whose blocks of 32 elements share
// one f8e8m0fnu scale, and NVIDIA's NVFP4, whose blocks of 16 E2M1 elements share one f8e4m3fn scale and
// whose tensor has one more float32 scale. A value is its element times its block's scale (times the
// tensor scale in NVFP4).
//
// It quantizes and dequantizes blocks (Format.QuantizeBlock, Format.DecodeBlock) and whole arrays along
// one axis (Quantize, Tensor.Dequantize), reads and writes them in .npy and .npz files beside their scales
// (WriteNpz, ReadNpz, ScaleFileName), and lays scales out as cuDNN's block-scaled GEMM reads them
// (SwizzleIndex). The element and scale types are package dtype's, bit-exact with ml_dtypes.
//
// # The rules, and where they come from
//
// MX quantization is Algorithm 1 of the OCP Microscaling Formats (MX) Specification v1.0 (the conversion
// of a vector of scalar floats to an MX block): the shared exponent is floor(log2(amax)) - emax_elem, where amax is the block's largest magnitude and
// emax_elem the exponent of the element type's largest normal number (8 for E4M3, 15 for E5M2, 2 for
// E2M3 and E2M1, 4 for E3M2); the scale is 2^shared; each element is V_i / scale rounded to nearest even,
// normal values past the element's largest clamped to it (saturation). The E8M0 scale format has codes for 2^-127 to 2^127 and a NaN (0xff): a shared exponent below -127 is clamped to -127 (a block of
// zeros gets 2^-127 and zero elements), one above 127 gives the NaN scale. A block that holds a NaN or an
// infinity gets the NaN scale, as the specification's reference code (microsoft/microxcaling,
// mx/mx_ops.py, _quantize_mx) computes it: log2 of a non-finite amax overflows the scale; its elements are
// then written as zeros, since a NaN scale makes every value of the block NaN whatever they hold (the
// specification's special values: X = NaN gives v_i = NaN for every i).
//
// Some libraries choose the scale differently. JAX's quantize for jax.nn.scaled_dot_general
// (jax/_src/cudnn/scaled_matmul_stablehlo.py, cast_to_e8m0_with_rounding_up) takes amax / max_elem and
// rounds it UP to a power of two, so that no element saturates; XLA's own __op$quantize expansion
// (xla/backends/gpu/transforms/block_scaling_rewriter.cc, BuildQuantize) divides amax by 2^emax_elem and
// converts to the scale type with rounding to nearest. Both can give a scale one power of two above the
// specification's, and then different elements. This package implements the specification; the tests
// show one block where the choices differ.
//
// NVFP4 follows NVIDIA's description ("Introducing NVFP4 for Efficient and Accurate Low-Precision
// Inference", NVIDIA Technical Blog, June 2025; "Pretraining Large Language Models with NVFP4",
// arXiv:2509.25149, section 2 and appendix): the tensor's decode scale is g = amax_tensor / (6 * 448)
// unless given; each block's scale is amax_block / (6 * g), converted to f8e4m3fn rounding to nearest
// even and saturating at 448; each element is V_i / (g * scale), converted to E2M1 rounding to nearest
// even and saturating at 6. Values are computed in binary64 and rounded once to the element type
// (Transformer Engine multiplies by the float32 reciprocal of g * scale instead, which can round a
// value near a midpoint of E2M1 the other way). A block whose scale converts to zero holds zeros; a block
// holding a NaN or an infinity gets the NaN scale (0x7f) and zero elements. The default g is computed
// from the finite values (1 when there are none).
//
// Dequantization is exact: every product of an element, a power of two and (NVFP4) an E4M3 scale and a
// float32 tensor scale fits binary64, and is rounded once to float32 (overflowing to infinity, or to a
// float32 subnormal).
//
// It is not a GEMM: package interp runs block-scaled dots, and package gemm multiplies.
package blockscale
