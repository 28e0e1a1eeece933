package interp

import (
	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// Elementwise instructions on s32 and u32 arrays (indices, positions, the iotas and compares of masks)
// run on the arrays as they are, in their own width, on every core, instead of through int64 copies: the
// same values, since Go's 32-bit arithmetic wraps as XLA's does, and the generic path (binaryInt) narrows
// its int64 results to the same bits.

// int32Types reports whether t is s32 or u32.
func int32Types(t dtype.Type) bool { return t == dtype.S32 || t == dtype.U32 }

// binaryInt32 computes op over a and b, both of type t (s32 or u32) and of one element count, into a new
// array of shape dims; nil for an op it does not cover (division, remainder, power).
func (e *evaluator) binaryInt32(op hlo.Opcode, t dtype.Type, a, b *tensor.Tensor, dims []int64) *tensor.Tensor {
	switch op {
	case hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply, hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpMaximum, hlo.OpMinimum,
		hlo.OpShiftLeft, hlo.OpShiftRightLogical, hlo.OpShiftRightArithmetic:
	default:
		return nil
	}
	r := e.newTensor(t, dims)
	if t == dtype.S32 {
		binaryLoop(e.threads, op, tensor.View[int32](a), tensor.View[int32](b), tensor.View[int32](r))
	} else {
		binaryLoop(e.threads, op, tensor.View[uint32](a), tensor.View[uint32](b), tensor.View[uint32](r))
	}
	return r
}

func binaryLoop[T int32 | uint32](threads int, op hlo.Opcode, x, y, z []T) {
	parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
		x, y, z := x[lo:hi], y[lo:hi], z[lo:hi]
		switch op {
		case hlo.OpAdd:
			for i := range z {
				z[i] = x[i] + y[i]
			}
		case hlo.OpSubtract:
			for i := range z {
				z[i] = x[i] - y[i]
			}
		case hlo.OpMultiply:
			for i := range z {
				z[i] = x[i] * y[i]
			}
		case hlo.OpAnd:
			for i := range z {
				z[i] = x[i] & y[i]
			}
		case hlo.OpOr:
			for i := range z {
				z[i] = x[i] | y[i]
			}
		case hlo.OpXor:
			for i := range z {
				z[i] = x[i] ^ y[i]
			}
		case hlo.OpMaximum:
			for i := range z {
				z[i] = max(x[i], y[i])
			}
		case hlo.OpMinimum:
			for i := range z {
				z[i] = min(x[i], y[i])
			}
		// Shift amounts are read unsigned; from the width on, a shift gives 0, or the sign for an
		// arithmetic one (Go's shifts of 32 bits and more do the same).
		case hlo.OpShiftLeft:
			for i := range z {
				z[i] = x[i] << uint32(y[i])
			}
		case hlo.OpShiftRightLogical:
			for i := range z {
				z[i] = T(uint32(x[i]) >> uint32(y[i]))
			}
		case hlo.OpShiftRightArithmetic:
			for i := range z {
				z[i] = T(int32(x[i]) >> uint32(y[i]))
			}
		}
	})
}

// compareInt32 compares a and b, both s32 (signed) or u32 (unsigned), into a pred array of shape dims.
func (e *evaluator) compareInt32(d direction, a, b *tensor.Tensor, dims []int64) *tensor.Tensor {
	r := e.newTensor(dtype.PRED, dims)
	if a.Type == dtype.S32 {
		compareLoop(e.threads, d, tensor.View[int32](a), tensor.View[int32](b), r.Data)
	} else {
		compareLoop(e.threads, d, tensor.View[uint32](a), tensor.View[uint32](b), r.Data)
	}
	return r
}

func compareLoop[T int32 | uint32](threads int, d direction, x, y []T, z []byte) {
	parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
		x, y, z := x[lo:hi], y[lo:hi], z[lo:hi]
		switch d {
		case dirEQ:
			for i := range z {
				z[i] = b2u(x[i] == y[i])
			}
		case dirNE:
			for i := range z {
				z[i] = b2u(x[i] != y[i])
			}
		case dirLT:
			for i := range z {
				z[i] = b2u(x[i] < y[i])
			}
		case dirLE:
			for i := range z {
				z[i] = b2u(x[i] <= y[i])
			}
		case dirGT:
			for i := range z {
				z[i] = b2u(x[i] > y[i])
			}
		case dirGE:
			for i := range z {
				z[i] = b2u(x[i] >= y[i])
			}
		}
	})
}

// b2u is a pred element: 1 for true.
func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// iotaInt32 is an s32 or u32 iota of shape dims along dimension d.
func (e *evaluator) iotaInt32(t dtype.Type, dims []int64, d int64) *tensor.Tensor {
	r := e.newTensor(t, dims)
	v := tensor.View[uint32](r)
	stride := rowMajorStrides(dims)[d]
	n := dims[d]
	parallelFor(e.threads, len(v), elementwiseGrain, func(lo, hi int) {
		// The index along d, and the position within its run of stride elements, counted on.
		q, r := int64(lo)/stride%n, int64(lo)%stride
		for i := lo; i < hi; i++ {
			v[i] = uint32(q)
			if r++; r == stride {
				r = 0
				if q++; q == n {
					q = 0
				}
			}
		}
	})
	return r
}
