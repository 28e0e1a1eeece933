package interp

import (
	"math"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// dotComplex is dot with a complex result: real or complex operands are converted to the result type and
// multiplied in complex128, the sum rounded once to c64 for a c64 result.
func (e *evaluator) dotComplex(in *hlo.Instruction, p *dotPlan, lhs, rhs *tensor.Tensor, out dtype.Type, dims []int64) (*tensor.Tensor, error) {
	if !out.IsComplex() {
		return nil, unsupportedf(in, "dot of %s and %s giving %s", lhs.Type, rhs.Type, out)
	}
	var err error
	if lhs.Type != out {
		if lhs, err = convertTensor(lhs, out, lhs.Shape); err != nil {
			return nil, unsupportedf(in, "dot: %v", err)
		}
	}
	if rhs.Type != out {
		if rhs, err = convertTensor(rhs, out, rhs.Shape); err != nil {
			return nil, unsupportedf(in, "dot: %v", err)
		}
	}
	a, b := p.canonical(lhs, rhs)
	if out == dtype.C128 {
		c := naiveMatMul(p, c128s(a), c128s(b), func(x, y, acc complex128) complex128 { return acc + x*y }, e.threads)
		return fromC128(out, dims, c), nil
	}
	// c64 computes in complex64, each product and sum rounded, as XLA's evaluator does.
	av, bv := c64s(a), c64s(b)
	m, n, k := p.m, p.n, p.k
	c := make([]complex128, p.batch*m*n)
	row := make([]complex64, n)
	for bi := int64(0); bi < p.batch; bi++ {
		ab, bb, cb := av[bi*m*k:], bv[bi*k*n:], c[bi*m*n:]
		for i := int64(0); i < m; i++ {
			clear(row)
			for kk := int64(0); kk < k; kk++ {
				x := ab[i*k+kk]
				for j, y := range bb[kk*n : (kk+1)*n] {
					row[j] += x * y
				}
			}
			for j, v := range row {
				cb[i*n+int64(j)] = complex128(v)
			}
		}
	}
	return fromC128(out, dims, c), nil
}

// c64s returns the elements of a c64 tensor.
func c64s(t *tensor.Tensor) []complex64 {
	out := make([]complex64, t.NumElements())
	for i := range out {
		p := t.Data[8*i:]
		re := math.Float32frombits(uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24)
		im := math.Float32frombits(uint32(p[4]) | uint32(p[5])<<8 | uint32(p[6])<<16 | uint32(p[7])<<24)
		out[i] = complex(re, im)
	}
	return out
}
