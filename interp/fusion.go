package interp

import (
	"slices"
	"sync"

	"octet/dtype"
	"octet/gemm"
	"octet/hlo"
	"octet/tensor"
)

// A fusion whose computation is elementwise (parameters and constants, broadcasts of them, elementwise
// instructions, reshapes and copies, all of the result's element count) is evaluated chunk by chunk:
// every instruction of the computation runs on one range of elements at a time, so the intermediate
// arrays are a few KiB that stay in cache instead of whole arrays, and the chunks are shared among the
// cores. Each instruction runs its own evaluator on its range, so every element gets the bits the
// instruction-by-instruction evaluation gives it. Instructions of another size whose operands are of
// another size too (a batch norm's scale times the inverse of its deviation, per feature, before it is
// broadcast) are evaluated whole, once, before the chunks. Where every instruction of the result's size
// is f32 and one of the common float32 operations (gemm's row operations, clamp, the unary functions),
// the chunks run those directly in a few reused scratch arrays (f32Chunks).

// chunkPlan is a fusion computation laid out for chunked evaluation.
type chunkPlan struct {
	n     int64 // elements of the result
	steps []chunkStep
	root  int
	// f32 is set where the chunks run as f32Chunks: slots is then the number of scratch arrays a
	// goroutine needs.
	f32   bool
	slots int
}

type chunkKind uint8

const (
	stepParam     chunkKind = iota // a parameter: its range, or all of it where it is not of the result's size
	stepConstant                   // a constant, likewise
	stepBroadcast                  // a broadcast of a parameter or constant: its range, computed
	stepAlias                      // a reshape, copy or row-major bitcast: its operand's range
	stepEval                       // an elementwise instruction, evaluated on the range
	stepWhole                      // an instruction not of the result's size, on others: evaluated whole, once
)

type chunkStep struct {
	in       *hlo.Instruction
	kind     chunkKind
	operands []int // steps
	chunked  bool  // the step has a range (else only its whole value, of one element or used by broadcasts)
	// For f32Chunks: the scratch array the step's range is written to (-1: none), the view of a
	// broadcast, and the row operation or unary function of an elementwise instruction.
	slot  int
	view  *bcastView
	rowOp gemm.RowOp
	unary func(float32) float32
}

// chunkable elementwise opcodes, beyond the unary and binary ones.
func chunkableOp(op hlo.Opcode) bool {
	switch op {
	case hlo.OpCompare, hlo.OpSelect, hlo.OpClamp, hlo.OpConvert, hlo.OpReducePrecision:
		return true
	}
	return (op.IsElementwiseUnary() || op.IsElementwiseBinary()) && evaluatorOf(op) != nil
}

// planChunks returns the chunk plan of a fusion computation, or nil when it is not elementwise.
func planChunks(c *hlo.Computation) *chunkPlan {
	if c == nil || c.Root == nil || !c.Root.Shape.IsArray() || len(c.Instructions) < 2 {
		return nil
	}
	n := c.Root.Shape.NumElements()
	if n < 2*chunkElements {
		return nil
	}
	p := &chunkPlan{n: n}
	index := map[*hlo.Instruction]int{}
	for _, in := range c.Instructions {
		if !in.Shape.IsArray() {
			return nil
		}
		st := chunkStep{in: in, chunked: in.Shape.NumElements() == n}
		for _, o := range in.Operands() {
			j, ok := index[o]
			if !ok {
				return nil
			}
			st.operands = append(st.operands, j)
		}
		switch {
		case in.Opcode == hlo.OpParameter:
			st.kind = stepParam
		case in.Opcode == hlo.OpConstant:
			st.kind = stepConstant
		case !st.chunked:
			// Of another size: evaluated whole, from operands of other sizes.
			if !planWhole(in) {
				return nil
			}
			for _, j := range st.operands {
				if p.steps[j].chunked {
					return nil
				}
			}
			st.kind = stepWhole
		case in.Opcode == hlo.OpBroadcast:
			if len(st.operands) != 1 || p.steps[st.operands[0]].chunked {
				return nil
			}
			st.kind = stepBroadcast
		case in.Opcode == hlo.OpReshape || in.Opcode == hlo.OpCopy || in.Opcode == hlo.OpBitcast:
			op := p.steps[st.operands[0]]
			if !op.chunked || op.in.Shape.Elem != in.Shape.Elem ||
				(in.Opcode == hlo.OpBitcast && !(rowMajor(in.Shape.Layout, len(in.Shape.Dims)) && rowMajor(op.in.Shape.Layout, len(op.in.Shape.Dims)))) {
				return nil
			}
			st.kind = stepAlias
		default:
			if !chunkableOp(in.Opcode) {
				return nil
			}
			for _, j := range st.operands {
				if o := p.steps[j]; !o.chunked && o.in.Shape.NumElements() != 1 {
					return nil
				}
			}
			st.kind = stepEval
		}
		index[in] = len(p.steps)
		p.steps = append(p.steps, st)
	}
	p.root = index[c.Root]
	if !p.steps[p.root].chunked {
		return nil
	}
	// A value that is not of the result's size may only be broadcast, or be a single element, or be the
	// operand of a whole step.
	for _, st := range p.steps {
		for _, j := range st.operands {
			if o := p.steps[j]; !o.chunked && st.kind != stepBroadcast && st.kind != stepWhole && o.in.Shape.NumElements() != 1 {
				return nil
			}
		}
	}
	p.planF32()
	return p
}

