package interp

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"octet/dtype"
	"octet/hlo"
	"octet/tensor"
)

// buffers recycles the memory of arrays within one evaluation. Freshly allocated memory costs a page
// fault per page on first touch, which for an elementwise instruction takes longer than its arithmetic;
// an array that no instruction will read again is a buffer of the right size for the next result.
//
// An array's memory is recycled only when the evaluation allocated it (newTensor) and no value held by
// any computation being evaluated refers to it any more: every value a frame holds (its parameters
// included, and the arrays inside tuples) counts one reference, dropped when the frame releases it after
// its last use or returns. The arrays of the result of a call or fusion instruction's computation pass to
// the frame that holds the instruction's value, like any other it computes; those of other computations'
// results (the entry's, a loop body's, a reducer's) leave the evaluation's care when it returns: they are
// never recycled, and the garbage collector frees them when the caller is done; a while loop holds its
// state as a frame does, passing its reference to the body, whose result stays in the evaluation's care.
// An array held by one value of one frame, at that value's last use, may be written by its user: a
// dynamic-update-slice or scatter then updates it in place (inPlace). Programs with
// instructions that keep values elsewhere (probes, collectives, host transfers, several devices) do not
// recycle at all.
type buffers struct {
	enabled   bool
	maxFree   int64
	refs      map[*byte]int32 // references held by frames
	mine      map[*byte]bool  // allocated by this evaluation and not yet recycled
	free      map[int][][]byte
	freeBytes int64
	fresh     int // arrays allocated, not recycled
}

// maxFreeBytes bounds the memory kept for reuse; with Options.MaxMemory it is at most an eighth of that.
const maxFreeBytes = 256 << 20

// recyclable reports whether every instruction of m only reads its operands while it runs.
func recyclable(m *hlo.Module) bool {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpCustomCall:
				if t := in.CustomCallTarget(); t == RunParallelTarget || t == probeTarget {
					return false
				}
			case hlo.OpSend, hlo.OpRecv, hlo.OpSendDone, hlo.OpRecvDone, hlo.OpInfeed, hlo.OpOutfeed,
				hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter, hlo.OpCollectivePermute,
				hlo.OpAllReduceStart, hlo.OpAllGatherStart, hlo.OpCollectivePermuteStart, hlo.OpCollectiveBroadcast,
				hlo.OpRaggedAllToAll, hlo.OpCollectiveReduce:
				return false
			}
		}
	}
	return true
}

func newBuffers(m *hlo.Module, opts Options) *buffers {
	if !recyclable(m) {
		return &buffers{}
	}
	maxFree := int64(maxFreeBytes)
	if opts.MaxMemory > 0 {
		maxFree = min(maxFree, opts.MaxMemory/8)
	}
	b := &buffers{enabled: true, maxFree: maxFree, refs: map[*byte]int32{}, mine: map[*byte]bool{}, free: map[int][][]byte{}}
	// The memory an earlier evaluation left free, as far as this one may keep it.
	if s, _ := spareBuffers.Get().(map[int][][]byte); s != nil {
		for n, list := range s {
			for _, data := range list {
				if b.freeBytes+int64(n) <= b.maxFree {
					b.free[n] = append(b.free[n], data)
					b.freeBytes += int64(n)
				}
			}
		}
	}
	return b
}

// spareBuffers holds the free memory of finished evaluations (map[int][][]byte, as buffers.free) for
// the next one, so that a program run again and again does not fault in its arrays each time; the garbage
// collector empties it as it does any sync.Pool.
var spareBuffers sync.Pool

// retire hands the memory left free at the end of an evaluation to the next one.
func (b *buffers) retire() {
	if b == nil || !b.enabled || b.freeBytes == 0 {
		return
	}
	spareBuffers.Put(b.free)
	b.free, b.freeBytes = map[int][][]byte{}, 0
}

func key(t *tensor.Tensor) *byte {
	if t == nil || len(t.Data) == 0 {
		return nil
	}
	return unsafe.SliceData(t.Data)
}

// smallBytes is the size below which an array's memory is left to the garbage collector: not counted,
// recycled or updated in place, since a page fault is what recycling saves, and counting the references
// of a loop's scalars cost more than their arithmetic.
var smallBytes = 4096

// arrays calls f with the key and the array of every array of v that has memory, smallBytes or more, where
// the buffers are enabled.
func (b *buffers) arrays(v Value, f func(k *byte, t *tensor.Tensor)) {
	if b == nil || !b.enabled {
		return
	}
	switch v.Kind {
	case KindArray:
		if k := key(v.Array); k != nil && len(v.Array.Data) >= smallBytes {
			f(k, v.Array)
		}
	case KindTuple:
		for _, x := range v.Tuple {
			b.arrays(x, f)
		}
	}
}

// retain counts the references of a value a frame now holds.
func (b *buffers) retain(v Value) {
	b.arrays(v, func(k *byte, _ *tensor.Tensor) { b.refs[k]++ })
}

