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
// u32), pred bytes, or bf16 values held as float32 words (see wordOf).
func wordType(t dtype.Type) bool {
	return t == dtype.F32 || t == dtype.S32 || t == dtype.U32 || t == dtype.PRED || t == dtype.BF16
}

// wordOf is the type a chunk holds elements of t as: t, but f32 for bf16. A bf16 value is held as the
// float32 its code decodes to (the code in the top half of the bits, the low half zero), as a bf16
// instruction's own evaluator holds its operands: decoded exactly, computed on in float32, and rounded to
// bf16 by gemm.EncodeBF16. So a bf16 operand read from outside is decoded as it is loaded, the float32
// result of a step that rounds (wordKernel) is rounded to bf16 precision at once (gemm.RoundBF16, which is
// the encoding decoded), values moved as they are (a select, a reshape) keep their bits, NaN payloads
// included, and a bf16 result is stored as the top halves of its words (gemm.NarrowBF16): every element
// keeps the bits the instructions one by one give it.
func wordOf(t dtype.Type) dtype.Type {
	if t == dtype.BF16 {
		return dtype.F32
	}
	return t
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
// scratch array, reused once the steps that read it are done: the elementwise steps, broadcasts and iotas
// but a root not of bf16, which writes into the result, and the bf16 parameters and constants, decoded
// into theirs.
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
		st.es = wordOf(in.Shape.Elem).ByteSize()
		switch st.kind {
		case stepBroadcast:
			if wordOf(in.Shape.Elem) == dtype.F32 {
				st.view = viewOf(in)
			}
		case stepEval:
			scalar := make([]bool, len(st.operands))
			for k, j := range st.operands {
				// A single element, or one broadcast: its range repeats its first element.
				o := p.steps[j]
				scalar[k] = !o.chunked || o.kind == stepBroadcast && o.in.Operand(0).Shape.NumElements() == 1
			}
			if st.kernel, st.round = wordKernel(in, scalar); st.kernel == nil {
				return
			}
		}
	}
	// Scratch arrays: a step that writes its range takes a free one, and gives it back after the last
	// step that reads it, itself or through aliases.
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
		bf16 := st.in.Shape.Elem == dtype.BF16
		writes := false
		switch st.kind {
		case stepEval, stepBroadcast, stepIota:
			writes = i != p.root || bf16
		case stepParam, stepConstant:
			writes = bf16
		}
		if st.chunked && writes {
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
// operand k's range repeats one element: a single element, or one broadcast), or nil where it has none;
// and whether its result, of bf16, is to be rounded to bf16 after it. Each computes what the instruction's
// own evaluator computes: gemm's row operations, clamp and the element functions for f32 and bf16 (in
// float32, the bf16 result then rounded, as float32Chunks and gemm.ClampBF16 round it); binaryKernel for
// s32 and u32; the logic of pred values (predKernel); gemm's compare and select rows (what compareKernel
// and selectKernel run: bf16 values compared as the float32 values compareFast decodes them to, selected
// on their bits); Go's conversions of integers to f32 (rounded once, as convertFast's, and for bf16 then
// rounded again, as convertTensor's); and the conversions between f32 and bf16 (exact one way, rounded
// the other, as float32Chunks converts).
func wordKernel(in *hlo.Instruction, scalar []bool) (func(d []byte, ops [][]byte), bool) {
	k := wordLoop(in, scalar)
	if k == nil || in.Shape.Elem != dtype.BF16 {
		return k, false
	}
	switch o := in.Operands(); {
	case in.Opcode == hlo.OpSelect:
		return k, false // the operands' bits
	case in.Opcode == hlo.OpConvert && o[0].Shape.Elem == dtype.BF16:
		return k, false // bf16 to bf16: the same bits
	}
	return k, true
}

// wordLoop is wordKernel's loop, on the types the chunks hold the values as (wordOf).
func wordLoop(in *hlo.Instruction, scalar []bool) func(d []byte, ops [][]byte) {
	t := wordOf(in.Shape.Elem)
	operands := in.Operands()
	same := true // every operand of the result's type
	for _, o := range operands {
		same = same && wordOf(o.Shape.Elem) == t
	}
	op := in.Opcode
	switch {
	case op == hlo.OpConvert && len(operands) == 1: // before the unary functions, among which it counts
		switch from := wordOf(operands[0].Shape.Elem); {
		case t == dtype.F32 && from == dtype.F32:
			return func(d []byte, ops [][]byte) { copy(d, ops[0]) } // exact, or rounded after
		case t == dtype.F32 && from == dtype.S32:
			return func(d []byte, ops [][]byte) { convertKernel(words[int32](ops[0]), words[float32](d)) }
		case t == dtype.F32 && from == dtype.U32:
			return func(d []byte, ops [][]byte) { convertKernel(words[uint32](ops[0]), words[float32](d)) }
		case (t == dtype.S32 || t == dtype.U32) && (from == dtype.S32 || from == dtype.U32):
			return func(d []byte, ops [][]byte) { copy(d, ops[0]) } // the same bits, wrapped
		}
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
	case t == dtype.PRED && same && (op == hlo.OpAnd || op == hlo.OpOr || op == hlo.OpXor) && len(operands) == 2:
		return func(d []byte, ops [][]byte) { predKernel(op, d, ops[0], ops[1]) }
	case t == dtype.PRED && same && op == hlo.OpNot && len(operands) == 1:
		return func(d []byte, ops [][]byte) { predKernel(op, d, ops[0], ops[0]) }
	case t == dtype.PRED && op == hlo.OpCompare && len(operands) == 2 && operands[0].Shape.Elem == operands[1].Shape.Elem:
		dir, ctype, err := compareSpec(in)
		if err != nil {
			return nil
		}
		c := cmpOps[dir]
		switch wordOf(operands[0].Shape.Elem) {
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
		operands[1].Shape.Elem == in.Shape.Elem && operands[2].Shape.Elem == in.Shape.Elem:
		if t == dtype.PRED {
			return func(d []byte, ops [][]byte) { gemm.SelectU8(d, ops[0], ops[1], ops[2]) }
		}
		return func(d []byte, ops [][]byte) {
			gemm.SelectU32(words[uint32](d), ops[0], words[uint32](ops[1]), words[uint32](ops[2]))
		}
	}
	return nil
}

// wordChunks evaluates the chunks of a word plan (p.words) into out, each step by its loop (wordKernel),
// its range written into a scratch array of the goroutine's (the root's into out, but for bf16: its words
// narrowed into out).
func (e *evaluator) wordChunks(p *chunkPlan, whole []*tensor.Tensor, out *tensor.Tensor) {
	es := int64(out.Type.ByteSize())
	// The bf16 values not of the result's size (broadcast, or of one element) are decoded once.
	whole = slices.Clone(whole)
	for i, st := range p.steps {
		if w := whole[i]; !st.chunked && w != nil && w.Type == dtype.BF16 {
			whole[i] = &tensor.Tensor{Type: dtype.F32, Shape: w.Shape, Data: float32Bytes(f32s(w))}
		}
	}
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
				copy(f, w.Data[:wes])
				for k := wes; k < int64(len(f)); k *= 2 {
					copy(f[k:], f[:k]) // doubling the copies made
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
					if w := whole[i]; w.Type == dtype.BF16 {
						gemm.DecodeBF16(words[float32](d), bytesUint16(w.Data[2*c0:2*c1], int(m)))
						vals[i] = d
					} else {
						vals[i] = w.Data[c0*ses : c1*ses]
					}
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
							fillView(v, words[float32](d), int(c0))
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
				if st.round {
					gemm.RoundBF16(words[float32](d), words[float32](d))
				}
				vals[i] = d
			}
			switch r := vals[p.root]; {
			case out.Type == dtype.BF16:
				gemm.NarrowBF16(bytesUint16(out.Data[2*c0:2*c1], int(m)), words[float32](r))
			case len(r) > 0 && &r[0] != &out.Data[c0*es]:
				copy(out.Data[c0*es:c1*es], r)
			}
		}
	})
}

