// Package cublas describes the cuBLAS GEMM custom calls of XLA's GPU backend as XLA writes them: the
// targets (__cublas$lt$matmul$f8, __cublas$lt$matmul, __cublas$gemm), the GemmBackendConfig JSON and
// which operand and result plays which part.
//
// It is the one place that knows this ABI; the interpreter, the FP8 rewriter and the one-line Summary
// that "octet print" puts under each call (through Annotate, a printer.Config.Annotate) all go through
// Decode and GemmConfig. It reads both operand forms of the FP8 call: today's
// a, b, [c], a_scale, b_scale, [bias], [d_scale], and the six-scalar form of XLA up to 2024,
// a, b, [c], a_scale, b_scale, c_scale, d_scale. Results are D, then the auxiliary output of a *_AUX
// epilogue or the f32[] abs-max of D, then the s8 workspace.
//
// A call printed without its backend_config (as readable printers do) still decodes: both operands
// contract their last dimension, the leading dimensions are batch dimensions, alpha is 1, beta 0 and the
// epilogue DEFAULT; Call.Inferred says so.
//
// Importing the package registers a check with hlo.Verify (hlo.RegisterCustomCall): a cuBLAS GEMM call
// whose backend_config does not read as a GemmBackendConfig (an epilogue the enum lacks included), or
// whose operands and results do not fit it (Decode), is invalid input, reported at the call.
//
// It does not evaluate anything; numerics live in the interpreter and package gemm.
package cublas
