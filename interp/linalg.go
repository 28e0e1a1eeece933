package interp

import (
	"encoding/json"
	"math/cmplx"
	"slices"
	"strings"

	"octet/dtype"
	"octet/hlo"
	"octet/linalg"
	"octet/tensor"
)

func init() {
	registerArray((*evaluator).triangularSolve, hlo.OpTriangularSolve)
	registerArray((*evaluator).cholesky, hlo.OpCholesky)
}

// cholesky factors each matrix of a batch of Hermitian positive definite matrices, reading its lower
// (lower=true) or upper triangle: a = L·Lᴴ, or Uᴴ·U, the other triangle of the result zeros (XLA leaves
// it to the implementation). It computes in float64 or complex128 and rounds once. Where a matrix is not
// positive definite, the square root of a negative remainder is NaN and spreads through the columns after
// it, as it does in the computation XLA's CholeskyExpander builds (XLA defines no result for such a
// matrix).
func (e *evaluator) cholesky(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	a := ts[0]
	r := len(a.Shape)
	if r < 2 || a.Shape[r-1] != a.Shape[r-2] || !a.Type.IsFloat() && !a.Type.IsComplex() {
		return nil, unsupportedf(in, "cholesky of %s", a)
	}
	n := a.Shape[r-1]
	if err := e.charge(a.NumElements() * n); err != nil {
		return nil, err
	}
	lower := in.Str("lower") == "true"
	batch := a.NumElements() / max(n*n, 1)
	if a.Type.IsComplex() {
		x := slices.Clone(asComplex(a))
		for k := int64(0); k < batch; k++ {
			linalg.CholeskyThrough(x[k*n*n:(k+1)*n*n], int(n), lower)
		}
		return fromComplex(a.Type, a.Shape, x), nil
	}
	x := slices.Clone(f64s(a))
	for k := int64(0); k < batch; k++ {
		linalg.CholeskyThrough(x[k*n*n:(k+1)*n*n], int(n), lower)
	}
	return fromF64(a.Type, a.Shape, x), nil
}

// triangularSolve solves op(a) x = b (left_side) or x op(a) = b for x, batch by batch, where a is
// triangular (its lower or upper triangle is read, the other ignored), op is the identity, the
// transpose or the adjoint, and a unit diagonal is taken as ones. It computes in float64 or complex128 and
// rounds the result to its type.
func (e *evaluator) triangularSolve(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	return e.solveTriangularWith(in, ts, triangularOptions{
		left:  in.Str("left_side") == "true",
		lower: in.Str("lower") == "true",
		unit:  in.Str("unit_diagonal") == "true",
		trans: in.Str("transpose_a"),
	})
}

// triangularOptions are XLA's TriangularSolveOptions.
type triangularOptions struct {
	left, lower, unit bool
	trans             string // NO_TRANSPOSE (or empty), TRANSPOSE, ADJOINT
}

func (e *evaluator) solveTriangularWith(in *hlo.Instruction, ts []*tensor.Tensor, o triangularOptions) (*tensor.Tensor, error) {
	a, b := ts[0], ts[1]
	ra, rb := len(a.Shape), len(b.Shape)
	if ra < 2 || ra != rb || a.Shape[ra-1] != a.Shape[ra-2] || a.Type != b.Type || !a.Type.IsFloat() && !a.Type.IsComplex() {
		return nil, unsupportedf(in, "triangular-solve of %s and %s", a, b)
	}
	m := a.Shape[ra-1]
	rows, cols := b.Shape[rb-2], b.Shape[rb-1]
	if o.left && rows != m || !o.left && cols != m {
		return nil, errorf(in, "triangular-solve: a is %dx%d, b %dx%d", m, m, rows, cols)
	}
	if !slices.Equal(a.Shape[:ra-2], b.Shape[:rb-2]) {
		return nil, errorf(in, "triangular-solve: the batch dimensions of %s and %s differ", a, b)
	}
	if err := e.charge(b.NumElements() * m); err != nil {
		return nil, err
	}
	if a.Type.IsComplex() {
		return triangularBatches[complex128](a, b, m, rows, cols, o.left, o.lower, o.unit, o.trans), nil
	}
	return triangularBatches[float64](a, b, m, rows, cols, o.left, o.lower, o.unit, o.trans), nil
}

