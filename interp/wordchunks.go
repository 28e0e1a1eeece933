package interp

import (
	"math"
	"slices"
	"unsafe"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// wordType reports whether the chunks of a word plan may hold elements of t: four-byte words (f32, s32,
// u32) or pred bytes.
func wordType(t dtype.Type) bool {
	return t == dtype.F32 || t == dtype.S32 || t == dtype.U32 || t == dtype.PRED
}

// words is b as elements of a four-byte type T (b aligned for it, as tensors and scratch arrays are).
func words[T float32 | int32 | uint32](b []byte) []T {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// aligned reports whether the data of every array in ts is aligned for four-byte words.
func aligned(ts []*tensor.Tensor) bool {
	for _, t := range ts {
		if t != nil && len(t.Data) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(t.Data)))%4 != 0 {
			return false
		}
	}
	return true
}

// planWords sets p.words where every step of the result's size, and each of its operands, is of a word
// type and each elementwise step has a loop (wordKernel); and gives each step that writes a range its
// scratch array, reused once the steps that read it are done.
func (p *chunkPlan) planWords() {
	for i := range p.steps {
		st := &p.steps[i]
		st.slot = -1
		if !st.chunked {
			continue
		}
		in := st.in
		if !wordType(in.Shape.Elem) {
			return
		}
		for _, o := range in.Operands() {
			if !wordType(o.Shape.Elem) {
				return
			}
		}
		st.es = in.Shape.Elem.ByteSize()
		switch st.kind {
		case stepBroadcast:
			if in.Shape.Elem == dtype.F32 {
				st.view = viewOf(in)
			}
		case stepEval:
			scalar := make([]bool, len(st.operands))
			for k, j := range st.operands {
				scalar[k] = !p.steps[j].chunked
			}
			if st.kernel = wordKernel(in, scalar); st.kernel == nil {
				return
			}
		}
	}
	// Scratch arrays: a step that writes its range (an elementwise instruction, a broadcast, but the
	// root, which writes into the result) takes a free one, and gives it back after the last step that
	// reads it, itself or through aliases.
	owner := make([]int, len(p.steps))
	last := make([]int, len(p.steps))
	for i, st := range p.steps {
		owner[i], last[i] = i, -1
		if st.kind == stepAlias {
			owner[i] = owner[st.operands[0]]
		}
		for _, j := range st.operands {
			last[owner[j]] = i
		}
	}
	var free []int
	slots := 0
	for i := range p.steps {
		st := &p.steps[i]
		if st.chunked && i != p.root && (st.kind == stepEval || st.kind == stepBroadcast || st.kind == stepIota) {
			if n := len(free); n > 0 {
				st.slot, free = free[n-1], free[:n-1]
			} else {
				st.slot, slots = slots, slots+1
			}
		}
		for k, j := range st.operands {
			if o := owner[j]; last[o] == i && p.steps[o].slot >= 0 && !slices.ContainsFunc(st.operands[:k], func(x int) bool { return owner[x] == o }) {
				free = append(free, p.steps[o].slot)
			}
		}
		if st.slot >= 0 && last[i] < 0 {
			free = append(free, st.slot)
		}
	}
	p.words, p.slots = true, slots
}

