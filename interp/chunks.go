package interp

import (
	"math"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// chunkElements is how many elements an elementwise loop decodes, computes and encodes at a time: the
// operands' and the result's pieces stay in L1.
const chunkElements = 2048

// float32Chunks evaluates an elementwise computation over float32-domain operands (f32, bf16, f16, the
// narrow floats) into a new array of type out: each goroutine takes a range of the elements and walks it
// chunk by chunk, decoding each operand's chunk to float32 (f32 operands are read in place), calling f
// and rounding its float32 results to out. So no float32 copy of a whole operand is made, and every
// element gets what the whole-array loop gave it: the result of one element depends on that element only.
// Operands with a single element are broadcast.
func (e *evaluator) float32Chunks(out dtype.Type, dims []int64, ops []*tensor.Tensor, f func(dst []float32, xs [][]float32)) *tensor.Tensor {
	return e.float32ChunksViews(out, dims, ops, nil, f)
}

// float32ChunksViews is float32Chunks where the operands with a view in vs (nil, or one entry per
// operand) are broadcasts read through it.
func (e *evaluator) float32ChunksViews(out dtype.Type, dims []int64, ops []*tensor.Tensor, vs []*bcastView, f func(dst []float32, xs [][]float32)) *tensor.Tensor {
	n := int(product(dims))
	r := e.newTensor(out, dims)
	var dst32 []float32
	if out == dtype.F32 {
		dst32 = tensor.View[float32](r)
	}
	views := make([]*viewChunk, len(ops))
	for i, t := range ops {
		if vs != nil && vs[i] != nil && t.NumElements() != 1 {
			views[i] = newViewChunk(vs[i], t)
		}
	}
	es := out.ByteSize()
	parallelFor(e.threads, n, elementwiseGrain, func(lo, hi int) {
		xs := make([][]float32, len(ops))
		scratch := make([][]float32, len(ops))
		periodic := make([][]float32, len(ops))
		var tmp []float32
		if dst32 == nil {
			tmp = make([]float32, chunkElements)
		}
		for c0 := lo; c0 < hi; c0 += chunkElements {
			c1 := min(c0+chunkElements, hi)
			for i, t := range ops {
				switch v := views[i]; {
				case t.NumElements() == 1 && n != 1:
					if scratch[i] == nil {
						x := f32s(t)[0]
						scratch[i] = make([]float32, chunkElements)
						for j := range scratch[i] {
							scratch[i][j] = x
						}
					}
					xs[i] = scratch[i][:c1-c0]
				case v != nil:
					if periodic[i] == nil && scratch[i] == nil {
						if periodic[i] = v.periodic(); periodic[i] == nil {
							scratch[i] = make([]float32, chunkElements)
						}
					}
					if p := periodic[i]; p != nil {
						o := c0 % int(v.v.p)
						xs[i] = p[o : o+c1-c0]
					} else {
						xs[i] = scratch[i][:c1-c0]
						v.fill(xs[i], c0)
					}
				case t.Type == dtype.F32:
					xs[i] = tensor.View[float32](t)[c0:c1]
				default:
					if scratch[i] == nil {
						scratch[i] = make([]float32, chunkElements)
					}
					xs[i] = scratch[i][:c1-c0]
					tes := t.Type.ByteSize()
					decodeFloat32Into(t.Type, xs[i], t.Data[c0*tes:c1*tes])
				}
			}
			if dst32 != nil {
				f(dst32[c0:c1], xs)
				continue
			}
			d := tmp[:c1-c0]
			f(d, xs)
			encodeFloat32Into(out, r.Data[c0*es:c1*es], d)
		}
	})
	return r
}

// unaryFloat32 evaluates a unary instruction of the float32 domain over chunks on every core.
func (e *evaluator) unaryFloat32(in *hlo.Instruction, x *tensor.Tensor, f func(float32) float32) *tensor.Tensor {
	run := unaryChunk(in.Opcode, f)
	return e.float32Chunks(in.Shape.Elem, in.Shape.Dims, []*tensor.Tensor{x}, func(dst []float32, xs [][]float32) {
		run(dst, xs[0])
	})
}

// unaryChunk returns the loop that sets dst[i] to f(x[i]), f the element function of op; the cheapest
// operations are written out, since a call per element would cost several times the operation, and
// exponential, tanh and logistic run on package gemm's kernels, which give their element functions' bits
// several elements at a time.
func unaryChunk(op hlo.Opcode, f func(float32) float32) func(dst, x []float32) {
	switch op {
	case hlo.OpNegate:
		return func(dst, x []float32) {
			for i, v := range x[:len(dst)] {
				dst[i] = -v
			}
		}
	case hlo.OpAbs:
		return func(dst, x []float32) {
			for i, v := range x[:len(dst)] {
				dst[i] = math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
			}
		}
	case hlo.OpSqrt:
		return func(dst, x []float32) {
			for i, v := range x[:len(dst)] {
				dst[i] = float32(math.Sqrt(float64(v)))
			}
		}
	case hlo.OpExp:
		return func(dst, x []float32) { gemm.ExpF32(dst, x[:len(dst)]) }
	case hlo.OpTanh:
		return func(dst, x []float32) { gemm.TanhF32(dst, x[:len(dst)]) }
	case hlo.OpLogistic:
		return func(dst, x []float32) { gemm.LogisticF32(dst, x[:len(dst)]) }
	}
	return func(dst, x []float32) {
		for i, v := range x[:len(dst)] {
			dst[i] = f(v)
		}
	}
}

// rowOps are the binary instructions that package gemm's row kernels compute.
var rowOps = map[hlo.Opcode]gemm.RowOp{hlo.OpAdd: gemm.RowAdd, hlo.OpSubtract: gemm.RowSub, hlo.OpMultiply: gemm.RowMul,
	hlo.OpDivide: gemm.RowDiv, hlo.OpMaximum: gemm.RowMax, hlo.OpMinimum: gemm.RowMin}

// binaryFloat32 evaluates a binary instruction of the float32 domain over chunks on every core, the
// operands with a view in vs (nil, or one per operand) read through it, or returns nil where the
// instruction has no float32 evaluation. Add, subtract, multiply, divide, maximum and minimum run on
// package gemm's row kernels, which round each element as the scalar operation does.
func (e *evaluator) binaryFloat32(in *hlo.Instruction, a, b *tensor.Tensor, vs []*bcastView) *tensor.Tensor {
	var f func(dst []float32, xs [][]float32)
	if op, ok := rowOps[in.Opcode]; ok {
		f = func(dst []float32, xs [][]float32) { gemm.Row(op, dst, xs[0], xs[1]) }
	} else {
		op := binaryF32(in.Opcode)
		if op == nil {
			return nil
		}
		f = func(dst []float32, xs [][]float32) {
			x, y := xs[0][:len(dst)], xs[1][:len(dst)]
			for i := range dst {
				dst[i] = op(x[i], y[i])
			}
		}
	}
	return e.float32ChunksViews(in.Shape.Elem, in.Shape.Dims, []*tensor.Tensor{a, b}, vs, f)
}

// parallelCopyRegion is copyRegion split across threads goroutines along the first dimension of more
// than one element.
func parallelCopyRegion(threads int, dst []byte, dstBase int64, dstStrides []int64, src []byte, srcBase int64, srcStrides []int64, dims []int64, es int) {
	d := 0
	for d < len(dims) && dims[d] == 1 {
		d++
	}
	if d == len(dims) || threads <= 1 {
		copyRegion(dst, dstBase, dstStrides, src, srcBase, srcStrides, dims, es)
		return
	}
	inner := product(dims[d+1:])
	parallelFor(threads, int(dims[d]), int(max(1, elementwiseGrain/max(inner, 1))), func(lo, hi int) {
		sub := append([]int64(nil), dims...)
		sub[d] = int64(hi - lo)
		copyRegion(dst, dstBase+int64(lo)*dstStrides[d], dstStrides, src, srcBase+int64(lo)*srcStrides[d], srcStrides, sub, es)
	})
}
