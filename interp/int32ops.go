package interp

import (
	"unsafe"

	"octet/dtype"
	"octet/gemm"
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
//
// One of a and b may have a single element where the result has more: a scalar broadcast read as a view.
func (e *evaluator) binaryInt32(op hlo.Opcode, t dtype.Type, a, b *tensor.Tensor, dims []int64) *tensor.Tensor {
	if !int32Op(op) {
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

// int32Op reports whether binaryInt32 computes op.
func int32Op(op hlo.Opcode) bool {
	switch op {
	case hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply, hlo.OpAnd, hlo.OpOr, hlo.OpXor, hlo.OpMaximum, hlo.OpMinimum,
		hlo.OpShiftLeft, hlo.OpShiftRightLogical, hlo.OpShiftRightArithmetic:
		return true
	}
	return false
}

// binaryLoop sets z[i] to x[i] op y[i] on every core; x or y may hold one element, then read as
// broadcast to z's length (a chunk of it at a time, from a few KiB that stay in L1).
func binaryLoop[T int32 | uint32](threads int, op hlo.Opcode, x, y, z []T) {
	if len(z) > 1 && (len(x) == 1 || len(y) == 1) {
		parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
			xs, ys := x, y
			fill := func(v T) []T {
				c := make([]T, min(chunkElements, hi-lo))
				for i := range c {
					c[i] = v
				}
				return c
			}
			if len(x) == 1 {
				xs = fill(x[0])
			}
			if len(y) == 1 {
				ys = fill(y[0])
			}
			for c0 := lo; c0 < hi; c0 += chunkElements {
				c1 := min(c0+chunkElements, hi)
				cx, cy := xs, ys
				if len(x) == 1 {
					cx = xs[:c1-c0]
				} else {
					cx = x[c0:c1]
				}
				if len(y) == 1 {
					cy = ys[:c1-c0]
				} else {
					cy = y[c0:c1]
				}
				binaryKernel(op, cx, cy, z[c0:c1])
			}
		})
		return
	}
	parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
		binaryKernel(op, x[lo:hi], y[lo:hi], z[lo:hi])
	})
}

// binaryKernel sets z[i] to x[i] op y[i], the three of one length: gemm.RowU32 on the arrays' bits (its
// assembly where the kernel set has it, else its Go loop; the signed or unsigned extrema as T is), or for
// an op it does not name, nothing (binaryInt32 and the chunk plans take only int32Op's).
func binaryKernel[T int32 | uint32](op hlo.Opcode, x, y, z []T) {
	var g gemm.IntOp
	signed := ^T(0) < 0
	switch op {
	case hlo.OpAdd:
		g = gemm.IntAdd
	case hlo.OpSubtract:
		g = gemm.IntSub
	case hlo.OpMultiply:
		g = gemm.IntMul
	case hlo.OpAnd:
		g = gemm.IntAnd
	case hlo.OpOr:
		g = gemm.IntOr
	case hlo.OpXor:
		g = gemm.IntXor
	case hlo.OpMaximum:
		g = gemm.IntMaxU
		if signed {
			g = gemm.IntMaxS
		}
	case hlo.OpMinimum:
		g = gemm.IntMinU
		if signed {
			g = gemm.IntMinS
		}
	// Shift amounts are read unsigned; from the width on, a shift gives 0, or the sign for an
	// arithmetic one (as Go's shifts of 32 bits and more do), whether T is signed or not.
	case hlo.OpShiftLeft:
		g = gemm.IntShl
	case hlo.OpShiftRightLogical:
		g = gemm.IntShrU
	case hlo.OpShiftRightArithmetic:
		g = gemm.IntShrS
	default:
		return
	}
	gemm.RowU32(g, u32s(z), u32s(x), u32s(y))
}

// u32s is s's elements as uint32 values: the same bits.
func u32s[T int32 | uint32](s []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// compareFast compares a and b, of one type, into a pred array of shape dims on every core: integers of
// whole bytes, f32 and f64 read in place, the narrower floats decoded to float32 (exactly, so the order
// is theirs). It returns nil where it does not apply: the total order of floats, sub-byte integers, pred
// and complex numbers.
func (e *evaluator) compareFast(d direction, total bool, a, b *tensor.Tensor, dims []int64) *tensor.Tensor {
	t := a.Type
	r := e.newTensor(dtype.PRED, dims)
	ok := false
	switch {
	case t.IsInteger() && t.BitWidth() == 8*t.ByteSize():
		switch t.ByteSize() {
		case 1:
			if t.IsSigned() {
				ok = compareViews[int8](e.threads, d, a, b, r)
			} else {
				ok = compareViews[uint8](e.threads, d, a, b, r)
			}
		case 2:
			if t.IsSigned() {
				ok = compareViews[int16](e.threads, d, a, b, r)
			} else {
				ok = compareViews[uint16](e.threads, d, a, b, r)
			}
		case 4:
			if t.IsSigned() {
				ok = compareViews[int32](e.threads, d, a, b, r)
			} else {
				ok = compareViews[uint32](e.threads, d, a, b, r)
			}
		case 8:
			if t.IsSigned() {
				ok = compareViews[int64](e.threads, d, a, b, r)
			} else {
				ok = compareViews[uint64](e.threads, d, a, b, r)
			}
		}
	case total:
	case t == dtype.F64:
		ok = compareViews[float64](e.threads, d, a, b, r)
	case t == dtype.F32:
		ok = compareViews[float32](e.threads, d, a, b, r)
	case domainOf(t) == domFloat32:
		compareLoop(e.threads, d, f32s(a), f32s(b), r.Data)
		ok = true
	}
	if !ok {
		return nil
	}
	return r
}

// compareViews compares the data of a and b as elements of T into r's; false, doing nothing, where it
// is not aligned for T.
func compareViews[T ordered](threads int, d direction, a, b, r *tensor.Tensor) bool {
	x, y := view[T](a.Data), view[T](b.Data)
	if x == nil || y == nil {
		return false
	}
	compareLoop(threads, d, x, y, r.Data)
	return true
}

// compareLoop sets z[i] to 1 where x[i] and y[i] compare as d says, else to 0 (a NaN compares false
// but for NE), on every core.
func compareLoop[T ordered](threads int, d direction, x, y []T, z []byte) {
	parallelFor(threads, len(z), elementwiseGrain, func(lo, hi int) {
		compareKernel(d, x[lo:hi], y[lo:hi], z[lo:hi])
	})
}

// compareKernel is compareLoop's work on one goroutine: package gemm's compare rows for s32, u32 and f32
// elements (its assembly where the kernel set has it), its loop in Go for the others.
func compareKernel[T ordered](d direction, x, y []T, z []byte) {
	switch xs := any(x).(type) {
	case []int32:
		gemm.CompareS32(cmpOps[d], z, xs, any(y).([]int32))
		return
	case []uint32:
		gemm.CompareU32(cmpOps[d], z, xs, any(y).([]uint32))
		return
	case []float32:
		gemm.CompareF32(cmpOps[d], z, xs, any(y).([]float32))
		return
	}
	gemm.CompareLoop(cmpOps[d], z, x, y)
}

// cmpOps are the directions of compares as package gemm names them.
var cmpOps = [...]gemm.CmpOp{dirEQ: gemm.CmpEQ, dirNE: gemm.CmpNE, dirLT: gemm.CmpLT, dirLE: gemm.CmpLE,
	dirGT: gemm.CmpGT, dirGE: gemm.CmpGE}

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