// wordKernel returns the loop of elementwise instruction in over the ranges of its operands (scalar[k]:
// operand k is a single element, repeated over the range), or nil where it has none. Each computes what
// the instruction's own evaluator computes: gemm's row operations, clamp and the element functions for
// f32; binaryKernel for s32 and u32; gemm's compare and select rows (what compareKernel and selectKernel
// run), and Go's conversions of integers to f32 (rounded once, as convertFast's).
func wordKernel(in *hlo.Instruction, scalar []bool) func(d []byte, ops [][]byte) {
	t := in.Shape.Elem
	operands := in.Operands()
	same := true // every operand of the result's type
	for _, o := range operands {
		same = same && o.Shape.Elem == t
	}
	op := in.Opcode
	switch {
	case t == dtype.F32 && same && op == hlo.OpClamp && len(operands) == 3:
		if scalar[0] && scalar[2] {
			return func(d []byte, ops [][]byte) {
				gemm.Clamp(words[float32](d), words[float32](ops[1]), words[float32](ops[0])[0], words[float32](ops[2])[0])
			}
		}
		return func(d []byte, ops [][]byte) {
			clampSliceF32(words[float32](d), words[float32](ops[0]), words[float32](ops[1]), words[float32](ops[2]))
		}
	case t == dtype.F32 && same && len(operands) == 2 && op.IsElementwiseBinary():
		r, ok := rowOps[op]
		if !ok {
			return nil
		}
		return func(d []byte, ops [][]byte) {
			gemm.Row(r, words[float32](d), words[float32](ops[0]), words[float32](ops[1]))
		}
	case t == dtype.F32 && same && len(operands) == 1 && op.IsElementwiseUnary() && op != hlo.OpIsFinite &&
		op != hlo.OpReal && op != hlo.OpImag:
		f := unaryF32(op)
		if f == nil {
			return nil
		}
		run := unaryChunk(op, f)
		return func(d []byte, ops [][]byte) { run(words[float32](d), words[float32](ops[0])) }
	case (t == dtype.S32 || t == dtype.U32) && same && len(operands) == 2 && int32Op(op):
		if t == dtype.S32 {
			return func(d []byte, ops [][]byte) {
				binaryKernel(op, words[int32](ops[0]), words[int32](ops[1]), words[int32](d))
			}
		}
		return func(d []byte, ops [][]byte) {
			binaryKernel(op, words[uint32](ops[0]), words[uint32](ops[1]), words[uint32](d))
		}
	case t == dtype.PRED && op == hlo.OpCompare && len(operands) == 2 && operands[0].Shape.Elem == operands[1].Shape.Elem:
		dir, ctype, err := compareSpec(in)
		if err != nil {
			return nil
		}
		c := cmpOps[dir]
		switch operands[0].Shape.Elem {
		case dtype.F32:
			if ctype == "TOTALORDER" {
				return nil
			}
			return func(d []byte, ops [][]byte) { gemm.CompareF32(c, d, words[float32](ops[0]), words[float32](ops[1])) }
		case dtype.S32:
			return func(d []byte, ops [][]byte) { gemm.CompareS32(c, d, words[int32](ops[0]), words[int32](ops[1])) }
		case dtype.U32:
			return func(d []byte, ops [][]byte) { gemm.CompareU32(c, d, words[uint32](ops[0]), words[uint32](ops[1])) }
		}
	case op == hlo.OpSelect && len(operands) == 3 && operands[0].Shape.Elem == dtype.PRED &&
		operands[1].Shape.Elem == t && operands[2].Shape.Elem == t:
		if t == dtype.PRED {
			return func(d []byte, ops [][]byte) { gemm.SelectU8(d, ops[0], ops[1], ops[2]) }
		}
		return func(d []byte, ops [][]byte) {
			gemm.SelectU32(words[uint32](d), ops[0], words[uint32](ops[1]), words[uint32](ops[2]))
		}
	case op == hlo.OpConvert && len(operands) == 1:
		switch from := operands[0].Shape.Elem; {
		case t == dtype.F32 && from == dtype.S32:
			return func(d []byte, ops [][]byte) { convertKernel(words[int32](ops[0]), words[float32](d)) }
		case t == dtype.F32 && from == dtype.U32:
			return func(d []byte, ops [][]byte) { convertKernel(words[uint32](ops[0]), words[float32](d)) }
		case (t == dtype.S32 || t == dtype.U32) && (from == dtype.S32 || from == dtype.U32):
			return func(d []byte, ops [][]byte) { copy(d, ops[0]) } // the same bits, wrapped
		}
	}
	return nil
}

