package interp

import (
	"slices"
	"unsafe"

	"octet/blockscale"
	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// A weight multiplied by again and again (a decode loop's weights, read by a dot in every iteration of a
// while) is packed once and kept for the life of the run: the dot's B in its own narrow type laid out in
// panels (gemm.PackWeights), which package gemm streams several times faster than it transposes a B
// stored N x K (gemm.PlanWeights says for which products). The packed form is kept for the buffer the
// weight came from: an argument of the entry computation, or a constant (whose value the run then keeps,
// so that every evaluation of it is the same buffer). Values are immutable, so a buffer's packed form
// stays right for the whole run; any other array (an instruction's result, whose memory may be reused
// for another) is never packed. A weight is packed at its second use, so that a weight read once costs
// no packing, and only within the memory budget: the packed weights and the constants kept take no more
// than the room Options.MaxMemory leaves beyond the program's own estimate (EstimateMemory). The products
// give the same bits packed or not (package gemm's numerics contract).
//
// The rhs of a block-scaled product (scaled-dot, the block-scaled custom calls) that package gemm's
// block-scaled kernels multiply (streamBlockScaled) is kept the same way: each batch of it packed by
// gemm.PackBlockScaled, for its elements and its scales, both from arguments or constants kept (scales
// in cuDNN's swizzled layout by the swizzled buffer), in the format, shape and layout the product reads
// them in. Those kernels read only packed weights, so every product packs its rhs: the packed form is kept
// where there is room, from the first use in a loop (the body or condition of a while, the function of a
// scan, and what they call) and from the second elsewhere, and every later product takes it as it is.

// loopComputations returns the computations of m that may run more than once in a run: the body and
// condition of every while, the function of every scan (run once per position), and every computation
// those call.
func loopComputations(m *hlo.Module) map[*hlo.Computation]bool {
	loops := map[*hlo.Computation]bool{}
	var mark func(c *hlo.Computation)
	mark = func(c *hlo.Computation) {
		if c == nil || loops[c] {
			return
		}
		loops[c] = true
		for _, in := range c.Instructions {
			for _, called := range in.Called() {
				mark(called)
			}
		}
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpWhile || in.Opcode == hlo.OpScan {
				for _, called := range in.Called() {
					mark(called)
				}
			}
		}
	}
	return loops
}

// packedWeightsBound returns the most memory a run of m may keep for weights: the packed B of every dot
// whose product gemm.PlanWeights would have packed, the packed rhs of every block-scaled product that
// package gemm's block-scaled kernels may multiply, and every constant that may be a weight or its scales
// (kept from its first evaluation).
func packedWeightsBound(m *hlo.Module) int64 {
	var n int64
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpScaledDot, hlo.OpCustomCall:
				n = min(n+blockScaledBound(in), hugeBytes)
			case hlo.OpConstant:
				if s := in.Shape; s.IsArray() && sourceType(s.Elem) && len(s.Dims) >= 2 {
					n = min(n+shapeBytes(s), hugeBytes)
				}
			case hlo.OpDot:
				ops := in.Operands()
				if len(ops) != 2 || !ops[0].Shape.IsArray() || !ops[1].Shape.IsArray() || !weightType(ops[1].Shape.Elem) ||
					in.Shape.Elem != dtype.F32 {
					continue
				}
				d := dotDimsOf(in)
				p, err := planDot(ops[0].Shape.Dims, ops[1].Shape.Dims, d)
				if err != nil || p.batch != 1 || p.m > 1<<30 || p.n > 1<<30 || p.k > 1<<30 {
					continue
				}
				if method, _ := gemm.PlanWeights(int(p.m), ops[0].Shape.Elem, ops[1].Shape.Elem, p.rhsTrans); method == gemm.Packed {
					n = min(n+gemm.PackedBytes(ops[1].Shape.Elem, int(p.k), int(p.n)), hugeBytes)
				}
			}
		}
	}
	return n
}

