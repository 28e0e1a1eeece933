package interp

import (
	"math/cmplx"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

func init() {
	registerArray((*evaluator).triangularSolve, hlo.OpTriangularSolve)
}

// triangularSolve solves op(a) x = b (left_side) or x op(a) = b for x, batch by batch, where a is
// triangular (its lower or upper triangle is read, the other ignored), op is the identity, the
// transpose or the adjoint, and a unit diagonal is taken as ones. It computes in float64 or complex128 and
// rounds the result to its type.
func (e *evaluator) triangularSolve(in *hlo.Instruction, ts []*tensor.Tensor) (*tensor.Tensor, error) {
	a, b := ts[0], ts[1]
	ra, rb := len(a.Shape), len(b.Shape)
	if ra < 2 || ra != rb || a.Shape[ra-1] != a.Shape[ra-2] || a.Type != b.Type || !a.Type.IsFloat() && !a.Type.IsComplex() {
		return nil, unsupportedf(in, "triangular-solve of %s and %s", a, b)
	}
	left := in.Str("left_side") == "true"
	lower := in.Str("lower") == "true"
	unit := in.Str("unit_diagonal") == "true"
	trans := in.Str("transpose_a")
	m := a.Shape[ra-1]
	rows, cols := b.Shape[rb-2], b.Shape[rb-1]
	if left && rows != m || !left && cols != m {
		return nil, errorf(in, "triangular-solve: a is %dx%d, b %dx%d", m, m, rows, cols)
	}
	if err := e.charge(b.NumElements() * m); err != nil {
		return nil, err
	}
	av, bv := asComplex(a), asComplex(b)
	batch := a.NumElements() / (m * m)
	out := make([]complex128, len(bv))
	eff := make([]complex128, m*m) // op(tri(a)), row-major
	for k := int64(0); k < batch; k++ {
		ak := av[k*m*m : (k+1)*m*m]
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < m; j++ {
				v := complex128(0)
				if i == j && unit {
					v = 1
				} else if i == j || lower && i > j || !lower && i < j {
					v = ak[i*m+j]
				}
				switch trans {
				case "TRANSPOSE":
					eff[j*m+i] = v
				case "ADJOINT":
					eff[j*m+i] = cmplx.Conj(v)
				default:
					eff[i*m+j] = v
				}
			}
		}
		effLower := lower == (trans == "" || trans == "NO_TRANSPOSE")
		bk, xk := bv[k*rows*cols:(k+1)*rows*cols], out[k*rows*cols:(k+1)*rows*cols]
		if left {
			// eff x[:, c] = b[:, c] for each column c.
			for c := int64(0); c < cols; c++ {
				substitute(eff, m, effLower, func(i int64) complex128 { return bk[i*cols+c] },
					func(i int64) *complex128 { return &xk[i*cols+c] })
			}
		} else {
			// x eff = b, that is effᵀ x[r, :]ᵀ = b[r, :]ᵀ for each row r.
			tr := make([]complex128, m*m)
			for i := int64(0); i < m; i++ {
				for j := int64(0); j < m; j++ {
					tr[j*m+i] = eff[i*m+j]
				}
			}
			for r := int64(0); r < rows; r++ {
				substitute(tr, m, !effLower, func(i int64) complex128 { return bk[r*cols+i] },
					func(i int64) *complex128 { return &xk[r*cols+i] })
			}
		}
	}
	return fromComplex(a.Type, b.Shape, out), nil
}

// substitute solves t x = b for a triangular m×m t (row-major), lower or upper, by forward or backward
// substitution; b and x are read and written through accessors.
func substitute(t []complex128, m int64, lower bool, b func(int64) complex128, x func(int64) *complex128) {
	for s := int64(0); s < m; s++ {
		i := s
		if !lower {
			i = m - 1 - s
		}
		sum := b(i)
		if lower {
			for k := int64(0); k < i; k++ {
				sum -= t[i*m+k] * *x(k)
			}
		} else {
			for k := i + 1; k < m; k++ {
				sum -= t[i*m+k] * *x(k)
			}
		}
		*x(i) = sum / t[i*m+i]
	}
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