// wordChunks evaluates the chunks of a word plan (p.words) into out, each step by its loop (wordKernel),
// its range written into a scratch array of the goroutine's (the root's into out).
func (e *evaluator) wordChunks(p *chunkPlan, whole []*tensor.Tensor, out *tensor.Tensor) {
	es := int64(out.Type.ByteSize())
	views := make([]*viewChunk, len(p.steps))
	for i, st := range p.steps {
		if st.kind == stepBroadcast && st.view != nil && whole[st.operands[0]].NumElements() > 1 {
			views[i] = newViewChunk(st.view, whole[st.operands[0]])
		}
	}
	chunks := int((p.n + chunkElements - 1) / chunkElements)
	parallelFor(e.threads, chunks, max(1, elementwiseGrain/chunkElements), func(lo, hi int) {
		slots := make([][]byte, p.slots)
		for i := range slots {
			slots[i] = float32Bytes(make([]float32, chunkElements)) // four-byte aligned
		}
		vals := make([][]byte, len(p.steps))
		args := make([][][]byte, len(p.steps))
		filled := map[int][]byte{}      // steps of one element, repeated
		periodic := map[int][]float32{} // f32 broadcasts of a period that fits a chunk
		// single returns the range of m elements of a step of one element.
		single := func(j int, m int64) []byte {
			w := whole[j]
			wes := int64(w.Type.ByteSize())
			f := filled[j]
			if f == nil {
				f = float32Bytes(make([]float32, chunkElements*wes/4+1))[:chunkElements*wes]
				for k := int64(0); k < chunkElements; k++ {
					copy(f[k*wes:(k+1)*wes], w.Data[:wes])
				}
				filled[j] = f
			}
			return f[:m*wes]
		}
		for c := lo; c < hi; c++ {
			c0 := int64(c) * chunkElements
			c1 := min(c0+chunkElements, p.n)
			m := c1 - c0
			for i := range p.steps {
				st := &p.steps[i]
				if !st.chunked {
					continue
				}
				ses := int64(st.es)
				var d []byte
				if st.slot >= 0 {
					d = slots[st.slot][:m*ses]
				} else if i == p.root {
					d = out.Data[c0*es : c1*es]
				}
				switch st.kind {
				case stepParam, stepConstant:
					vals[i] = whole[i].Data[c0*ses : c1*ses]
					continue
				case stepAlias:
					vals[i] = vals[st.operands[0]]
					continue
				case stepIota:
					iotaWords(d, st.in, c0)
					vals[i] = d
					continue
				case stepBroadcast:
					x := whole[st.operands[0]]
					switch v := views[i]; {
					case x.NumElements() == 1:
						vals[i] = single(st.operands[0], m)
					case v != nil:
						per, ok := periodic[i]
						if !ok {
							per = v.periodic()
							periodic[i] = per
						}
						if per != nil {
							o := c0 % v.v.p
							vals[i] = float32Bytes(per[o : o+m])
						} else {
							v.fill(words[float32](d), int(c0))
							vals[i] = d
						}
					default:
						copy(d, broadcastRange(x, st.in.Shape.Dims, st.in.Ints("dimensions"), c0, c1).Data)
						vals[i] = d
					}
					continue
				}
				a := args[i][:0]
				for _, j := range st.operands {
					if p.steps[j].chunked {
						a = append(a, vals[j])
					} else {
						a = append(a, single(j, m))
					}
				}
				args[i] = a
				st.kernel(d, a)
				vals[i] = d
			}
			if r := vals[p.root]; len(r) > 0 && &r[0] != &out.Data[c0*es] {
				copy(out.Data[c0*es:c1*es], r)
			}
		}
	})
}

// convertKernel sets z[i] to x[i] converted by Go (an integer to float32: rounded once to nearest even).
func convertKernel[S int32 | uint32](x []S, z []float32) {
	x = x[:len(z)]
	for i, v := range x {
		z[i] = float32(v)
	}
}

// iotaWords writes the elements from c0 on of in, an s32, u32 or f32 iota (planChunks has checked its
// dimension), into d: the index along the dimension, as iota and iotaInt32 give it.
func iotaWords(d []byte, in *hlo.Instruction, c0 int64) {
	dims := in.Shape.Dims
	dim, _ := in.Int("iota_dimension")
	stride, n := rowMajorStrides(dims)[dim], dims[dim]
	v := words[uint32](d)
	float := in.Shape.Elem == dtype.F32
	// The index along dim, and the position within its run of stride elements, counted on.
	q, r := c0/stride%n, c0%stride
	for i := range v {
		if float {
			v[i] = math.Float32bits(float32(q))
		} else {
			v[i] = uint32(q)
		}
		if r++; r == stride {
			r = 0
			if q++; q == n {
				q = 0
			}
		}
	}
}