// planWhole reports whether an instruction of a fusion may be evaluated whole before the chunks: one
// that computes an array from arrays, without computations of its own.
func planWhole(in *hlo.Instruction) bool {
	if len(in.Called()) > 0 || evaluatorOf(in.Opcode) == nil {
		return false
	}
	for _, o := range in.Operands() {
		if !o.Shape.IsArray() {
			return false
		}
	}
	return in.Opcode != hlo.OpCustomCall && in.Opcode != hlo.OpRng
}

// planF32 sets p.f32 where every step of the result's size is an f32 parameter, constant, broadcast,
// alias or one of the float32 operations f32Chunks runs, and gives each step that writes a range its
// scratch array, reused once the steps that read it are done.
func (p *chunkPlan) planF32() {
	for i := range p.steps {
		st := &p.steps[i]
		st.slot = -1
		if !st.chunked {
			continue
		}
		in := st.in
		if in.Shape.Elem != dtype.F32 {
			return
		}
		for _, o := range in.Operands() {
			if o.Shape.Elem != dtype.F32 {
				return
			}
		}
		switch st.kind {
		case stepBroadcast:
			st.view = viewOf(in)
		case stepEval:
			ops := len(st.operands)
			switch op := in.Opcode; {
			case op == hlo.OpClamp && ops == 3:
			case ops == 2 && op.IsElementwiseBinary():
				r, ok := rowOps[op]
				if !ok {
					return
				}
				st.rowOp = r
			case ops == 1 && op.IsElementwiseUnary() && op != hlo.OpIsFinite && op != hlo.OpReal && op != hlo.OpImag:
				if st.unary = unaryF32(op); st.unary == nil {
					return
				}
			default:
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
		if st.chunked && i != p.root && (st.kind == stepEval || st.kind == stepBroadcast) {
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
	p.f32, p.slots = true, slots
}

// chunkPlanOf returns the cached chunk plan of c.
func (e *evaluator) chunkPlanOf(c *hlo.Computation) *chunkPlan {
	k := e.compile(c)
	if !k.chunkDone {
		k.chunk, k.chunkDone = planChunks(c), true
	}
	return k.chunk
}

// fusionChunked evaluates the fusion in, whose computation has plan p, on its operands.
func (e *evaluator) fusionChunked(in *hlo.Instruction, p *chunkPlan, args []Value) (Value, error) {
	whole := make([]*tensor.Tensor, len(p.steps))
	for i, st := range p.steps {
		switch st.kind {
		case stepParam:
			k := st.in.ParameterNumber
			if k < 0 || k >= int64(len(args)) || args[k].Kind != KindArray || args[k].Array == nil {
				return Value{}, errorf(in, "fusion parameter %d is not an array", k)
			}
			if err := args[k].Fits(st.in.Shape); err != nil {
				return Value{}, errorf(in, "fusion parameter %d: %v", k, err)
			}
			whole[i] = args[k].Array
		case stepConstant:
			v, err := literalValue(st.in)
			if err != nil {
				return Value{}, err
			}
			whole[i] = v.Array
		case stepWhole:
			ops := make([]Value, len(st.operands))
			for j, o := range st.operands {
				ops[j] = ArrayValue(whole[o])
			}
			v, err := e.eval(st.in, ops)
			if err != nil {
				return Value{}, wrapErr(st.in, err)
			}
			if v.Kind != KindArray || v.Array == nil {
				return Value{}, errorf(st.in, "not an array")
			}
			whole[i] = v.Array
		case stepBroadcast:
			dims := st.in.Ints("dimensions")
			x := whole[st.operands[0]]
			if len(dims) != len(x.Shape) || x.Type != st.in.Shape.Elem {
				return Value{}, errorf(st.in, "broadcast of %s with dimensions %v to %s", x, dims, st.in.Shape.String())
			}
			for j, d := range dims {
				if d < 0 || d >= int64(len(st.in.Shape.Dims)) || st.in.Shape.Dims[d] != x.Shape[j] {
					return Value{}, errorf(st.in, "broadcast dimension %d of %s does not fit %s", d, x, st.in.Shape.String())
				}
			}
		}
	}
	rootIn := p.steps[p.root].in
	out := e.newTensor(rootIn.Shape.Elem, rootIn.Shape.Dims)
	if p.f32 {
		e.f32Chunks(p, whole, out)
		if err := e.charge(p.n * int64(len(p.steps))); err != nil {
			return Value{}, err
		}
		return ArrayValue(out), nil
	}
	es := int64(out.Type.ByteSize())
	chunks := int((p.n + chunkElements - 1) / chunkElements)
	var mu sync.Mutex
	var firstErr error
	parallelFor(e.threads, chunks, max(1, elementwiseGrain/chunkElements), func(lo, hi int) {
		ce := &evaluator{mod: e.mod, gemm: e.gemm, threads: 1, comps: map[*hlo.Computation]*compiled{}}
		shadows := map[int64][]hlo.Instruction{}
		vals := make([]*tensor.Tensor, len(p.steps))
		for c := lo; c < hi; c++ {
			c0 := int64(c) * chunkElements
			c1 := min(c0+chunkElements, p.n)
			m := c1 - c0
			sh := shadows[m]
			if sh == nil {
				sh = make([]hlo.Instruction, len(p.steps))
				for i, st := range p.steps {
					sh[i] = *st.in
					sh[i].Shape = hlo.Array(st.in.Shape.Elem, m)
				}
				shadows[m] = sh
			}
			for i, st := range p.steps {
				switch {
				case !st.chunked:
					vals[i] = whole[i]
				case st.kind == stepParam || st.kind == stepConstant:
					w := whole[i]
					es := int64(w.Type.ByteSize())
					vals[i] = &tensor.Tensor{Type: w.Type, Shape: []int64{m}, Data: w.Data[c0*es : c1*es]}
				case st.kind == stepBroadcast:
					vals[i] = broadcastRange(whole[st.operands[0]], st.in.Shape.Dims, st.in.Ints("dimensions"), c0, c1)
				case st.kind == stepAlias:
					x := vals[st.operands[0]]
					vals[i] = &tensor.Tensor{Type: x.Type, Shape: []int64{m}, Data: x.Data}
				default:
					ops := make([]Value, len(st.operands))
					for j, o := range st.operands {
						ops[j] = ArrayValue(vals[o])
					}
					v, err := ce.eval(&sh[i], ops)
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
					vals[i] = v.Array
				}
			}
			copy(out.Data[c0*es:c1*es], vals[p.root].Data)
		}
	})
	if firstErr != nil {
		return Value{}, firstErr
	}
	if err := e.charge(p.n * int64(len(p.steps))); err != nil {
		return Value{}, err
	}
	return ArrayValue(out), nil
}

// broadcastRange returns the elements [lo, hi) (row-major) of x broadcast to dims, x's dimension i
// becoming dimension bdims[i].
func broadcastRange(x *tensor.Tensor, dims, bdims []int64, lo, hi int64) *tensor.Tensor {
	es := int64(x.Type.ByteSize())
	r := &tensor.Tensor{Type: x.Type, Shape: []int64{hi - lo}, Data: make([]byte, (hi-lo)*es)}
	if x.NumElements() == 1 {
		fill(r, x.Data)
		return r
	}
	rank := len(dims)
	src := make([]int64, rank) // x's stride along each result dimension (0 where broadcast)
	xs := rowMajorStrides(x.Shape)
	for i, d := range bdims {
		src[d] = xs[i]
	}
	idx := make([]int64, rank)
	rem := lo
	for d := rank - 1; d >= 0; d-- {
		idx[d] = rem % dims[d]
		rem /= dims[d]
	}
	off := int64(0)
	for d := range idx {
		off += idx[d] * src[d]
	}
	last := rank - 1
	for o := int64(0); o < hi-lo; {
		// Along the last dimension, the source advances by src[last] per element.
		run := min(dims[last]-idx[last], hi-lo-o)
		switch {
		case src[last] == 1:
			copy(r.Data[o*es:(o+run)*es], x.Data[off*es:(off+run)*es])
		case src[last] == 0:
			for k := int64(0); k < run; k++ {
				copy(r.Data[(o+k)*es:(o+k+1)*es], x.Data[off*es:(off+1)*es])
			}
		default:
			for k := int64(0); k < run; k++ {
				s := off + k*src[last]
				copy(r.Data[(o+k)*es:(o+k+1)*es], x.Data[s*es:(s+1)*es])
			}
		}
		o += run
		// Advance the index past the run.
		off += (run - 1) * src[last]
		idx[last] += run - 1
		for d := last; d >= 0; d-- {
			idx[d]++
			off += src[d]
			if idx[d] < dims[d] {
				break
			}
			off -= idx[d] * src[d]
			idx[d] = 0
		}
	}
	return r
}

// f32Chunks evaluates the chunks of a plan whose steps of the result's size are all f32 (p.f32) into out,
// each step as its own evaluator computes it (gemm.Row for the binary operations, gemm.Clamp or
// clampSliceF32 for clamp, the scalar function for the unary ones), its range written into a scratch
// array of the goroutine's (the root's into out).
func (e *evaluator) f32Chunks(p *chunkPlan, whole []*tensor.Tensor, out *tensor.Tensor) {
	dst := tensor.View[float32](out)
	views := make([]*viewChunk, len(p.steps))
	for i, st := range p.steps {
		if st.kind == stepBroadcast && st.view != nil && whole[st.operands[0]].NumElements() > 1 {
			views[i] = newViewChunk(st.view, whole[st.operands[0]])
		}
	}
	chunks := int((p.n + chunkElements - 1) / chunkElements)
	parallelFor(e.threads, chunks, max(1, elementwiseGrain/chunkElements), func(lo, hi int) {
		slots := make([][]float32, p.slots)
		for i := range slots {
			slots[i] = make([]float32, chunkElements)
		}
		vals := make([][]float32, len(p.steps))
		filled := map[int][]float32{}   // steps of one element, repeated
		periodic := map[int][]float32{} // broadcasts of a period that fits a chunk
		// single returns the range of m elements of a step of one element.
		single := func(j int, m int64) []float32 {
			f := filled[j]
			if f == nil {
				f = make([]float32, chunkElements)
				v := f32s(whole[j])[0]
				for k := range f {
					f[k] = v
				}
				filled[j] = f
			}
			return f[:m]
		}
		for c := lo; c < hi; c++ {
			c0 := int64(c) * chunkElements
			c1 := min(c0+chunkElements, p.n)
			m := c1 - c0
			operand := func(j int) []float32 {
				if p.steps[j].chunked {
					return vals[j]
				}
				return single(j, m)
			}
			for i := range p.steps {
				st := &p.steps[i]
				if !st.chunked {
					continue
				}
				var d []float32
				if st.slot >= 0 {
					d = slots[st.slot][:m]
				} else if i == p.root {
					d = dst[c0:c1]
				}
				switch st.kind {
				case stepParam, stepConstant:
					vals[i] = tensor.View[float32](whole[i])[c0:c1]
					continue
				case stepAlias:
					vals[i] = vals[st.operands[0]]
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
							vals[i] = per[o : o+m]
						} else {
							v.fill(d, int(c0))
							vals[i] = d
						}
					default:
						copy(d, bytesFloat32(broadcastRange(x, st.in.Shape.Dims, st.in.Ints("dimensions"), c0, c1).Data))
						vals[i] = d
					}
					continue
				}
				// An elementwise instruction.
				switch {
				case st.unary != nil:
					x := operand(st.operands[0])
					for k := range d {
						d[k] = st.unary(x[k])
					}
				case st.in.Opcode == hlo.OpClamp:
					l, x, h := st.operands[0], st.operands[1], st.operands[2]
					if !p.steps[l].chunked && !p.steps[h].chunked {
						gemm.Clamp(d, operand(x), f32s(whole[l])[0], f32s(whole[h])[0])
					} else {
						clampSliceF32(d, operand(l), operand(x), operand(h))
					}
				default:
					gemm.Row(st.rowOp, d, operand(st.operands[0]), operand(st.operands[1]))
				}
				vals[i] = d
			}
			if r := vals[p.root]; &r[0] != &dst[c0] {
				copy(dst[c0:c1], r)
			}
		}
	})
}