// CublasTriangularSolveTarget is the custom call XLA's GPU compiler (TriangularSolveRewriter) makes of a
// triangular-solve: operands a and b, a tuple of the solution and a workspace, its
// TriangularSolveOptions in backend_config as JSON.
const CublasTriangularSolveTarget = "__cublas$triangularSolve"

// cublasTriangularSolve evaluates that call as the triangular-solve it was made from; the workspace
// is zeros.
func (e *evaluator) cublasTriangularSolve(in *hlo.Instruction, ops []Value) (Value, error) {
	var cfg struct {
		LeftSide     bool    `json:"left_side"`
		Lower        bool    `json:"lower"`
		TransposeA   *string `json:"transpose_a"`
		UnitDiagonal bool    `json:"unit_diagonal"`
	}
	bc := in.BackendConfig()
	if bc == nil {
		return Value{}, errorf(in, "%s without a backend_config", CublasTriangularSolveTarget)
	}
	dec := json.NewDecoder(strings.NewReader(bc.Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Value{}, errorf(in, "%s: backend_config: %v", CublasTriangularSolveTarget, err)
	}
	// proto3's JSON leaves out false flags; transpose_a has no valid default (0 is TRANSPOSE_INVALID).
	if cfg.TransposeA == nil {
		return Value{}, errorf(in, "%s: backend_config has no transpose_a", CublasTriangularSolveTarget)
	}
	o := triangularOptions{left: cfg.LeftSide, lower: cfg.Lower, unit: cfg.UnitDiagonal, trans: *cfg.TransposeA}
	if o.trans != "NO_TRANSPOSE" && o.trans != "TRANSPOSE" && o.trans != "ADJOINT" {
		return Value{}, errorf(in, "%s: transpose_a %q is not NO_TRANSPOSE, TRANSPOSE or ADJOINT", CublasTriangularSolveTarget, o.trans)
	}
	ts, err := arrays(in, ops)
	if err != nil {
		return Value{}, err
	}
	if len(ts) != 2 {
		return Value{}, errorf(in, "%s takes two arrays, a and b", CublasTriangularSolveTarget)
	}
	want, err := libraryResult(in, dtype.S8)
	if err != nil {
		return Value{}, err
	}
	x, err := e.solveTriangularWith(in, ts, o)
	if err != nil {
		return Value{}, err
	}
	if x.Type != want.Elem || !slices.Equal(x.Shape, want.Dims) {
		return Value{}, errorf(in, "%s: the solution is %s, the call declares %s", CublasTriangularSolveTarget, x, want.String())
	}
	return withWorkspace(in, x), nil
}

// triangularBatches solves each matrix of the batch of a against b's (solveTriangular), in T.
func triangularBatches[T linalg.Scalar](a, b *tensor.Tensor, m, rows, cols int64, left, lower, unit bool, trans string) *tensor.Tensor {
	av, bv := elems[T](a), elems[T](b)
	batch := a.NumElements() / (m * m)
	out := make([]T, 0, len(bv))
	for k := int64(0); k < batch; k++ {
		out = append(out, solveTriangular(av[k*m*m:(k+1)*m*m], bv[k*rows*cols:(k+1)*rows*cols], m, rows, cols, left, lower, unit, trans)...)
	}
	return tensorOf(a.Type, b.Shape, out)
}

// solveTriangular solves op(tri(a))·x = b (left) or x·op(tri(a)) = b for x, a m×m and b rows×cols
// row-major: tri takes a's lower or upper triangle, with ones on the diagonal when unit; op is trans
// (NO_TRANSPOSE or empty, TRANSPOSE, ADJOINT). Each element of x is b's less the products of the row of
// op(tri(a)) and the elements solved before it, in order of k, then divided by the diagonal: forward or
// backward substitution, a row of x at a time. Complex operands whose values are all real are solved in
// real arithmetic, as real operands are.
func solveTriangular[T linalg.Scalar](ak, bk []T, m, rows, cols int64, left, lower, unit bool, trans string) []T {
	eff := make([]T, m*m) // op(tri(a)), row-major
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < m; j++ {
			var v T
			if i == j && unit {
				v = 1
			} else if i == j || lower && i > j || !lower && i < j {
				v = ak[i*m+j]
			}
			switch trans {
			case "TRANSPOSE":
				eff[j*m+i] = v
			case "ADJOINT":
				eff[j*m+i] = conjugate(v)
			default:
				eff[i*m+j] = v
			}
		}
	}
	effLower := lower == (trans == "" || trans == "NO_TRANSPOSE")
	b, n := bk, cols
	if !left {
		// x·eff = b is effᵀ·xᵀ = bᵀ.
		eff, effLower = transposeOf(eff, int(m), int(m), false), !effLower
		b, n = transposeOf(bk, int(rows), int(cols), false), rows
	}
	var x []T
	if ce, ok := any(eff).([]complex128); ok && allReal(ce) && allReal(any(b).([]complex128)) {
		xr := substituteRows(realParts(ce), realParts(any(b).([]complex128)), m, n, effLower)
		xc := make([]complex128, len(xr))
		for i, v := range xr {
			xc[i] = complex(v, 0)
		}
		x = any(xc).([]T)
	} else {
		x = substituteRows(eff, b, m, n, effLower)
	}
	if !left {
		return transposeOf(x, int(m), int(n), false) // x is m×n: xᵀ
	}
	return x
}