// release drops the references of a value a frame no longer holds, recycling the memory no one refers to.
func (b *buffers) release(v Value) {
	b.arrays(v, func(k *byte, t *tensor.Tensor) {
		if b.refs[k]--; b.refs[k] > 0 {
			return
		}
		delete(b.refs, k)
		if b.mine[k] {
			delete(b.mine, k)
			data := t.Data
			if b.freeBytes+int64(len(data)) <= b.maxFree {
				b.free[len(data)] = append(b.free[len(data)], data)
				b.freeBytes += int64(len(data))
			}
		}
	})
}

// disown drops the references of a value that a returning frame hands to its caller, which retains it
// at once: memory no one refers to then is not recycled yet.
func (b *buffers) disown(v Value) {
	b.arrays(v, func(k *byte, _ *tensor.Tensor) {
		if b.refs[k]--; b.refs[k] <= 0 {
			delete(b.refs, k)
		}
	})
}

// inPlaceWrites counts the results written into their operand's memory (dynamic-update-slice, scatter):
// what tests read to see that it happens.
var inPlaceWrites atomic.Int64

// sole reports whether the memory of t is the evaluation's own and held by one value of one frame: once
// that value's last user has read it, nothing reads it again, so that user may write its result there.
func (b *buffers) sole(t *tensor.Tensor) bool {
	k := key(t)
	return b != nil && b.enabled && k != nil && b.mine[k] && b.refs[k] == 1
}

// escape gives up the evaluation's claim on the arrays of a value that leaves the frame that made it
// (a computation's result): they will not be recycled.
func (b *buffers) escape(v Value) {
	b.arrays(v, func(k *byte, _ *tensor.Tensor) { delete(b.mine, k) })
}

// newTensor returns a tensor of type t and shape dims whose elements are NOT initialised: the caller
// writes every one. Its memory is a recycled buffer where one of the size is free.
func (e *evaluator) newTensor(t dtype.Type, dims []int64) *tensor.Tensor {
	b := e.buffers
	if b == nil || !b.enabled {
		return tensor.New(t, dims)
	}
	n := int(product(dims)) * t.ByteSize()
	if n < smallBytes {
		return tensor.New(t, dims)
	}
	if list := b.free[n]; len(list) > 0 {
		data := list[len(list)-1]
		b.free[n] = list[:len(list)-1]
		b.freeBytes -= int64(n)
		b.mine[unsafe.SliceData(data)] = true
		return &tensor.Tensor{Type: t, Shape: append([]int64{}, dims...), Data: data}
	}
	r := tensor.New(t, dims)
	if k := key(r); k != nil {
		b.mine[k] = true
		b.fresh++
	}
	return r
}

// newFloat32s returns n float32 values to write, for a result of type f32 (see newTensor).
func (e *evaluator) newFloat32s(dims []int64) (*tensor.Tensor, []float32) {
	r := e.newTensor(dtype.F32, dims)
	return r, tensor.View[float32](r)
}

// givable reports whether operand p of instruction i of c (whose values so far are vals) may be given to
// i to write into or to pass on: i is its last user and reads it once, it is not c's result, and its
// memory is the evaluation's own, held by that value alone, and shared by none of i's other operands.
func givable(b *buffers, k *compiled, c *hlo.Computation, i, p int, vals []Value) bool {
	ops := k.operands[i]
	j := ops[p]
	if j < 0 || k.lastUse[j] != i || c.Instructions[j] == c.Root {
		return false
	}
	v := vals[j]
	if v.Kind != KindArray || !b.sole(v.Array) {
		return false
	}
	for q, x := range ops {
		if q != p && (x < 0 || x == j || sharesArray(vals[x], v.Array)) {
			return false
		}
	}
	return true
}

// inPlace returns the array of the first operand of instruction i of c when i may write its result into
// it (givable), else nil.
func inPlace(b *buffers, k *compiled, c *hlo.Computation, i int, vals []Value) *tensor.Tensor {
	if len(k.operands[i]) == 0 || !givable(b, k, c, i, 0, vals) {
		return nil
	}
	return vals[k.operands[i][0]].Array
}

// inPlaceResult is the result an update written into x: x's memory under a header of its own, counted in
// inPlaceWrites.
func inPlaceResult(x *tensor.Tensor) *tensor.Tensor {
	inPlaceWrites.Add(1)
	return &tensor.Tensor{Type: x.Type, Shape: append([]int64(nil), x.Shape...), Data: x.Data}
}

// donations returns, for instruction i of c (a fusion or call), which operands its frame may pass to the
// called computation with its reference (givable); nil for none.
func donations(b *buffers, k *compiled, c *hlo.Computation, i int, vals []Value) []bool {
	if b == nil || !b.enabled {
		return nil
	}
	var d []bool
	for p := range k.operands[i] {
		if givable(b, k, c, i, p, vals) {
			if d == nil {
				d = make([]bool, len(k.operands[i]))
			}
			d[p] = true
		}
	}
	return d
}

// sharesArray reports whether v holds t's memory (in a tuple too).
func sharesArray(v Value, t *tensor.Tensor) bool {
	switch v.Kind {
	case KindArray:
		return v.Array != nil && key(v.Array) == key(t)
	case KindTuple:
		for _, x := range v.Tuple {
			if sharesArray(x, t) {
				return true
			}
		}
	}
	return false
}
