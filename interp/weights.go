package interp

import (
	"unsafe"

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

// packedWeightsBound returns the most memory a run of m may keep for weights: the packed B of every dot
// whose product gemm.PlanWeights would have packed, and every constant that may be a weight (kept from its
// first evaluation).
func packedWeightsBound(m *hlo.Module) int64 {
	var n int64
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpConstant:
				if s := in.Shape; s.IsArray() && weightType(s.Elem) && len(s.Dims) >= 2 {
					n = min(n+shapeBytes(s), hugeBytes)
				}
			case hlo.OpDot:
				ops := in.Operands()
				if len(ops) != 2 || !ops[0].Shape.IsArray() || !ops[1].Shape.IsArray() || !weightType(ops[1].Shape.Elem) ||
					in.Shape.Elem != dtype.F32 {
					continue
				}
				d := dotDims{in.Ints("lhs_batch_dims"), in.Ints("rhs_batch_dims"), in.Ints("lhs_contracting_dims"), in.Ints("rhs_contracting_dims")}
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

// packWeights packs a weight: gemm.PackWeights, which tests replace to count the packings.
var packWeights = gemm.PackWeights

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
}

// A weightKey is a weight as one dot reads it: the buffer, and the K x N matrix the dot's B is.
type weightKey struct {
	data  *byte
	typ   dtype.Type
	k, n  int
	trans bool
}

// newWeightCache returns the cache of a run whose entry computation takes args, with room bytes for it
// (negative: no limit).
func newWeightCache(args []Value, room int64) *weightCache {
	w := &weightCache{room: room, sources: map[*byte]*tensor.Tensor{}, constants: map[*hlo.Instruction]Value{},
		uses: map[weightKey]int{}, packed: map[weightKey]*gemm.Weights{}}
	var add func(v Value)
	add = func(v Value) {
		switch v.Kind {
		case KindArray:
			if weightType(v.Array.Type) && len(v.Array.Data) > 0 {
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
	for _, w := range gemm.WeightTypes() {
		if w == t {
			return true
		}
	}
	return false
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
// one, else literalValue's, kept when it may be a weight (an array of a type gemm packs, of two
// dimensions or more) and there is room.
func (w *weightCache) constant(in *hlo.Instruction) (Value, error) {
	if w == nil {
		return literalValue(in)
	}
	if v, ok := w.constants[in]; ok {
		return v, nil
	}
	v, err := literalValue(in)
	if err != nil || v.Kind != KindArray || !weightType(v.Array.Type) || len(v.Array.Shape) < 2 || len(v.Array.Data) == 0 {
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
	if w == nil || len(b.Data) == 0 {
		return nil
	}
	data := unsafe.SliceData(b.Data)
	src, ok := w.sources[data]
	if !ok || len(b.Data) > len(src.Data) {
		return nil
	}
	if method, _ := gemm.PlanWeights(m, a.Type, b.Type, b.Trans); method != gemm.Packed {
		return nil
	}
	key := weightKey{data: data, typ: b.Type, k: b.Rows, n: b.Cols, trans: b.Trans}
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
