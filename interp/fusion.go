package interp

import (
	"sync"

	"octet/dtype"
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
// is f32, bf16, s32, u32 or pred and one of the common operations on them (gemm's row operations, clamp and
// the unary functions of f32 and bf16; the arithmetic, logic and shifts of s32 and u32; compares, selects,
// conversions of integers to f32 and bf16 and between f32 and bf16), the chunks run those loops directly
// in a few reused scratch arrays (wordChunks), bf16 values held as float32 words.

// chunkPlan is a fusion computation laid out for chunked evaluation.
type chunkPlan struct {
	n     int64 // elements of the result
	steps []chunkStep
	root  int
	// words is set where the chunks run as wordChunks: slots is then the number of scratch arrays a
	// goroutine needs.
	words bool
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
	stepIota                       // an s32, u32 or f32 iota: its range, computed
)

type chunkStep struct {
	in       *hlo.Instruction
	kind     chunkKind
	operands []int // steps
	chunked  bool  // the step has a range (else only its whole value, of one element or used by broadcasts)
	// For wordChunks: the scratch array the step's range is written to (-1: none), the bytes of an
	// element in it (4, or 1 for pred), the view of an f32 or bf16 broadcast, and the loop of an
	// elementwise instruction, which writes its range d from its operands' ranges; round is set where
	// the loop computes a bf16 result in float32, to be rounded to bf16 after it.
	slot   int
	es     int
	view   *bcastView
	kernel func(d []byte, ops [][]byte)
	round  bool
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
		case in.Opcode == hlo.OpIota:
			d, ok := in.Int("iota_dimension")
			if t := in.Shape.Elem; !ok || d < 0 || d >= int64(len(in.Shape.Dims)) || !int32Types(t) && t != dtype.F32 {
				return nil
			}
			st.kind = stepIota
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
	p.planWords()
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
	if p.words && aligned(whole) {
		e.wordChunks(p, whole, out)
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
				case st.kind == stepIota:
					vals[i] = tensor.New(st.in.Shape.Elem, []int64{m})
					iotaWords(vals[i].Data, st.in, c0)
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
