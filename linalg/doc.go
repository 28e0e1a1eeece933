// Package linalg holds the dense linear algebra that the interpreter runs LAPACK's and cuSOLVER's
// custom calls with (the calls JAX's jnp.linalg lowers to): LU with partial pivoting, Cholesky,
// Householder QR and the forming of its Q, the symmetric and Hermitian eigendecompositions, the singular
// value decomposition, and the Schur form (real or complex) and eigenvectors of a general matrix.
//
// Matrices are row-major slices of float64 or complex128: the interpreter widens float32 and complex64
// operands, runs the algorithm in double precision and rounds the results once to the operands' type, so
// that a program gives the same bits on every CPU. The results are those LAPACK defines where its
// definition fixes them (the pivots of LU, the signs of QR's Householder reflectors, eigenvalues in
// ascending order, singular values in descending order); where LAPACK leaves a choice to the algorithm
// (the sign or phase of an eigenvector or of a pair of singular vectors, the basis of a null space, the
// order of a general matrix's eigenvalues), the function's documentation says which choice this package
// makes. Bits agree with LAPACK's own to the rounding of
// the operand type at best, since LAPACK computes in that type with blocked algorithms.
//
// Every iteration is bounded: a function whose iteration does not converge (NaN or infinite input among
// the causes) reports it, as LAPACK's info does, and returns; none panics on any input of valid shape.
//
// The package is not a general numerical library: it has what the interpreter needs, unblocked and
// single-threaded.
package linalg