// allReal reports whether every element of x has a zero imaginary part.
func allReal(x []complex128) bool {
	for _, v := range x {
		if imag(v) != 0 {
			return false
		}
	}
	return true
}

// conjugate is v's complex conjugate (v itself when real).
func conjugate[T linalg.Scalar](v T) T {
	if z, ok := any(v).(complex128); ok {
		return any(cmplx.Conj(z)).(T)
	}
	return v
}

// substituteRows solves t·x = b for x (m×n, row-major), t m×m lower or upper triangular: row i of x is
// (b's row i - sum over the solved rows k of t[i][k]·x's row k, k ascending) / t[i][i].
func substituteRows[T linalg.Scalar](t, b []T, m, n int64, lower bool) []T {
	x := make([]T, m*n)
	for s := int64(0); s < m; s++ {
		i := s
		if !lower {
			i = m - 1 - s
		}
		xi := x[i*n : (i+1)*n]
		copy(xi, b[i*n:(i+1)*n])
		k0, k1 := int64(0), i
		if !lower {
			k0, k1 = i+1, m
		}
		for k := k0; k < k1; k++ {
			tik, xk := t[i*m+k], x[k*n:(k+1)*n]
			for c := range xi {
				xi[c] -= tik * xk[c]
			}
		}
		d := t[i*m+i]
		for c := range xi {
			xi[c] /= d
		}
	}
	return x
}

// transposeOf returns the transpose of the r×c row-major x, conjugated when conj.
func transposeOf[T linalg.Scalar](x []T, r, c int, conj bool) []T {
	t := make([]T, len(x))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x[i*c+j]
			if conj {
				v = conjugate(v)
			}
			t[j*r+i] = v
		}
	}
	return t
}

// realParts returns the real parts of x.
func realParts(x []complex128) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = real(v)
	}
	return out
}

// asComplex returns the elements of a float or complex tensor as complex128.
func asComplex(t *tensor.Tensor) []complex128 {
	if t.Type.IsComplex() {
		return c128s(t)
	}
	f := f64s(t)
	out := make([]complex128, len(f))
	for i, v := range f {
		out[i] = complex(v, 0)
	}
	return out
}

// fromComplex makes a tensor of the float or complex type ty from complex128 values (the real parts
// for a real type).
func fromComplex(ty dtype.Type, dims []int64, x []complex128) *tensor.Tensor {
	if ty.IsComplex() {
		return fromC128(ty, dims, x)
	}
	f := make([]float64, len(x))
	for i, v := range x {
		f[i] = real(v)
	}
	return fromF64(ty, dims, f)
}