// blockScaledBound returns the bytes of the packed rhs of in, a block-scaled product, where package gemm's
// block-scaled kernels may multiply it (blockScaledLayout: the rhs quantized, at most blockScaledMaxRows
// rows, the format and layout they read; whether its values agree is known only from its scales): every
// batch of it packed; else, and for any other instruction, 0.
func blockScaledBound(in *hlo.Instruction) int64 {
	ops := in.Operands()
	var d dotDims
	var block []int64
	switch {
	case in.Opcode == hlo.OpScaledDot && len(ops) == 4:
		d = dotDimsOf(in)
		rhs, sc := ops[1].Shape, ops[3].Shape
		if !rhs.IsArray() || !sc.IsArray() || len(sc.Dims) != len(rhs.Dims) {
			return 0
		}
		block = make([]int64, len(rhs.Dims))
		for i, x := range rhs.Dims {
			if sc.Dims[i] <= 0 || x%sc.Dims[i] != 0 {
				return 0
			}
			block[i] = x / sc.Dims[i]
		}
	case in.Opcode == hlo.OpCustomCall && isBlockScaledTarget(in.CustomCallTarget()) && len(ops) >= 4:
		target := in.CustomCallTarget()
		rhs, sc := ops[1].Shape, ops[3].Shape
		r := len(rhs.Dims)
		if !rhs.IsArray() || !sc.IsArray() || r != 2 && r != 3 || len(sc.Dims) != r {
			return 0
		}
		d = dotDims{lhsContract: []int64{int64(r - 1)}, rhsContract: []int64{int64(r - 1)}}
		if r == 3 {
			d.lhsBatch, d.rhsBatch = []int64{0}, []int64{0}
		}
		var bs int64
		if target == BlockScaledDotTarget {
			if bc := in.BackendConfig(); bc != nil {
				bs = blockscale.ConfigBlockSize(bc.Text)
			}
			if k, sk := rhs.Dims[r-1], sc.Dims[r-1]; bs == 0 && sk > 0 && k%sk == 0 {
				bs = k / sk
			}
		} else if f, err := libraryFormat(target, rhs.Elem, sc.Elem); err == nil {
			bs = int64(f.BlockSize)
		}
		if bs <= 0 {
			return 0
		}
		block = make([]int64, r)
		for i := range block {
			block[i] = 1
		}
		block[r-1] = bs
	default:
		return 0
	}
	lhs, rhs, sc := ops[0].Shape, ops[1].Shape, ops[3].Shape
	if !lhs.IsArray() {
		return 0
	}
	p, err := planDot(lhs.Dims, rhs.Dims, d)
	if err != nil || p.batch > 1<<30 || p.n > 1<<30 || p.k > 1<<30 {
		return 0
	}
	f, _, ok := blockScaledLayout(p, d, rhs.Elem, sc.Elem, rhs.Dims, block)
	if !ok {
		return 0
	}
	size := gemm.BlockScaledPackedBytes(f, int(p.k), int(p.n))
	if size > hugeBytes/p.batch {
		return hugeBytes
	}
	return size * p.batch
}

// packWeights packs a weight: gemm.PackWeights, which tests replace to count the packings.
var packWeights = gemm.PackWeights

// packBlockScaled packs a block-scaled weight: gemm.PackBlockScaled, which tests replace to count the
// packings.
var packBlockScaled = gemm.PackBlockScaled

// weightCache is a run's packed weights.
type weightCache struct {
	// room is the most bytes the packed weights and the constants kept may take; negative for no limit.
	room  int64
	bytes int64
	// sources are the buffers weights may come from, by their first byte: the arrays of the arguments
	// and of the constants kept, held here so that their memory stays theirs.
	sources map[*byte]*tensor.Tensor
	// constants are the constants kept, by instruction.
	constants map[*hlo.Instruction]Value
	uses      map[weightKey]int
	packed    map[weightKey]*gemm.Weights
	// blockUses and blockPacked are the same for block-scaled weights.
	blockUses   map[blockScaledKey]int
	blockPacked map[blockScaledKey]*gemm.BlockScaledWeights
	// loops are the computations that may run again and again (loopComputations).
	loops map[*hlo.Computation]bool
}

// A weightKey is a weight as one dot reads it: the buffer, and the K x N matrix the dot's B is.
type weightKey struct {
	data  *byte
	typ   dtype.Type
	k, n  int
	trans bool
}

// A blockScaledKey is a block-scaled weight as one product reads one batch of it: the buffers of its
// elements and scales, where the batch starts in each, and the matrix, format and layout gemm.BlockScaled
// describes. Scales read from cuDNN's swizzled layout are keyed by the swizzled buffer and its shape
// (swizzle: batch, rows, columns), scaleOff then being an offset in their unswizzled copy.
type blockScaledKey struct {
	data, scales        *byte
	dataOff, scaleOff   int
	swizzle             [3]int64
	format              blockscale.Format
	blockN, k, n        int
	stride, scaleStride int
	trans               bool
}

// newWeightCache returns the cache of a run whose entry computation takes args, with room bytes for it
// (negative: no limit).
func newWeightCache(args []Value, room int64) *weightCache {
	w := &weightCache{room: room, sources: map[*byte]*tensor.Tensor{}, constants: map[*hlo.Instruction]Value{},
		uses: map[weightKey]int{}, packed: map[weightKey]*gemm.Weights{},
		blockUses: map[blockScaledKey]int{}, blockPacked: map[blockScaledKey]*gemm.BlockScaledWeights{}}
	var add func(v Value)
	add = func(v Value) {
		switch v.Kind {
		case KindArray:
			if sourceType(v.Array.Type) && len(v.Array.Data) > 0 {
				w.sources[unsafe.SliceData(v.Array.Data)] = v.Array
			}
		case KindTuple:
			for _, x := range v.Tuple {
				add(x)
			}
		}
	}
	for _, a := range args {
		add(a)
	}
	return w
}

// weightType reports whether gemm packs weights of type t.
func weightType(t dtype.Type) bool {
	return slices.Contains(gemm.WeightTypes(), t)
}