// predKernel sets d[i] to x[i] op y[i] for the logic of pred values (not: of x[i] alone), as binaryInt
// and unaryInt compute it: on the truth of each byte (any byte but 0 is true), the result 0 or 1.
func predKernel(op hlo.Opcode, d, x, y []byte) {
	x, y = x[:len(d)], y[:len(d)]
	truth := func(b byte) byte { return (b | -b) >> 7 } // 1 where not zero
	switch op {
	case hlo.OpAnd:
		for i := range d {
			d[i] = truth(x[i]) & truth(y[i])
		}
	case hlo.OpOr:
		for i := range d {
			d[i] = truth(x[i]) | truth(y[i])
		}
	case hlo.OpXor:
		for i := range d {
			d[i] = truth(x[i]) ^ truth(y[i])
		}
	case hlo.OpNot:
		for i := range d {
			d[i] = 1 - truth(x[i])
		}
	}
}

// fillView writes elements [c0, c0+len(dst)) of the broadcast read through c into dst, as c.fill does;
// the runs of one value of a broadcast along a leading dimension (a row's statistic over its features) are
// written by doubling copies rather than an element at a time.
func fillView(c *viewChunk, dst []float32, c0 int) {
	p, q := int(c.v.p), int(c.v.q)
	if q < 16 {
		c.fill(dst, c0)
		return
	}
	for i := 0; i < len(dst); {
		g := c0 + i
		run := dst[i:min(i+(g/q+1)*q-g, len(dst))]
		run[0] = c.small[g/q%p]
		for k := 1; k < len(run); k *= 2 {
			copy(run[k:], run[:k])
		}
		i += len(run)
	}
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