// sourceType reports whether an array of type t may be a weight the cache packs, or the scales of one:
// a type gemm.PackWeights takes, or the element or scale type of a format gemm.PackBlockScaled takes.
func sourceType(t dtype.Type) bool {
	return weightType(t) || gemm.BlockScaledFormat(blockscale.Format{Elem: t, Scale: dtype.F8E8M0FNU}) ||
		gemm.BlockScaledFormat(blockscale.Format{Elem: dtype.F8E4M3FN, Scale: t})
}

// fits reports whether n more bytes fit in the cache's room, and counts them if so.
func (w *weightCache) fits(n int64) bool {
	if w.room >= 0 && w.bytes+n > w.room {
		return false
	}
	w.bytes += n
	return true
}

// constant returns the value of the constant in: the one kept from its first evaluation where there is
// one, else literalValue's, kept when it may be a weight or its scales (an array of a sourceType, of two
// dimensions or more) and there is room.
func (w *weightCache) constant(in *hlo.Instruction) (Value, error) {
	if w == nil {
		return literalValue(in)
	}
	if v, ok := w.constants[in]; ok {
		return v, nil
	}
	v, err := literalValue(in)
	if err != nil || v.Kind != KindArray || !sourceType(v.Array.Type) || len(v.Array.Shape) < 2 || len(v.Array.Data) == 0 {
		return v, err
	}
	if w.fits(int64(len(v.Array.Data))) {
		w.constants[in] = v
		w.sources[unsafe.SliceData(v.Array.Data)] = v.Array
	}
	return v, nil
}

// weights returns b packed, when b is a K x N view of a buffer weights come from, gemm.PlanWeights packs
// a product of m rows by it, and it is used for the second time or more (the first is counted); else nil.
func (w *weightCache) weights(m int, a, b gemm.Typed) *gemm.Weights {
	if w == nil || !w.source(b.Data) {
		return nil
	}
	if method, _ := gemm.PlanWeights(m, a.Type, b.Type, b.Trans); method != gemm.Packed {
		return nil
	}
	key := weightKey{data: unsafe.SliceData(b.Data), typ: b.Type, k: b.Rows, n: b.Cols, trans: b.Trans}
	if p, ok := w.packed[key]; ok {
		return p
	}
	if w.uses[key]++; w.uses[key] < 2 || !w.fits(gemm.PackedBytes(b.Type, b.Rows, b.Cols)) {
		return nil
	}
	p := packWeights(b, nil)
	w.packed[key] = p
	return p
}

// blockScaled returns b, batch dataOff/scaleOff of the block-scaled rhs o, packed by gemm.PackBlockScaled
// for a product of computation c: the run's packed form where it has one; else packed anew, and kept when
// b's elements and scales come from buffers weights come from, there is room, and the product may run
// again (c is in a loop: kept from the first use, whose packing every product of a block-scaled rhs pays
// anyway) or this is the weight's second use.
func (w *weightCache) blockScaled(b gemm.BlockScaled, o scaledOperand, dataOff, scaleOff int, c *hlo.Computation) *gemm.BlockScaledWeights {
	if w == nil {
		return packBlockScaled(b)
	}
	key, ok := w.blockScaledKey(b, o, dataOff, scaleOff)
	if !ok {
		return packBlockScaled(b)
	}
	if p, ok := w.blockPacked[key]; ok {
		return p
	}
	if w.blockUses[key]++; w.blockUses[key] < 2 && !w.loops[c] || !w.fits(gemm.BlockScaledPackedBytes(b.Format, b.Rows, b.Cols)) {
		return packBlockScaled(b)
	}
	p := packBlockScaled(b)
	w.blockPacked[key] = p
	return p
}

// blockScaledKey returns the key of b, batch dataOff/scaleOff of o, and whether o's elements and scales
// (the swizzled ones where o read them so) are views of buffers weights come from.
func (w *weightCache) blockScaledKey(b gemm.BlockScaled, o scaledOperand, dataOff, scaleOff int) (blockScaledKey, bool) {
	scales := o.scales
	var swizzle [3]int64
	if o.swizzled != nil {
		scales = o.swizzled
		if r := len(scales.Shape); r <= 3 {
			copy(swizzle[3-r:], scales.Shape)
		} else {
			return blockScaledKey{}, false
		}
	}
	if !w.source(o.data.Data) || !w.source(scales.Data) {
		return blockScaledKey{}, false
	}
	return blockScaledKey{data: unsafe.SliceData(o.data.Data), scales: unsafe.SliceData(scales.Data), dataOff: dataOff, scaleOff: scaleOff,
		swizzle: swizzle, format: b.Format, blockN: b.BlockN, k: b.Rows, n: b.Cols, stride: b.Stride, scaleStride: b.ScaleStride,
		trans: b.Trans}, true
}

// source reports whether data is a view of a buffer weights come from, from its first byte.
func (w *weightCache) source(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	src, ok := w.sources[unsafe.SliceData(data)]
	return ok && len(data) <= len(src.Data)
}
